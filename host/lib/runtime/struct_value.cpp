#include "weft/runtime/struct_value.hpp"

#include "weft/runtime/launch.hpp"
#include "weft/support/error.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

namespace weft {

namespace {
std::string field_list(const StructLayout &layout) {
    std::string out;
    for (const StructLayout::Field &f : layout.fields) out += (out.empty() ? "" : ", ") + f.name + ": " + f.type.name();
    return out;
}
} // namespace

StructValue::StructValue(Type type) : type_(std::move(type)) {
    if (type_.kind() != Type::Kind::Struct)
        throw UserError("StructValue: " + type_.name() + " is not a struct type (@wp.struct)");
    bytes_.assign(static_cast<std::size_t>(type_.size()), std::byte{0});
}

std::vector<Array> StructValue::arrays() const {
    std::vector<Array> out;
    out.reserve(arrays_.size());
    for (const auto &[offset, a] : arrays_) out.push_back(a);
    return out;
}

void StructValue::release(std::size_t offset, std::size_t size) {
    arrays_.erase(arrays_.lower_bound(offset), arrays_.lower_bound(offset + size));
}

StructValue::Located StructValue::locate(std::string_view path) const {
    const StructLayout *layout = &type_.layout();
    std::string walked = layout->name;
    std::size_t offset = 0;
    while (true) {
        const std::size_t dot = path.find('.');
        const std::string_view name = path.substr(0, dot);
        const StructLayout::Field *f = layout->field(name);
        if (!f)
            throw UserError("struct " + walked + " has no field '" + std::string(name) + "'; its fields: " +
                            field_list(*layout));
        offset += static_cast<std::size_t>(f->offset);
        if (dot == std::string_view::npos) return {f, offset};
        if (f->type.kind() != Type::Kind::Struct)
            throw UserError("struct " + walked + ": field '" + f->name + "' is " + f->type.name() +
                            ", not a struct, so it has no field '" + std::string(path.substr(dot + 1)) + "'");
        walked += "." + f->name;
        layout = &f->type.layout();
        path = path.substr(dot + 1);
    }
}

StructValue &StructValue::set_bytes(std::string_view path, const Type &type, const void *bytes, std::size_t size) {
    const Located at = locate(path);
    if (at.field->type != type)
        throw UserError("struct " + type_.name() + ": field '" + std::string(path) + "' is " + at.field->type.name() +
                        ", got a value of type " + type.name() + " (no conversion: pass the field's type)");
    if (size != at.field->type.size())
        throw UserError("struct " + type_.name() + ": field '" + std::string(path) + "' (" + at.field->type.name() + ") has " +
                        std::to_string(at.field->type.size()) + " bytes, got " + std::to_string(size));
    if (at.field->type.kind() == Type::Kind::Array)
        throw UserError("struct " + type_.name() + ": field '" + std::string(path) + "' is an array: set it from a weft::Array");
    release(at.offset, size); // a nested struct's arrays, overwritten
    if (size != 0) std::memcpy(bytes_.data() + at.offset, bytes, size);
    return *this;
}

StructValue &StructValue::set(std::string_view path, const StructValue &v) {
    const Located at = locate(path);
    if (at.field->type != v.type())
        throw UserError("struct " + type_.name() + ": field '" + std::string(path) + "' is " + at.field->type.name() +
                        ", got a value of struct " + v.type().name());
    std::memcpy(bytes_.data() + at.offset, v.bytes().data(), v.bytes().size());
    release(at.offset, v.bytes().size());
    for (const auto &[offset, a] : v.arrays_) arrays_.insert_or_assign(at.offset + offset, a);
    return *this;
}

StructValue &StructValue::set(std::string_view path, const Array &a) {
    const Located at = locate(path);
    const Type &want = at.field->type;
    if (want.kind() != Type::Kind::Array || want.is_indexed_array() || a.type() != want)
        throw UserError("struct " + type_.name() + ": field '" + std::string(path) + "' is " + want.name() +
                        ", got an array of type " + a.type().name());
    write_array_view(bytes_.data() + at.offset, reinterpret_cast<std::uintptr_t>(a.data()), a.shape(), a.strides());
    arrays_.insert_or_assign(at.offset, a); // the array it held before is let go
    return *this;
}

void StructValue::get_bytes(std::string_view path, const Type &type, void *out, std::size_t size) const {
    const Located at = locate(path);
    if (at.field->type != type || size != at.field->type.size())
        throw UserError("struct " + type_.name() + ": field '" + std::string(path) + "' is " + at.field->type.name() +
                        ", read as " + type.name());
    if (size != 0) std::memcpy(out, bytes_.data() + at.offset, size);
}

StructValue StructValue::get_struct(std::string_view path) const {
    const Located at = locate(path);
    if (at.field->type.kind() != Type::Kind::Struct)
        throw UserError("struct " + type_.name() + ": field '" + std::string(path) + "' is " + at.field->type.name() +
                        ", not a struct");
    StructValue out(at.field->type);
    std::memcpy(out.bytes_.data(), bytes_.data() + at.offset, out.bytes_.size());
    for (auto it = arrays_.lower_bound(at.offset); it != arrays_.end() && it->first < at.offset + out.bytes_.size(); ++it)
        out.arrays_.emplace(it->first - at.offset, it->second);
    return out;
}

} // namespace weft
