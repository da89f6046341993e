// weft::Array: a kernel array in the memory of a device (the CPU's, or a CUDA
// device's). Its dtype is a weft::Type, its elements are that type's bytes in
// weft's layout (the registry's sizes, the same bytes generated code sees
// through weft::array_t<T>).
#pragma once

#include "weft/registry/types.hpp"
#include "weft/runtime/device.hpp"
#include "weft/runtime/values.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace weft {

/// A 1-4 dimensional array of `dtype` elements on a device (host memory for
/// Device::cpu(), device memory for Device::cuda(n)).
///
/// Storage is owned, 64-byte aligned, zero-filled when created and shared
/// between an array and its views (copying an Array copies the reference, not
/// the elements). Strides are in bytes; a new array is contiguous row-major.
/// Each dimension fits int32 (weft::array_t stores int32 shapes).
///
/// A dtype is a scalar, vector, matrix, quaternion, @wp.struct or native type
/// (opaque ones too); elements are copied as raw bytes, so padding bytes are
/// kept exactly as given.
/// "[2, 3]": a shape as messages show it.
std::string shape_text(const std::vector<std::int64_t> &shape);

/// Checks an array shape of `dtype` (1 to 4 dimensions, each 0 to INT32_MAX, a
/// byte size that fits int64) and returns its element count; messages start with `where`.
std::int64_t checked_element_count(const Type &dtype, const std::vector<std::int64_t> &shape, const std::string &where);

class Array {
public:
    Array(const Array &) = default;
    Array &operator=(const Array &) = default;
    /// The moved-from array is left empty: no elements and no shape (reading it
    /// reads nothing; a launch refuses it by name), never a shape without storage.
    Array(Array &&other) noexcept;
    Array &operator=(Array &&other) noexcept;
    ~Array() = default;

    /// A contiguous array of zero bytes on `device`; with `requires_grad`, with
    /// a zeroed gradient (see grad()).
    static Array zeros(Type dtype, std::vector<std::int64_t> shape, Device device = Device::cpu(),
                       bool requires_grad = false);
    /// A contiguous array on `device` holding a copy of `bytes` host bytes at
    /// `data`, row-major; `bytes` must be the element count times dtype.size().
    static Array from_host(Type dtype, std::vector<std::int64_t> shape, const void *data, std::size_t bytes,
                           Device device = Device::cpu(), bool requires_grad = false);
    /// A 1-D array on `device` holding the elements of `v`. A C++ scalar type
    /// must be the dtype's own (float for float32, std::int32_t for int32, ...:
    /// a std::vector<int> is not a float32 array); other types (structs, native
    /// types) must have the dtype's size; float16 and bfloat16 take their raw bits as std::uint16_t.
    template <class T>
    static Array from_vector(Type dtype, const std::vector<T> &v, Device device = Device::cpu(), bool requires_grad = false) {
        static_assert(std::is_trivially_copyable_v<T>, "Array::from_vector: T must be trivially copyable");
        check_host_element(dtype, host_element<T>(), "from_vector");
        return from_host(std::move(dtype), {static_cast<std::int64_t>(v.size())}, v.data(), v.size() * sizeof(T), device,
                         requires_grad);
    }

    /// A 1-D array of the elements of `v`, whose dtype is T's kernel type
    /// (weft/runtime/values.hpp: float -> float32, vec3f -> vec3, ...).
    template <class T, std::enable_if_t<is_kernel_value_v<T>, int> = 0>
    static Array from_vector(const std::vector<T> &v, Device device = Device::cpu(), bool requires_grad = false) {
        return from_vector(type_of<T>(), v, device, requires_grad);
    }

    // -- gradients (automatic differentiation: weft::Tape) ---------------------
    /// Whether the array has gradient storage.
    bool requires_grad() const { return grad_ != nullptr; }
    /// The gradient: an array of the same dtype and shape on the same device,
    /// zeroed when created, shared by this array's copies; a view of an array
    /// takes the same view of its gradient. UserError when there is none.
    const Array &grad() const;
    /// This array (sharing its elements) with gradient storage: its own if it
    /// has one, else a new zeroed one. Arrays of native types cannot carry
    /// gradients (UserError naming automatic differentiation).
    Array with_grad() const;
    /// Sets every gradient element to zero (nothing without a gradient).
    void zero_grad() const;

    /// Copies the elements, row-major and packed (strided views included), to
    /// host memory at `dst`; `bytes` must be size() * dtype().size(). Arrays in
    /// device memory must be contiguous; the copy is complete on return.
    void copy_to_host(void *dst, std::size_t bytes) const;
    /// Overwrites the elements (row-major, packed at host memory `src`) through this view's strides.
    void copy_from_host(const void *src, std::size_t bytes);
    /// The elements, row-major, from any device; T as for from_vector.
    template <class T> std::vector<T> to_vector() const {
        static_assert(std::is_trivially_copyable_v<T>, "Array::to_vector: T must be trivially copyable");
        check_host_element(dtype_, host_element<T>(), "to_vector");
        std::vector<T> out(static_cast<std::size_t>(size_));
        copy_to_host(out.data(), out.size() * sizeof(T));
        return out;
    }
    /// A contiguous copy of the elements on `device` (this array's own device too).
    Array to(Device device) const;

    /// A view of the same storage: `shape` with `byte_strides` (one per
    /// dimension, may be negative or 0), element 0 at `byte_offset` bytes from
    /// this array's element 0. Every element must lie within the storage and be
    /// aligned for the dtype.
    Array view(std::vector<std::int64_t> shape, std::vector<std::int64_t> byte_strides,
               std::int64_t byte_offset = 0) const;

    const Type &dtype() const { return dtype_; }
    int ndim() const { return static_cast<int>(shape_.size()); }
    const std::vector<std::int64_t> &shape() const { return shape_; }
    /// Byte strides, one per dimension.
    const std::vector<std::int64_t> &strides() const { return strides_; }
    /// The number of elements.
    std::int64_t size() const { return size_; }
    /// The packed size of the elements: size() * dtype().size().
    std::size_t nbytes() const { return static_cast<std::size_t>(size_) * static_cast<std::size_t>(dtype_.size()); }
    /// The device the elements live on.
    Device device() const { return device_; }
    /// Element 0 (for an empty array, where it would be), as an address in the
    /// device's memory: a host pointer on the CPU, a CUdeviceptr for CUDA.
    void *data() const { return storage_.get() + offset_; }
    /// Contiguous row-major (strides as a new array of this shape has them).
    bool is_contiguous() const;
    /// This array's kernel type: Type::array(dtype(), ndim()).
    Type type() const { return Type::array(dtype_, ndim()); }
    /// The bytes of the storage this array (and its views) share.
    std::size_t storage_bytes() const { return storage_bytes_; }
    /// A shape with no elements behind it: null_array_like's result. A
    /// launch refuses one where the kernel could read it.
    bool is_null() const { return !storage_ && size_ > 0; }
    /// Moved from: no shape (ndim() == 0) and no elements.
    bool is_moved_from() const { return shape_.empty(); }

    /// What a host element type says of itself, for the dtype checks of from_vector and to_vector.
    struct HostElement {
        std::size_t size;
        const char *scalar; // the scalar dtype a C++ scalar type is ("float32"), or nullptr: any dtype of its size
        Type (*type)();     // a host value's kernel type (values.hpp), which the dtype must be; nullptr: none
    };
    template <class T> static HostElement host_element();

private:
    Array() = default;
    static void check_host_element(const Type &dtype, const HostElement &host, const char *what);
    void require_contiguous(const char *what) const;

    Type dtype_;
    std::vector<std::int64_t> shape_;
    std::vector<std::int64_t> strides_;
    std::int64_t size_ = 0;
    std::shared_ptr<std::byte> storage_;
    std::size_t storage_bytes_ = 0;
    std::size_t offset_ = 0; // of element 0 in the storage
    Device device_;
    std::shared_ptr<Array> grad_;

    friend Array null_array_like(const Array &a);
};

/// An array of `a`'s dtype, shape and strides without elements (a null data
/// pointer): what a backward launch passes as the gradient of an array that
/// has none; generated code skips null gradient arrays.
Array null_array_like(const Array &a);

namespace detail {
/// The scalar dtype a C++ scalar type is (nullptr: not a scalar type).
template <class T> constexpr const char *host_scalar_name() {
    if constexpr (std::is_same_v<T, bool>) return "bool";
    else if constexpr (std::is_floating_point_v<T>) return sizeof(T) == 4 ? "float32" : sizeof(T) == 8 ? "float64" : nullptr;
    else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, char>) {
        constexpr const char *s[] = {"int8", "int16", "int32", "int64"};
        constexpr const char *u[] = {"uint8", "uint16", "uint32", "uint64"};
        constexpr int i = sizeof(T) == 1 ? 0 : sizeof(T) == 2 ? 1 : sizeof(T) == 4 ? 2 : 3;
        return std::is_signed_v<T> ? s[i] : u[i];
    } else return nullptr;
}
} // namespace detail

template <class T> Array::HostElement Array::host_element() {
    if constexpr (detail::value_type_of<T>::value) return {sizeof(T), nullptr, &type_of<T>};
    else return {sizeof(T), detail::host_scalar_name<T>(), nullptr};
}

} // namespace weft
