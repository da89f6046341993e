#include "weft/runtime/array.hpp"

#include "weft/runtime/stream.hpp"

#include "weft/support/error.hpp"

#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <utility>

namespace weft {
namespace {

constexpr std::size_t storage_alignment = 64;

/// A dtype an array can hold; throws UserError otherwise.
void check_dtype(const Type &dtype, const char *what) {
    if (!is_value_type(dtype))
        throw UserError(std::string("Array::") + what + ": " + dtype.name() + " is not an array dtype" +
                        (dtype.kind() == Type::Kind::Struct ? " (its size is 0)" : ""));
    const std::uint64_t a = dtype.alignment();
    if (a == 0 || (a & (a - 1)) != 0 || a > storage_alignment)
        throw UserError(std::string("Array::") + what + ": dtype " + dtype.name() + " has alignment " +
                        std::to_string(a) + " (arrays support powers of two up to " +
                        std::to_string(storage_alignment) + ")");
}

std::int64_t check_shape(const Type &dtype, const std::vector<std::int64_t> &shape, const char *what) {
    return checked_element_count(dtype, shape, std::string("Array::") + what + ": ");
}

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t> &shape, std::int64_t elem) {
    std::vector<std::int64_t> strides(shape.size());
    std::int64_t s = elem;
    for (std::size_t d = shape.size(); d-- > 0;) {
        strides[d] = s;
        s *= shape[d] > 0 ? shape[d] : 1;
    }
    return strides;
}

std::shared_ptr<std::byte> allocate(std::size_t bytes, Device device) {
    if (!device.is_cpu()) {
        DeviceRuntime &runtime = device_runtime(device);
        const int ordinal = device.ordinal;
        void *p = runtime.allocate(ordinal, bytes);
        // A device address: never dereferenced here, released by its runtime.
        return std::shared_ptr<std::byte>(static_cast<std::byte *>(p), [&runtime, ordinal](std::byte *q) {
            if (q) runtime.release(ordinal, q);
        });
    }
    const std::size_t n = bytes == 0 ? storage_alignment : (bytes + storage_alignment - 1) / storage_alignment * storage_alignment;
    void *p = ::operator new(n, std::align_val_t{storage_alignment});
    std::memset(p, 0, n);
    return std::shared_ptr<std::byte>(static_cast<std::byte *>(p),
                                      [](std::byte *q) { ::operator delete(q, std::align_val_t{storage_alignment}); });
}

/// Copies between an array's strided elements and a packed row-major buffer.
void strided_copy(std::byte *elements, const std::vector<std::int64_t> &shape, const std::vector<std::int64_t> &strides,
                  std::int64_t elem, std::byte *packed, bool to_packed) {
    const int nd = static_cast<int>(shape.size());
    // The innermost dimension is one run of bytes when its elements are adjacent.
    const bool inner_run = strides[static_cast<std::size_t>(nd - 1)] == elem;
    const int outer = inner_run ? nd - 1 : nd;
    const std::size_t run = static_cast<std::size_t>(inner_run ? shape[static_cast<std::size_t>(nd - 1)] * elem : elem);
    std::int64_t count = 1;
    for (int d = 0; d < outer; ++d) count *= shape[static_cast<std::size_t>(d)];
    std::int64_t idx[4] = {0, 0, 0, 0};
    for (std::int64_t k = 0; k < count; ++k) {
        std::int64_t off = 0;
        for (int d = 0; d < outer; ++d) off += idx[d] * strides[static_cast<std::size_t>(d)];
        if (to_packed)
            std::memcpy(packed, elements + off, run);
        else
            std::memcpy(elements + off, packed, run);
        packed += run;
        for (int d = outer - 1; d >= 0; --d) {
            if (++idx[d] < shape[static_cast<std::size_t>(d)]) break;
            idx[d] = 0;
        }
    }
}

} // namespace

std::string shape_text(const std::vector<std::int64_t> &shape) {
    std::string out = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + "]";
}

std::int64_t checked_element_count(const Type &dtype, const std::vector<std::int64_t> &shape, const std::string &where) {
    if (shape.empty() || shape.size() > static_cast<std::size_t>(ArrayViewLayout::max_dims))
        throw UserError(where + "an array has 1 to " + std::to_string(ArrayViewLayout::max_dims) +
                        " dimensions, got " + std::to_string(shape.size()));
    std::int64_t count = 1;
    bool overflow = false;
    for (std::size_t d = 0; d < shape.size(); ++d) {
        if (shape[d] < 0)
            throw UserError(where + "dimension " + std::to_string(d) + " of shape " + shape_text(shape) +
                            " is negative");
        if (shape[d] > std::numeric_limits<std::int32_t>::max())
            throw UserError(where + "dimension " + std::to_string(d) + " of shape " + shape_text(shape) +
                            " is more than " + std::to_string(std::numeric_limits<std::int32_t>::max()) +
                            " (array shapes are int32)");
        overflow = overflow || __builtin_mul_overflow(count, shape[d], &count);
    }
    for (std::int64_t s : shape)
        if (s == 0) return 0;
    std::size_t bytes = 0;
    if (overflow || __builtin_mul_overflow(static_cast<std::size_t>(count), static_cast<std::size_t>(dtype.size()), &bytes) ||
        bytes > static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max()))
        throw UserError(where + "shape " + shape_text(shape) + " of " + dtype.name() + " is too large");
    return count;
}


void Array::check_host_element(const Type &dtype, const HostElement &host, const char *what) {
    // float16 and bfloat16 have no C++ type of their own: their raw bits travel as uint16.
    const bool half_bits = dtype.is_scalar() && is_half_precision(dtype.scalar_type()) &&
                           std::string_view(host.scalar ? host.scalar : "") == "uint16";
    if (host.scalar && dtype.name() != host.scalar && !half_bits)
        throw UserError(std::string("Array::") + what + ": the host elements are " + host.scalar + ", the dtype is " +
                        dtype.name() + " (use the dtype's own C++ type)");
    if (host.type)
        if (const Type t = host.type(); t != dtype)
            throw UserError(std::string("Array::") + what + ": the host elements are " + t.name() + ", the dtype is " +
                            dtype.name() + " (use the dtype's own host type, weft/runtime/values.hpp)");
    if (host.size != dtype.size())
        throw UserError(std::string("Array::") + what + ": the host element type has " + std::to_string(host.size) +
                        " bytes, dtype " + dtype.name() + " has " + std::to_string(dtype.size()));
}

Array Array::zeros(Type dtype, std::vector<std::int64_t> shape, Device device, bool requires_grad) {
    check_dtype(dtype, "zeros");
    Array a;
    a.size_ = check_shape(dtype, shape, "zeros");
    a.strides_ = contiguous_strides(shape, static_cast<std::int64_t>(dtype.size()));
    a.shape_ = std::move(shape);
    a.dtype_ = std::move(dtype);
    a.storage_bytes_ = a.nbytes();
    a.storage_ = allocate(a.storage_bytes_, device);
    a.device_ = device;
    if (requires_grad) return a.with_grad();
    return a;
}

Array Array::from_host(Type dtype, std::vector<std::int64_t> shape, const void *data, std::size_t bytes, Device device,
                       bool requires_grad) {
    check_dtype(dtype, "from_host");
    const std::int64_t count = check_shape(dtype, shape, "from_host");
    const std::size_t expected = static_cast<std::size_t>(count) * static_cast<std::size_t>(dtype.size());
    if (bytes != expected)
        throw UserError("Array::from_host: shape " + shape_text(shape) + " of " + dtype.name() + " is " +
                        std::to_string(count) + " elements, " + std::to_string(expected) + " bytes, but " +
                        std::to_string(bytes) + " bytes were given");
    if (bytes != 0 && data == nullptr) throw UserError("Array::from_host: data is null");
    Array a = zeros(std::move(dtype), std::move(shape), device, requires_grad);
    if (bytes != 0) a.copy_from_host(data, bytes);
    return a;
}

Array Array::to(Device device) const {
    Array out = zeros(dtype_, shape_, device);
    copy(out, *this);
    return out;
}

void Array::require_contiguous(const char *what) const {
    if (!is_contiguous())
        throw UserError(std::string("Array::") + what + ": the array on " + device_.name() + " (" + dtype_.name() + " " +
                        shape_text(shape_) + ") is a strided view; copies of device memory need contiguous arrays");
}

bool Array::is_contiguous() const { return strides_ == contiguous_strides(shape_, static_cast<std::int64_t>(dtype_.size())); }

void Array::copy_to_host(void *dst, std::size_t bytes) const {
    if (bytes != nbytes())
        throw UserError("Array::copy_to_host: the array (" + type().name() + ", shape " + shape_text(shape_) +
                        ") has " + std::to_string(nbytes()) + " bytes, the destination " + std::to_string(bytes));
    if (bytes == 0) return;
    if (dst == nullptr) throw UserError("Array::copy_to_host: destination is null");
    if (!device_.is_cpu()) {
        require_contiguous("copy_to_host");
        device_runtime(device_).copy(device_.ordinal, dst, data(), bytes, DeviceRuntime::Copy::DeviceToHost, nullptr);
        return;
    }
    if (is_contiguous()) {
        std::memcpy(dst, data(), bytes);
        return;
    }
    strided_copy(static_cast<std::byte *>(data()), shape_, strides_, static_cast<std::int64_t>(dtype_.size()),
                 static_cast<std::byte *>(dst), true);
}

void Array::copy_from_host(const void *src, std::size_t bytes) {
    if (bytes != nbytes())
        throw UserError("Array::copy_from_host: the array (" + type().name() + ", shape " + shape_text(shape_) +
                        ") has " + std::to_string(nbytes()) + " bytes, the source " + std::to_string(bytes));
    if (bytes == 0) return;
    if (src == nullptr) throw UserError("Array::copy_from_host: source is null");
    if (!device_.is_cpu()) {
        require_contiguous("copy_from_host");
        device_runtime(device_).copy(device_.ordinal, data(), src, bytes, DeviceRuntime::Copy::HostToDevice, nullptr);
        return;
    }
    if (is_contiguous()) {
        std::memcpy(data(), src, bytes);
        return;
    }
    // strided_copy only reads the packed side when copying into the elements.
    strided_copy(static_cast<std::byte *>(data()), shape_, strides_, static_cast<std::int64_t>(dtype_.size()),
                 const_cast<std::byte *>(static_cast<const std::byte *>(src)), false);
}

Array Array::view(std::vector<std::int64_t> shape, std::vector<std::int64_t> byte_strides,
                  std::int64_t byte_offset) const {
    const std::int64_t count = check_shape(dtype_, shape, "view");
    if (byte_strides.size() != shape.size())
        throw UserError("Array::view: shape " + shape_text(shape) + " has " + std::to_string(shape.size()) +
                        " dimensions but " + std::to_string(byte_strides.size()) + " strides were given");
    const std::int64_t elem = static_cast<std::int64_t>(dtype_.size());
    const std::int64_t align = static_cast<std::int64_t>(dtype_.alignment());
    const std::int64_t limit = static_cast<std::int64_t>(storage_bytes_);
    const std::string what = "Array::view: shape " + shape_text(shape) + ", byte strides " + shape_text(byte_strides) +
                             ", byte offset " + std::to_string(byte_offset);
    std::int64_t start = 0;
    if (__builtin_add_overflow(static_cast<std::int64_t>(offset_), byte_offset, &start) || start < 0 || start > limit)
        throw UserError(what + ": element 0 is outside the array's storage of " + std::to_string(limit) + " bytes");
    if (start % align != 0)
        throw UserError(what + ": element 0 is not aligned to " + std::to_string(align) + " bytes for " + dtype_.name());
    for (std::int64_t s : byte_strides)
        if (s % align != 0)
            throw UserError(what + ": stride " + std::to_string(s) + " is not a multiple of " + dtype_.name() +
                            "'s alignment " + std::to_string(align));
    if (count > 0) {
        // The lowest and highest byte any element touches.
        std::int64_t lo = start, hi = start;
        bool overflow = false;
        for (std::size_t d = 0; d < shape.size(); ++d) {
            std::int64_t reach = 0;
            overflow = overflow || __builtin_mul_overflow(shape[d] - 1, byte_strides[d], &reach);
            if (reach < 0)
                overflow = overflow || __builtin_add_overflow(lo, reach, &lo);
            else
                overflow = overflow || __builtin_add_overflow(hi, reach, &hi);
        }
        if (overflow || lo < 0 || __builtin_add_overflow(hi, elem, &hi) || hi > limit)
            throw UserError(what + ": its elements reach outside the array's storage of " + std::to_string(limit) +
                            " bytes");
    }
    Array a = *this;
    // The gradient mirrors the elements' layout when it was made for this
    // storage: then the same view of it is the view's gradient.
    a.grad_.reset();
    if (grad_ && grad_->storage_bytes_ == storage_bytes_ && grad_->offset_ == offset_ && grad_->strides_ == strides_)
        a.grad_ = std::make_shared<Array>(grad_->view(shape, byte_strides, byte_offset));
    a.shape_ = std::move(shape);
    a.strides_ = std::move(byte_strides);
    a.size_ = count;
    a.offset_ = static_cast<std::size_t>(start);
    return a;
}

const Array &Array::grad() const {
    if (!grad_)
        throw UserError("the array (" + dtype_.name() + " " + shape_text(shape_) +
                        ") has no gradient: create it with requires_grad, or call with_grad()");
    return *grad_;
}

Array Array::with_grad() const {
    if (grad_) return *this;
    if (dtype_.kind() == Type::Kind::Native && !dtype_.is_differentiable_native())
        throw UserError("an array of native type " + dtype_.name() +
                        " cannot carry gradients: its plugin does not declare it differentiable, so automatic "
                        "differentiation treats its values as constants");
    // Contiguous and of this array's shape: for a whole array it mirrors the
    // storage (views of the array take views of it); a strided view's
    // gradient is packed, and views of that view get none (see view()).
    Array a = *this;
    a.grad_ = std::make_shared<Array>(zeros(dtype_, shape_, device_));
    return a;
}

void Array::zero_grad() const {
    if (!grad_ || grad_->nbytes() == 0) return;
    const std::vector<std::byte> zero(grad_->nbytes());
    const_cast<Array &>(*grad_).copy_from_host(zero.data(), zero.size());
}

Array::Array(Array &&o) noexcept
    : dtype_(o.dtype_), shape_(std::move(o.shape_)), strides_(std::move(o.strides_)), size_(std::exchange(o.size_, 0)),
      storage_(std::move(o.storage_)), storage_bytes_(std::exchange(o.storage_bytes_, 0)),
      offset_(std::exchange(o.offset_, 0)), device_(o.device_), grad_(std::move(o.grad_)) {
    o.shape_.clear();
    o.strides_.clear();
}

Array &Array::operator=(Array &&o) noexcept {
    if (this == &o) return *this;
    dtype_ = o.dtype_;
    shape_ = std::move(o.shape_);
    strides_ = std::move(o.strides_);
    size_ = std::exchange(o.size_, 0);
    storage_ = std::move(o.storage_);
    storage_bytes_ = std::exchange(o.storage_bytes_, 0);
    offset_ = std::exchange(o.offset_, 0);
    device_ = o.device_;
    grad_ = std::move(o.grad_);
    o.shape_.clear();
    o.strides_.clear();
    return *this;
}

Array null_array_like(const Array &a) {
    Array out;
    out.dtype_ = a.dtype_;
    out.shape_ = a.shape_;
    out.strides_ = a.strides_;
    out.size_ = a.size_;
    out.device_ = a.device_;
    return out;
}

} // namespace weft
