// Sizes, alignments and offsets of kernel types: computed here once, used by
// codegen, host-side argument packing and the generated static_asserts alike.
#include "weft/registry/types.hpp"

#include "weft/support/error.hpp"

namespace weft {

namespace {
std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return a ? (v + a - 1) / a * a : v; }

/// C struct rules over a sequence of member types: offsets, then size and alignment.
struct CLayout {
    std::vector<std::uint64_t> offsets;
    std::uint64_t size = 0;
    std::uint64_t alignment = 1;
};

CLayout c_layout(const std::vector<const Type *> &members) {
    CLayout out;
    std::uint64_t at = 0;
    for (const Type *t : members) {
        const std::uint64_t a = t->alignment() ? t->alignment() : 1;
        at = align_up(at, a);
        out.offsets.push_back(at);
        at += t->size();
        if (a > out.alignment) out.alignment = a;
    }
    out.size = align_up(at, out.alignment);
    return out;
}
} // namespace

std::shared_ptr<const StructLayout> StructLayout::make(std::string name, std::vector<Field> fields) {
    auto layout = std::make_shared<StructLayout>();
    layout->name = std::move(name);
    std::vector<const Type *> members;
    for (const Field &f : fields) members.push_back(&f.type);
    const CLayout c = c_layout(members);
    for (std::size_t i = 0; i < fields.size(); ++i) fields[i].offset = c.offsets[i];
    layout->fields = std::move(fields);
    // A struct without fields is one byte, as in C++ (Warp launches kernels that take one).
    layout->size = layout->fields.empty() ? 1 : c.size;
    layout->alignment = layout->fields.empty() ? 1 : c.alignment;
    return layout;
}

std::vector<std::uint64_t> tuple_offsets(const Type &tuple) {
    std::vector<const Type *> members;
    for (const Type &e : tuple.elements()) members.push_back(&e);
    return c_layout(members).offsets;
}

std::uint64_t Type::size() const {
    switch (kind_) {
    case Kind::Native: return native_info().size;
    case Kind::Scalar:
    case Kind::Vector:
    case Kind::Matrix:
    case Kind::Quaternion:
    case Kind::Transform:
        return scalar_size(scalar_) * static_cast<std::uint64_t>(rows_) * static_cast<std::uint64_t>(cols_);
    case Kind::Array: return indexed_ ? IndexedArrayLayout::size : ArrayViewLayout::size;
    case Kind::Struct: return layout().size;
    case Kind::Tuple: {
        std::vector<const Type *> members;
        for (const Type &e : elements()) members.push_back(&e);
        return c_layout(members).size;
    }
    case Kind::Void:
    case Kind::String: return 0;
    case Kind::Tile: return element().size() * static_cast<std::uint64_t>(tile_count());
    }
    throw InternalError("Type::size: unknown kind");
}

std::uint64_t Type::alignment() const {
    switch (kind_) {
    case Kind::Native: return native_info().alignment;
    case Kind::Scalar:
    case Kind::Vector:
    case Kind::Matrix:
    case Kind::Quaternion:
    case Kind::Transform: return scalar_size(scalar_);
    case Kind::Array: return indexed_ ? IndexedArrayLayout::alignment : ArrayViewLayout::alignment;
    case Kind::Struct: return layout().alignment;
    case Kind::Tuple: {
        std::vector<const Type *> members;
        for (const Type &e : elements()) members.push_back(&e);
        return c_layout(members).alignment;
    }
    case Kind::Void:
    case Kind::String: return 0;
    case Kind::Tile: return element().alignment();
    }
    throw InternalError("Type::alignment: unknown kind");
}

} // namespace weft
