// Argument packing and CPU launches of generated kernels.
//
// A module's CPU entry point for a kernel has the C signature
//   extern "C" void ENTRY(const weft::launch_t *launch, void *const *args, long long begin, long long end);
// launch_t (weft/rt/array.h) holds the launch grid; args[i] points to the
// bytes of parameter i: a weft::array_t<T> view (weft::ArrayViewLayout) for an
// array parameter, else the value's bytes in weft's layout. The entry runs the
// linear thread indices [begin, end) (row-major over the grid) and must treat
// the argument bytes as read-only: chunks run concurrently on the same bytes.
#pragma once

#include "weft/registry/types.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/thread_pool.hpp"
#include "weft/support/error.hpp"
#include "weft/support/log.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

struct launch_t; // weft/rt/array.h

/// A failed launch, on any device: arguments that do not fit, or failed checks.
class LaunchError : public UserError {
public:
    using UserError::UserError;
};

/// A kernel's CPU entry point.
using CpuEntry = void (*)(const launch_t *launch, void *const *args, long long begin, long long end);

/// The packed arguments of one launch: each parameter's bytes, aligned for its
/// type, in one buffer, and the pointer table an entry point takes. Holds
/// references to the arrays' storage, so they outlive it. Move-only (the
/// pointers point into its own buffer).
class PackedArgs {
public:
    PackedArgs(PackedArgs &&) noexcept;
    PackedArgs &operator=(PackedArgs &&) noexcept;
    PackedArgs(const PackedArgs &) = delete;
    PackedArgs &operator=(const PackedArgs &) = delete;
    ~PackedArgs();

    /// The number of parameters.
    std::size_t size() const { return pointers_.size(); }
    /// args[i] for the entry point: parameter i's bytes.
    void *const *pointers() const { return pointers_.data(); }
    /// Parameter i's bytes (array parameters: the 64-byte array view).
    const void *arg(std::size_t i) const { return pointers_.at(i); }
    /// What the arguments keep alive beside arrays (KernelArg::kept: host objects).
    const std::vector<std::shared_ptr<const void>> &owners() const { return owners_; }

private:
    friend PackedArgs pack_args(std::string_view kernel, const std::vector<KernelParam> &params,
                                const std::vector<KernelArg> &args, Device device);
    PackedArgs() = default;
    struct Buffer;

    std::unique_ptr<Buffer> buffer_;
    std::vector<void *> pointers_;
    std::vector<Array> arrays_; // keeps the storage alive
    std::vector<std::shared_ptr<const void>> owners_;
};

/// "kernel 'k', parameter 'p': ", the start of every argument error of CPU and CUDA launches.
std::string parameter_prefix(std::string_view kernel, const KernelParam &p);

/// A debug-mode module's bounds-failure log (weft_failure_log in the runtime
/// headers: WEFT_RT_FAILURE_LOG messages of WEFT_RT_FAILURE_MESSAGE bytes).
struct FailureLog {
    static constexpr int entries = 8;
    static constexpr int message_bytes = 256;
    char messages[entries][message_bytes];
};

/// Reports a launch's failed checks, the same on every device: each bounds
/// failure the module's log kept (`bounds` counts all of them) goes to
/// `logger` (category "kernel", naming array, index, shape, line and
/// thread), then how many more there were; then throws LaunchError starting
/// with `who` that gives the first failure and the counts. `failed` counts
/// every failed check (bounds and expect_*); expect_* checks print their own
/// lines, as Warp's do.
[[noreturn]] void throw_failed_checks(const std::string &who, int failed, int bounds, const FailureLog *log,
                                      const Logger &logger);

/// What every launch checks first, on every device: an
/// entry_point_abi='external_constant_params' kernel is never launched by
/// weft, and a kernel that unpacks tid() into N values needs an N-D grid.
/// Throws LaunchError naming the kernel.
void check_launchable(std::string_view kernel, bool external, int tid_dims, const std::vector<std::int64_t> &dim);

/// Fills the launch grid for `dim` (1 to 4 dimensions, each 0 to INT32_MAX;
/// size = their product). Throws UserError whose message starts with `where`.
void fill_launch_grid(launch_t &grid, const std::vector<std::int64_t> &dim, const std::string &where);

/// Writes the 64-byte array view generated code reads (weft::ArrayViewLayout)
/// for the elements at `address` (a host pointer or a CUDA device pointer).
void write_array_view(std::byte *out, std::uint64_t address, const std::vector<std::int64_t> &shape,
                      const std::vector<std::int64_t> &byte_strides);

/// Whether the array view at `view` (weft::ArrayViewLayout) holds its last
/// dimension's elements `element_size` bytes apart, what a kernel's dense copy
/// assumes (weft::innermost_dense in the runtime headers, the same test).
bool innermost_dense(const void *view, std::uint64_t element_size);

/// Checks `args` against `params` of kernel `kernel`, which runs on
/// `device`, and packs them (the same bytes for every device: array views hold
/// the device's addresses). UserError, naming the kernel and parameter, on a
/// wrong argument count, an array of another dtype or ndim or on another
/// device, a value for an array parameter (or the reverse), or a value of
/// another type. Values convert only where nothing is lost: an integer value
/// fits an integer parameter of another width or sign when its value does
/// (1234 for a uint64), and nothing else converts (pass 2.0, not 2.0f, for a
/// float64).
PackedArgs pack_args(std::string_view kernel, const std::vector<KernelParam> &params,
                     const std::vector<KernelArg> &args, Device device = Device::cpu());

/// Runs `entry` over the grid `dim` (1 to 4 dimensions, each 0 to INT32_MAX)
/// with `args`, split over `pool` with parallel_for over [0, product of dim).
/// A grid with a 0 dimension calls nothing. Exceptions from the entry are rethrown.
void launch_cpu(CpuEntry entry, const std::vector<std::int64_t> &dim, const PackedArgs &args, ThreadPool &pool);

/// What generated code asks of a CPU launch beyond its arguments
/// (codegen::KernelEntry::loops and private_gradients).
struct CpuLaunchPlan {
    /// Each thread may do much work (the kernel loops): grids shorter than
    /// the pool's inline threshold are split across threads too.
    bool loops = false;
    /// Gradient arrays the entry adds to with plain adds although several of
    /// its threads add to one element: parameter index and the element's
    /// scalar (float32 or float64; an element is a whole number of them).
    struct PrivateGradient {
        std::size_t param = 0;
        bool float64 = false;
        std::uint64_t element_size = 0; // bytes of one element (a whole number of scalars)
    };
    std::vector<PrivateGradient> private_gradients;
    /// launch_t::block_dim: a tiled launch's threads per block (its tiles' lanes), else 1.
    int block_dim = 1;
    /// Run the whole grid on the calling thread, in index order (Warp's
    /// deterministic mode; codegen::KernelEntry::serial).
    bool serial = false;
};

/// The bytes of private gradient copies one launch may hold, all ranges
/// together; beyond it a launch runs on fewer threads, down to one.
inline constexpr std::uint64_t private_gradient_budget = std::uint64_t(512) << 20;

/// launch_cpu under `plan`. Private gradients: a launch on one thread adds
/// into the arrays directly; on P > 1 threads, P fixed ranges of the grid
/// (each a contiguous run of thread indices) each add into a zeroed private
/// copy, and each element of the array then gets the copies added in range
/// order. So a gradient is the same, bit for bit, on every run with the same
/// thread count; across thread counts it differs by the reassociation of its
/// float sum (docs/kernel-language.md, automatic differentiation, states the bound). A gradient array that is
/// not dense, row-major, has the launch run on one thread.
void launch_cpu(CpuEntry entry, const std::vector<std::int64_t> &dim, const PackedArgs &args, ThreadPool &pool,
                const CpuLaunchPlan &plan);

} // namespace weft
