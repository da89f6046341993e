// weft::KernelArg: one argument of a kernel launch, an array or a value.
#pragma once

#include "weft/registry/types.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/struct_value.hpp"
#include "weft/runtime/values.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

namespace weft {

/// Warp's wp.indexedarray as a launch argument: `base` read through, per
/// dimension, an index array or none (std::nullopt: that dimension is not
/// indexed; fewer entries than base.ndim() leave the rest unindexed). Index
/// arrays are contiguous 1-D int32 arrays on the base's device whose values
/// lie in the base's dimension; a launch checks all but the values
/// (LaunchError), a debug build checks the values as it reads them. The kernel
/// sees the indexed shape and writes through to `base`. Its gradient (Tape) is
/// the base's gradient read through the same index arrays.
struct IndexedArray {
    Array base;
    std::vector<std::optional<Array>> indices;

    /// The shape a kernel sees: per dimension its index array's length, else the base's extent.
    std::vector<std::int64_t> shape() const;
    /// The kernel type: Type::indexed_array(base.dtype(), base.ndim()).
    Type type() const { return Type::indexed_array(base.dtype(), base.ndim()); }
    /// The same index arrays over another base (a gradient: see Tape).
    IndexedArray over(Array other) const { return IndexedArray{std::move(other), indices}; }
};

/// One launch argument: an Array (sharing its storage) or a value of a kernel
/// type held as its bytes in weft's layout. The scalar constructors give the
/// types float -> float32, double -> float64, int -> int32, std::int64_t (and
/// long long) -> int64, std::uint32_t -> uint32, std::uint64_t (and unsigned
/// long long) -> uint64, bool -> bool; the host values of weft/runtime/values.hpp
/// their kernel types (vec3f -> vec3, transformd -> transformd); a StructValue
/// its struct type. Packing checks types exactly: no promotion, so pass 2.0
/// (not 2.0f) for a float64 parameter, or use of().
class KernelArg {
public:
    KernelArg(Array array);
    KernelArg(IndexedArray array);
    KernelArg(float v);
    KernelArg(double v);
    KernelArg(int v);
    KernelArg(std::int64_t v);
    KernelArg(std::uint32_t v);
    KernelArg(std::uint64_t v);
    KernelArg(bool v);
    /// A struct value; the arrays its fields refer to stay alive with the argument.
    KernelArg(const StructValue &v);
    /// A vector, matrix, quaternion or transform (weft/runtime/values.hpp).
    template <class T, std::enable_if_t<detail::value_type_of<T>::value, int> = 0>
    KernelArg(const T &v) : KernelArg(value(type_of<T>(), &v, sizeof v)) {}
    /// Not a kernel argument (without this, a pointer would become a bool).
    template <class T> KernelArg(T *) = delete;
    // long long / unsigned long long where they are not std::int64_t / std::uint64_t.
    template <class T, std::enable_if_t<(std::is_same_v<T, long long> && !std::is_same_v<long long, std::int64_t>) ||
                                            (std::is_same_v<T, unsigned long long> &&
                                             !std::is_same_v<unsigned long long, std::uint64_t>),
                                        int> = 0>
    KernelArg(T v)
        : KernelArg(value(Type::scalar(std::is_signed_v<T> ? Scalar::Int64 : Scalar::UInt64), &v, sizeof v)) {}

    /// A value of `type` (a scalar, vector, matrix, quaternion, struct or native
    /// type) given as its `size` bytes; `size` must be type.size().
    static KernelArg value(Type type, const void *bytes, std::size_t size);
    /// A value of `type` from a host object with the same bytes (sizeof(T) == type.size()).
    template <class T> static KernelArg of(Type type, const T &v) {
        static_assert(std::is_trivially_copyable_v<T>, "KernelArg::of: T must be trivially copyable");
        return value(std::move(type), &v, sizeof(T));
    }

    /// `arg`, also keeping `owner` alive for as long as a launch that receives
    /// it may run (a host object behind an id: weft/host/object.hpp).
    static KernelArg kept(KernelArg arg, std::shared_ptr<const void> owner);
    /// What kept() attached.
    const std::vector<std::shared_ptr<const void>> &owners() const { return owners_; }

    /// A plain array (an indexed array is not one: is_indexed_array()).
    bool is_array() const { return array_.has_value(); }
    /// The array (UserError when this is a value).
    const Array &array() const;
    bool is_indexed_array() const { return indexed_.has_value(); }
    /// The indexed array (UserError when this is not one).
    const IndexedArray &indexed_array() const;
    /// The argument's kernel type: Type::array(dtype, ndim) for an array, Type::indexed_array for an indexed one.
    const Type &type() const { return type_; }
    /// A value's bytes (empty for an array).
    const std::vector<std::byte> &bytes() const { return bytes_; }
    /// Arrays a struct value's fields refer to (a launch keeps them alive and
    /// checks their device).
    const std::vector<Array> &referenced_arrays() const { return referenced_; }

private:
    KernelArg() = default;

    std::optional<Array> array_;
    std::optional<IndexedArray> indexed_;
    Type type_;
    std::vector<std::byte> bytes_;
    std::vector<Array> referenced_;
    std::vector<std::shared_ptr<const void>> owners_;
};

} // namespace weft
