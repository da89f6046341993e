#include "weft/runtime/launch.hpp"

#include "weft/rt/array.h"
#include "weft/rt/debug.h"
#include "weft/support/error.hpp"

#include <array>
#include <cstddef>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <string.h> // strnlen (POSIX)
#include <optional>
#include <limits>
#include <new>
#include <string>

namespace weft {

// The host's layouts are the runtime headers' layouts.
static_assert(sizeof(array_t<float32>) == ArrayViewLayout::size);
static_assert(alignof(array_t<float32>) == ArrayViewLayout::alignment);
static_assert(offsetof(array_t<float32>, data) == ArrayViewLayout::data_offset);
static_assert(offsetof(array_t<float32>, shape) == ArrayViewLayout::shape_offset);
static_assert(offsetof(array_t<float32>, strides) == ArrayViewLayout::strides_offset);
static_assert(offsetof(array_t<float32>, ndim) == ArrayViewLayout::ndim_offset);
static_assert(sizeof(indexedarray_t<float32>) == IndexedArrayLayout::size);
static_assert(alignof(indexedarray_t<float32>) == IndexedArrayLayout::alignment);
static_assert(offsetof(indexedarray_t<float32>, arr) == IndexedArrayLayout::arr_offset);
static_assert(offsetof(indexedarray_t<float32>, indices) == IndexedArrayLayout::indices_offset);
static_assert(offsetof(indexedarray_t<float32>, shape) == IndexedArrayLayout::shape_offset);
static_assert(offsetof(launch_t, ndim) == 0 && offsetof(launch_t, shape) == 4 && offsetof(launch_t, size) == 24);
static_assert(sizeof(launch_t) == 32);

/// The packed bytes: one allocation aligned for every parameter.
struct PackedArgs::Buffer {
    std::byte *bytes = nullptr;
    std::size_t alignment = 0;
    Buffer(std::size_t size, std::size_t align) : alignment(align) {
        bytes = static_cast<std::byte *>(::operator new(size == 0 ? 1 : size, std::align_val_t{align}));
        std::memset(bytes, 0, size == 0 ? 1 : size);
    }
    ~Buffer() { ::operator delete(bytes, std::align_val_t{alignment}); }
    Buffer(const Buffer &) = delete;
    Buffer &operator=(const Buffer &) = delete;
};

std::string parameter_prefix(std::string_view kernel, const KernelParam &p) {
    return "kernel '" + std::string(kernel) + "', parameter '" + p.name + "': ";
}

PackedArgs::PackedArgs(PackedArgs &&) noexcept = default;
PackedArgs &PackedArgs::operator=(PackedArgs &&) noexcept = default;
PackedArgs::~PackedArgs() = default;

namespace {

/// The 64-byte weft::array_t view of `a` (weft::ArrayViewLayout).
void write_view(std::byte *out, const Array &a) {
    write_array_view(out, reinterpret_cast<std::uintptr_t>(a.data()), a.shape(), a.strides());
}

/// The 112-byte weft::indexedarray_t of `a` (weft::IndexedArrayLayout).
void write_indexed_view(std::byte *out, const IndexedArray &a) {
    write_view(out + IndexedArrayLayout::arr_offset, a.base);
    std::uint64_t indices[ArrayViewLayout::max_dims] = {0, 0, 0, 0};
    std::int32_t shape[ArrayViewLayout::max_dims] = {0, 0, 0, 0};
    const std::vector<std::int64_t> indexed = a.shape();
    for (std::size_t d = 0; d < indexed.size() && d < ArrayViewLayout::max_dims; ++d) {
        if (d < a.indices.size() && a.indices[d]) indices[d] = reinterpret_cast<std::uintptr_t>(a.indices[d]->data());
        shape[d] = static_cast<std::int32_t>(indexed[d]);
    }
    std::memcpy(out + IndexedArrayLayout::indices_offset, indices, sizeof indices);
    std::memcpy(out + IndexedArrayLayout::shape_offset, shape, sizeof shape);
}

/// A kernel's array shapes are int32 (array_t, indexedarray_t): the dimension
/// of `shape` that does not fit, if any. An Array keeps its dimensions within
/// int32 when it is made (checked_element_count), and an index array is 1-D,
/// so only a layout written from raw shapes can fail this.
std::optional<std::size_t> dimension_over_int32(const std::vector<std::int64_t> &shape) {
    for (std::size_t d = 0; d < shape.size(); ++d)
        if (shape[d] < 0 || shape[d] > std::numeric_limits<std::int32_t>::max()) return d;
    return std::nullopt;
}

/// What a kernel reads through an indexed array's index arrays: Warp's rules
/// (contiguous 1-D int32, one per base dimension at most), and the launch's device.
void check_index_arrays(std::string_view kernel, const KernelParam &p, const IndexedArray &a, Device device) {
    const std::string where = parameter_prefix(kernel, p);
    if (a.indices.size() > static_cast<std::size_t>(a.base.ndim()))
        throw LaunchError(where + "the indexed array has " + std::to_string(a.indices.size()) +
                          " index arrays for a base of " + std::to_string(a.base.ndim()) +
                          " dimension(s): give one per dimension at most (std::nullopt: not indexed)");
    for (std::size_t d = 0; d < a.indices.size(); ++d) {
        if (!a.indices[d]) continue;
        const Array &x = *a.indices[d];
        const std::string which = where + "the index array of dimension " + std::to_string(d);
        if (x.is_null() || x.is_moved_from())
            throw LaunchError(which + (x.is_null() ? " is a null array (null_array_like)" : " was moved from") +
                              ": no elements for the kernel to read");
        if (x.dtype() != Type::scalar(Scalar::Int32))
            throw LaunchError(which + " has dtype " + x.dtype().name() +
                              "; index arrays are int32 (convert it, e.g. Array::from_vector(Type::scalar(Scalar::Int32), ...))");
        if (x.ndim() != 1) throw LaunchError(which + " has " + std::to_string(x.ndim()) + " dimensions; index arrays are 1-D");
        if (!x.is_contiguous()) throw LaunchError(which + " is a strided view; index arrays are contiguous (copy it)");
        if (x.device() != device)
            throw LaunchError(which + " is on " + x.device().name() + ", the kernel runs on " + device.name() +
                              " (copy it with Array::to)");
    }
}

} // namespace

void write_array_view(std::byte *out, std::uint64_t address, const std::vector<std::int64_t> &shape,
                      const std::vector<std::int64_t> &byte_strides) {
    if (shape.empty() || shape.size() > ArrayViewLayout::max_dims || byte_strides.size() != shape.size())
        throw UserError("write_array_view: shape " + shape_text(shape) + " with " + std::to_string(byte_strides.size()) +
                        " strides: an array view has 1 to 4 dimensions, one stride each");
    if (const auto d = dimension_over_int32(shape))
        throw UserError("write_array_view: dimension " + std::to_string(*d) + " of shape " + shape_text(shape) +
                        " does not fit int32 (kernel array shapes are int32)");
    std::int32_t dims[ArrayViewLayout::max_dims] = {0, 0, 0, 0};
    std::int64_t strides[ArrayViewLayout::max_dims] = {0, 0, 0, 0};
    for (std::size_t d = 0; d < shape.size() && d < ArrayViewLayout::max_dims; ++d) {
        dims[d] = static_cast<std::int32_t>(shape[d]);
        strides[d] = byte_strides[d];
    }
    const auto ndim = static_cast<std::int32_t>(shape.size());
    std::memcpy(out + ArrayViewLayout::data_offset, &address, sizeof address);
    std::memcpy(out + ArrayViewLayout::shape_offset, dims, sizeof dims);
    std::memcpy(out + ArrayViewLayout::strides_offset, strides, sizeof strides);
    std::memcpy(out + ArrayViewLayout::ndim_offset, &ndim, sizeof ndim);
}

bool innermost_dense(const void *view, std::uint64_t element_size) {
    const auto *bytes = static_cast<const std::byte *>(view);
    std::int32_t ndim;
    std::memcpy(&ndim, bytes + ArrayViewLayout::ndim_offset, sizeof ndim);
    if (ndim == 0) return true;
    // As the header's switch: any other count tests the fourth stride.
    const int last = ndim > 0 && ndim < ArrayViewLayout::max_dims ? ndim - 1 : ArrayViewLayout::max_dims - 1;
    std::int64_t stride;
    std::memcpy(&stride, bytes + ArrayViewLayout::strides_offset + sizeof stride * static_cast<std::size_t>(last),
                sizeof stride);
    return stride == static_cast<std::int64_t>(element_size);
}

namespace {

bool is_signed(Scalar s) { return s == Scalar::Int8 || s == Scalar::Int16 || s == Scalar::Int32 || s == Scalar::Int64; }

/// An integer argument as the integer parameter type `to`, when its value fits;
/// the bytes in `out`. False when it does not fit.
bool convert_integer(const KernelArg &a, Scalar to, std::vector<std::byte> &out) {
    const Scalar from = a.type().scalar_type();
    const std::size_t n = a.bytes().size();
    std::int64_t sv = 0;
    std::uint64_t uv = 0;
    bool negative = false;
    if (is_signed(from)) {
        switch (n) {
        case 1: { std::int8_t v; std::memcpy(&v, a.bytes().data(), 1); sv = v; break; }
        case 2: { std::int16_t v; std::memcpy(&v, a.bytes().data(), 2); sv = v; break; }
        case 4: { std::int32_t v; std::memcpy(&v, a.bytes().data(), 4); sv = v; break; }
        default: std::memcpy(&sv, a.bytes().data(), 8);
        }
        negative = sv < 0;
        uv = static_cast<std::uint64_t>(sv);
    } else {
        std::memcpy(&uv, a.bytes().data(), n); // little-endian: the low bytes
    }
    const std::size_t size = static_cast<std::size_t>(scalar_size(to));
    const unsigned bits = static_cast<unsigned>(size * 8);
    if (is_signed(to)) {
        const std::int64_t max = bits == 64 ? std::numeric_limits<std::int64_t>::max() : (std::int64_t{1} << (bits - 1)) - 1;
        const std::int64_t min = -max - 1;
        if (negative ? sv < min : uv > static_cast<std::uint64_t>(max)) return false;
    } else {
        if (negative) return false;
        if (bits < 64 && uv > (std::uint64_t{1} << bits) - 1) return false;
    }
    out.resize(size);
    std::memcpy(out.data(), &uv, size); // two's complement: the low bytes are the value
    return true;
}

} // namespace

namespace {
/// Whether parameter i is a backward kernel's gradient of parameter i - n/2
/// (generated backward kernels take (x..., adj_x...)): there a null array
/// means "no gradient", which the generated code skips.
bool gradient_param(const std::vector<KernelParam> &params, std::size_t i) {
    const std::size_t n = params.size();
    if (n % 2 != 0 || i < n / 2) return false;
    const KernelParam &forward = params[i - n / 2];
    return params[i].name == "adj_" + forward.name && params[i].type == forward.type;
}
} // namespace

PackedArgs pack_args(std::string_view kernel, const std::vector<KernelParam> &params,
                     const std::vector<KernelArg> &args, Device device) {
    if (args.size() != params.size()) {
        std::string names;
        for (std::size_t i = 0; i < params.size(); ++i) names += (i ? ", " : "") + params[i].name;
        throw UserError("kernel '" + std::string(kernel) + "' takes " + std::to_string(params.size()) +
                        (params.size() == 1 ? " argument (" : " arguments (") + names + "), got " +
                        std::to_string(args.size()));
    }
    // Check every argument and lay the parameters out, each aligned for its type.
    std::vector<std::size_t> offsets(params.size());
    std::vector<std::pair<std::size_t, std::vector<std::byte>>> converted; // (parameter, bytes): rare, so no per-launch allocation
    std::size_t total = 0, max_align = 64;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const KernelParam &p = params[i];
        const KernelArg &a = args[i];
        if (p.type.kind() == Type::Kind::Array) {
            if (a.is_array() && a.array().is_moved_from())
                throw LaunchError(parameter_prefix(kernel, p) + "the array was moved from (it has no shape and no elements)");
            if ((!a.is_array() && !a.is_indexed_array()) || a.type() != p.type)
                throw UserError(parameter_prefix(kernel, p) + "expected " + p.type.name() + ", got " + a.type().name() +
                                (p.type.is_indexed_array() && a.is_array() && a.array().type() == Type::array(p.type.element(), p.type.ndim())
                                     ? " (pass weft::IndexedArray{array, {index arrays}})"
                                     : ""));
            const Array &storage = a.is_array() ? a.array() : a.indexed_array().base;
            // Refused here, on every device and in every mode: generated code
            // reads an array's elements without asking whether it has any.
            if (storage.is_null() && !gradient_param(params, i))
                throw LaunchError(parameter_prefix(kernel, p) + "the array is a null array (null_array_like): shape " +
                                  shape_text(storage.shape()) + " and no elements for the kernel to read");
            if (storage.device() != device)
                throw UserError(parameter_prefix(kernel, p) + "the array is on " + storage.device().name() +
                                ", the kernel runs on " + device.name() + " (copy it with Array::to)");
            if (a.is_indexed_array()) check_index_arrays(kernel, p, a.indexed_array(), device);
            const auto narrows = [&](const std::vector<std::int64_t> &shape, const char *what) {
                if (const auto d = dimension_over_int32(shape))
                    throw LaunchError(parameter_prefix(kernel, p) + "dimension " + std::to_string(*d) + " of the " + what +
                                      " shape " + shape_text(shape) + " does not fit int32 (kernel array shapes are int32)");
            };
            if (a.is_array()) narrows(a.array().shape(), "array's");
            else narrows(a.indexed_array().shape(), "indexed array's");
        } else {
            if (!is_value_type(p.type))
                throw UserError(parameter_prefix(kernel, p) + "type " + p.type.name() + " cannot be a kernel parameter");
            if (a.is_array() || a.is_indexed_array())
                throw UserError(parameter_prefix(kernel, p) + "expected " + p.type.name() + ", got " + a.type().name());
            for (const Array &field : a.referenced_arrays()) {
                if (field.is_null() || field.is_moved_from())
                    throw LaunchError(parameter_prefix(kernel, p) + "an array the struct refers to " +
                                      (field.is_null() ? "is a null array (null_array_like)" : "was moved from") +
                                      ": no elements for the kernel to read");
                if (field.device() != device)
                    throw UserError(parameter_prefix(kernel, p) + "an array the struct refers to is on " +
                                    field.device().name() + ", the kernel runs on " + device.name() +
                                    " (copy it with Array::to)");
            }
            if (a.type() != p.type) {
                const bool integers = a.type().is_integer() && p.type.is_integer();
                std::vector<std::byte> bytes;
                if (!integers || !convert_integer(a, p.type.scalar_type(), bytes))
                    throw UserError(parameter_prefix(kernel, p) + "expected " + p.type.name() + ", got " +
                                    a.type().name() +
                                    (integers ? " whose value does not fit (no conversion loses a value)"
                                              : " (values convert only between integer types, when they fit)"));
                converted.emplace_back(i, std::move(bytes));
            }
        }
        const std::size_t align = static_cast<std::size_t>(p.type.alignment());
        if (align == 0 || (align & (align - 1)) != 0)
            throw UserError(parameter_prefix(kernel, p) + "type " + p.type.name() + " has alignment " + std::to_string(align) +
                            ", not a power of two");
        if (align > max_align) max_align = align;
        offsets[i] = (total + align - 1) / align * align;
        total = offsets[i] + static_cast<std::size_t>(p.type.size());
    }

    PackedArgs packed;
    packed.buffer_ = std::make_unique<PackedArgs::Buffer>(total, max_align);
    packed.pointers_.resize(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
        std::byte *at = packed.buffer_->bytes + offsets[i];
        packed.pointers_[i] = at;
        const KernelArg &a = args[i];
        if (a.is_array()) {
            write_view(at, a.array());
            packed.arrays_.push_back(a.array());
        } else if (a.is_indexed_array()) {
            const IndexedArray &x = a.indexed_array();
            write_indexed_view(at, x);
            packed.arrays_.push_back(x.base);
            for (const std::optional<Array> &index : x.indices)
                if (index) packed.arrays_.push_back(*index);
        } else {
            const std::vector<std::byte> *bytes = &a.bytes();
            for (const auto &[index, value] : converted)
                if (index == i) bytes = &value;
            std::memcpy(at, bytes->data(), bytes->size());
            packed.arrays_.insert(packed.arrays_.end(), a.referenced_arrays().begin(), a.referenced_arrays().end());
        }
        packed.owners_.insert(packed.owners_.end(), a.owners().begin(), a.owners().end());
    }
    return packed;
}

static_assert(FailureLog::entries == WEFT_RT_FAILURE_LOG && FailureLog::message_bytes == WEFT_RT_FAILURE_MESSAGE,
              "FailureLog is the runtime headers' weft_failure_log");

void throw_failed_checks(const std::string &who, int failed, int bounds, const FailureLog *log, const Logger &logger) {
    const int kept = log ? std::min(bounds, FailureLog::entries) : 0;
    std::string first;
    for (int i = 0; i < kept; ++i) {
        const char *m = log->messages[i];
        const std::string message(m, strnlen(m, FailureLog::message_bytes));
        if (message.empty()) continue; // a failure still writing its message when the launch ended
        if (first.empty()) first = message;
        logger.log(LogLevel::Error, "kernel", message);
    }
    if (bounds > kept && kept > 0)
        logger.log(LogLevel::Error, "kernel",
                   "... and " + std::to_string(bounds - kept) + " more failure" + (bounds - kept == 1 ? "" : "s") +
                       " in this launch (the first " + std::to_string(kept) + " are above)");
    const std::string checks = std::to_string(failed) + (failed == 1 ? " check" : " checks") + " failed";
    if (!first.empty())
        throw LaunchError(who + ": " + first + " (" + checks +
                          (bounds > 1 ? "; the log gives the first " + std::to_string(kept) : "") + ")");
    throw LaunchError(who + ": " + std::to_string(failed) + " expect_* check" + (failed == 1 ? "" : "s") +
                      " failed (the messages above give kernel, line and values)");
}

void check_launchable(std::string_view kernel, bool external, int tid_dims, const std::vector<std::int64_t> &dim) {
    const std::string k(kernel);
    if (external)
        throw LaunchError("kernel '" + k + "' uses entry_point_abi='external_constant_params' and cannot be launched by weft");
    if (tid_dims > 1 && dim.size() != static_cast<std::size_t>(tid_dims))
        throw LaunchError("kernel '" + k + "' unpacks tid() into " + std::to_string(tid_dims) + " values; launch it with a " +
                          std::to_string(tid_dims) + "-D dimension, not " + std::to_string(dim.size()) + "-D");
}

void fill_launch_grid(launch_t &grid, const std::vector<std::int64_t> &dim, const std::string &where) {
    if (dim.empty() || dim.size() > static_cast<std::size_t>(ArrayViewLayout::max_dims))
        throw UserError(where + "a launch has 1 to 4 dimensions, got " + std::to_string(dim.size()));
    grid = launch_t{};
    grid.ndim = static_cast<int32>(dim.size());
    bool empty = false;
    for (std::size_t d = 0; d < dim.size(); ++d) {
        if (dim[d] < 0 || dim[d] > std::numeric_limits<std::int32_t>::max())
            throw UserError(where + "dimension " + std::to_string(d) + " is " + std::to_string(dim[d]) +
                            "; launch dimensions are 0 to " + std::to_string(std::numeric_limits<std::int32_t>::max()));
        grid.shape[d] = static_cast<int32>(dim[d]);
        empty = empty || dim[d] == 0;
    }
    std::int64_t size = 1;
    if (empty)
        size = 0;
    else
        for (std::int64_t n : dim)
            if (__builtin_mul_overflow(size, n, &size)) throw UserError(where + "the launch's thread count overflows int64");
    grid.size = size;
}

void launch_cpu(CpuEntry entry, const std::vector<std::int64_t> &dim, const PackedArgs &args, ThreadPool &pool) {
    launch_cpu(entry, dim, args, pool, CpuLaunchPlan{});
}

namespace {

/// Below this many threads of a grid, a kernel that loops still runs inline.
constexpr std::int64_t looping_inline_below = 64;

/// A gradient array a launch keeps in private copies: its view, and where its
/// elements are (dense, row-major), as `scalars` floats or doubles.
struct SharedGradient {
    std::size_t param;
    const std::byte *view;
    void *data;
    std::uint64_t scalars;
    bool float64;
};

/// The gradient array at `at` if it is dense and row-major with elements of
/// g.element_size bytes (or has no data); nullopt for any other layout.
std::optional<SharedGradient> dense_gradient(const CpuLaunchPlan::PrivateGradient &g, const void *at) {
    const auto *view = static_cast<const std::byte *>(at);
    void *data = nullptr;
    std::int32_t ndim = 0;
    std::memcpy(&data, view + ArrayViewLayout::data_offset, sizeof data);
    std::memcpy(&ndim, view + ArrayViewLayout::ndim_offset, sizeof ndim);
    if (!data) return SharedGradient{g.param, view, nullptr, 0, g.float64}; // no gradient: its layout does not matter
    if (ndim < 1 || ndim > ArrayViewLayout::max_dims) return std::nullopt;
    std::int32_t shape[ArrayViewLayout::max_dims];
    std::int64_t strides[ArrayViewLayout::max_dims];
    std::memcpy(shape, view + ArrayViewLayout::shape_offset, sizeof shape);
    std::memcpy(strides, view + ArrayViewLayout::strides_offset, sizeof strides);
    const std::uint64_t scalar = g.float64 ? 8 : 4;
    const std::int64_t element = strides[ndim - 1];
    // Dense: elements exactly their size apart (a stepped view's gaps must not be added to).
    if (element <= 0 || static_cast<std::uint64_t>(element) != g.element_size || g.element_size % scalar != 0)
        return std::nullopt;
    std::int64_t expect = element;
    for (int d = ndim - 1; d >= 0; --d) {
        if (shape[d] < 0 || strides[d] != expect) return std::nullopt;
        if (__builtin_mul_overflow(expect, static_cast<std::int64_t>(shape[d]), &expect)) return std::nullopt;
    }
    const std::uint64_t bytes = static_cast<std::uint64_t>(expect);
    if (reinterpret_cast<std::uintptr_t>(data) % scalar != 0) return std::nullopt;
    return SharedGradient{g.param, view, data, bytes / scalar, g.float64};
}

struct FreeDeleter {
    void operator()(void *p) const { std::free(p); }
};

} // namespace

void launch_cpu(CpuEntry entry, const std::vector<std::int64_t> &dim, const PackedArgs &args, ThreadPool &pool,
                const CpuLaunchPlan &plan) {
    if (entry == nullptr) throw UserError("launch_cpu: the entry point is null");
    launch_t launch{};
    fill_launch_grid(launch, dim, "launch_cpu: ");
    launch.block_dim = plan.block_dim;
    const std::int64_t size = launch.size;
    if (size == 0) return;
    void *const *ptrs = args.pointers();
    const launch_t *l = &launch;
    const std::int64_t inline_below =
        plan.loops ? std::min(pool.inline_threshold(), looping_inline_below) : pool.inline_threshold();
    const auto whole_grid = [&] {
        pool.parallel_for(size, inline_below, [entry, l, ptrs](std::int64_t begin, std::int64_t end) {
            entry(l, ptrs, static_cast<long long>(begin), static_cast<long long>(end));
        });
    };
    // Warp's deterministic mode: one thread, index order, plain adds into the gradients.
    if (plan.serial) return entry(l, ptrs, 0, static_cast<long long>(size));
    const bool parallel = pool.threads() > 1 && size >= inline_below && size > 1;
    // On one thread the gradients take plain adds directly (as Warp's serial CPU launch does).
    if (plan.private_gradients.empty() || !parallel) return whole_grid();
    std::vector<SharedGradient> shared;
    std::uint64_t bytes = 0;
    bool serial = false;
    for (const CpuLaunchPlan::PrivateGradient &g : plan.private_gradients) {
        if (g.param >= args.size()) throw InternalError("launch_cpu: a private gradient names no parameter");
        std::optional<SharedGradient> s = dense_gradient(g, ptrs[g.param]);
        if (!s) {
            serial = true; // a strided gradient: no private copy of the same shape
            break;
        }
        if (!s->data || s->scalars == 0) continue; // no gradient wanted
        bytes += s->scalars * (s->float64 ? 8 : 4);
        shared.push_back(*s);
    }
    // Ranges: the pool's threads, fewer where their copies would pass the budget.
    std::int64_t ranges = serial ? 1 : std::min<std::int64_t>(pool.threads(), size);
    if (bytes > 0) ranges = std::min<std::int64_t>(ranges, static_cast<std::int64_t>(private_gradient_budget / bytes));
    if (ranges <= 1) return entry(l, ptrs, 0, static_cast<long long>(size));
    if (shared.empty()) return whole_grid(); // no gradient wanted
    const std::size_t count = static_cast<std::size_t>(ranges);
    // Per range: its argument pointers, its copies' views and their storage.
    std::vector<std::vector<void *>> range_ptrs(count, std::vector<void *>(ptrs, ptrs + args.size()));
    std::vector<std::vector<std::array<std::byte, ArrayViewLayout::size>>> views(
        count, std::vector<std::array<std::byte, ArrayViewLayout::size>>(shared.size()));
    std::vector<std::unique_ptr<void, FreeDeleter>> copies;
    copies.reserve(count * shared.size());
    for (std::size_t r = 0; r < count; ++r)
        for (std::size_t k = 0; k < shared.size(); ++k) {
            const std::size_t scalar = shared[k].float64 ? 8 : 4;
            void *copy = std::calloc(shared[k].scalars, scalar); // zero: +0.0 in both float formats
            if (!copy) throw std::bad_alloc();
            copies.emplace_back(copy);
            std::memcpy(views[r][k].data(), shared[k].view, ArrayViewLayout::size);
            std::memcpy(views[r][k].data() + ArrayViewLayout::data_offset, &copy, sizeof copy);
            range_ptrs[r][shared[k].param] = views[r][k].data();
        }
    pool.parallel_for(ranges, 1, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t r = first; r < last; ++r) {
            const std::int64_t begin = size / ranges * r + std::min(r, size % ranges);
            const std::int64_t end = size / ranges * (r + 1) + std::min(r + 1, size % ranges);
            entry(l, range_ptrs[static_cast<std::size_t>(r)].data(), static_cast<long long>(begin),
                  static_cast<long long>(end));
        }
    });
    // Each element: the array's value, then each range's sum, in range order.
    for (std::size_t k = 0; k < shared.size(); ++k) {
        const SharedGradient &g = shared[k];
        const auto add = [&](auto *out, auto zero) {
            using T = decltype(zero);
            pool.parallel_for(static_cast<std::int64_t>(g.scalars), [&](std::int64_t begin, std::int64_t end) {
                for (std::int64_t i = begin; i < end; ++i) {
                    T v = out[i];
                    for (std::size_t r = 0; r < count; ++r) v += static_cast<const T *>(copies[r * shared.size() + k].get())[i];
                    out[i] = v;
                }
            });
        };
        if (g.float64) add(static_cast<double *>(g.data), 0.0);
        else add(static_cast<float *>(g.data), 0.0f);
    }
}

} // namespace weft
