// weft::StructValue: a value of a @wp.struct type built on the host field by
// field, each field set by name and checked against its kernel type, so an
// application never writes a struct's bytes by hand (or gets its padding
// wrong). Kernel::make_struct(param) gives one for a kernel parameter's type.
#pragma once

#include "weft/registry/types.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/values.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

class StructValue {
public:
    /// A value of struct type `type` with every byte zero (every field 0,
    /// arrays empty). UserError when `type` is not a struct type.
    explicit StructValue(Type type);

    const Type &type() const { return type_; }
    /// The value's bytes in the kernel's layout (padding zero).
    const std::vector<std::byte> &bytes() const { return bytes_; }
    /// Arrays the value refers to now (its array fields, nested structs' too;
    /// an array a field no longer holds is let go): a launch keeps them alive
    /// and checks they are on the kernel's device.
    std::vector<Array> arrays() const;

    /// Sets field `path` ("dt", or "inner.x" through nested struct fields) to
    /// `v`, whose kernel type (type_of<T>) must be the field's exactly: no
    /// conversion, as for launch arguments (pass 0.5f for a float32 field).
    /// UserError naming the struct, the field and both types otherwise, or
    /// listing the fields when there is no such field.
    template <class T> StructValue &set(std::string_view path, const T &v) {
        static_assert(is_kernel_value_v<T>, "StructValue::set: T must be a kernel value type (a scalar, "
                                            "weft::vec/mat/quat/transform, StructValue or Array)");
        return set_bytes(path, type_of<T>(), &v, sizeof v);
    }
    /// A nested struct field, from a value of its type.
    StructValue &set(std::string_view path, const StructValue &v);
    /// An array field: the array's dtype and ndim must be the field's.
    StructValue &set(std::string_view path, const Array &a);
    /// A field of any value type (a native type's, say) from its bytes: `type`
    /// must be the field's type and `size` its size.
    StructValue &set_bytes(std::string_view path, const Type &type, const void *bytes, std::size_t size);

    /// The field's value; T's kernel type must be the field's.
    template <class T> T get(std::string_view path) const {
        static_assert(is_kernel_value_v<T>, "StructValue::get: T must be a kernel value type");
        T out{};
        get_bytes(path, type_of<T>(), &out, sizeof out);
        return out;
    }
    /// A nested struct field's value (arrays it refers to included).
    StructValue get_struct(std::string_view path) const;
    void get_bytes(std::string_view path, const Type &type, void *out, std::size_t size) const;

private:
    struct Located {
        const StructLayout::Field *field;
        std::size_t offset; // from the start of this value
    };
    Located locate(std::string_view path) const;
    /// Forgets the arrays held in bytes [offset, offset + size).
    void release(std::size_t offset, std::size_t size);

    Type type_;
    std::vector<std::byte> bytes_;
    std::map<std::size_t, Array> arrays_; // by the byte offset of the array field that holds each
};

} // namespace weft
