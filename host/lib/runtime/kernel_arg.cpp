#include "weft/runtime/kernel_arg.hpp"

#include "weft/support/error.hpp"

#include <cstring>
#include <string>

namespace weft {
namespace {
template <class T> KernelArg scalar_arg(Scalar s, T v) { return KernelArg::value(Type::scalar(s), &v, sizeof v); }
} // namespace

KernelArg::KernelArg(Array array) : array_(std::move(array)), type_(array_->type()) {}
KernelArg::KernelArg(IndexedArray array) : indexed_(std::move(array)), type_(indexed_->type()) {}

std::vector<std::int64_t> IndexedArray::shape() const {
    std::vector<std::int64_t> out = base.shape();
    for (std::size_t d = 0; d < indices.size() && d < out.size(); ++d)
        if (indices[d]) out[d] = indices[d]->size();
    return out;
}
KernelArg::KernelArg(float v) : KernelArg(scalar_arg(Scalar::Float32, v)) {}
KernelArg::KernelArg(double v) : KernelArg(scalar_arg(Scalar::Float64, v)) {}
KernelArg::KernelArg(int v) : KernelArg(scalar_arg(Scalar::Int32, static_cast<std::int32_t>(v))) {}
KernelArg::KernelArg(std::int64_t v) : KernelArg(scalar_arg(Scalar::Int64, v)) {}
KernelArg::KernelArg(std::uint32_t v) : KernelArg(scalar_arg(Scalar::UInt32, v)) {}
KernelArg::KernelArg(std::uint64_t v) : KernelArg(scalar_arg(Scalar::UInt64, v)) {}
KernelArg::KernelArg(bool v) : KernelArg(scalar_arg(Scalar::Bool, static_cast<std::uint8_t>(v ? 1 : 0))) {}

KernelArg::KernelArg(const StructValue &v) : KernelArg(value(v.type(), v.bytes().data(), v.bytes().size())) {
    referenced_ = v.arrays();
}

KernelArg KernelArg::kept(KernelArg arg, std::shared_ptr<const void> owner) {
    if (owner) arg.owners_.push_back(std::move(owner));
    return arg;
}

KernelArg KernelArg::value(Type type, const void *bytes, std::size_t size) {
    if (type.kind() == Type::Kind::Array)
        throw UserError("KernelArg::value: " + type.name() + " is an array type; pass a weft::Array");
    if (!is_value_type(type)) throw UserError("KernelArg::value: " + type.name() + " is not a kernel argument type");
    if (size != type.size())
        throw UserError("KernelArg::value: " + type.name() + " has " + std::to_string(type.size()) + " bytes, got " +
                        std::to_string(size));
    if (size != 0 && bytes == nullptr) throw UserError("KernelArg::value: bytes is null");
    KernelArg a;
    a.type_ = std::move(type);
    a.bytes_.resize(size);
    if (size != 0) std::memcpy(a.bytes_.data(), bytes, size);
    return a;
}

const IndexedArray &KernelArg::indexed_array() const {
    if (!indexed_) throw UserError("KernelArg::indexed_array: the argument is " + type_.name() + ", not an indexed array");
    return *indexed_;
}

const Array &KernelArg::array() const {
    if (!array_) throw UserError("KernelArg::array: the argument is a value of type " + type_.name());
    return *array_;
}

} // namespace weft
