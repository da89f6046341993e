// CUDA code of a loaded module: the artifact's CUBIN or PTX loaded with the
// driver (cuModuleLoadDataEx) in the device's primary context, each kernel's
// entry found by its symbol. Launches check and pack their arguments as CPU
// launches do; the entry takes the launch grid first.
#include "device_code.hpp"

#include "cuda/internal.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/support/error.hpp"

#include <weft/rt/array.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>

namespace weft::modules {

using backend::CudaDriver;
using backend::CudaDriverError;
using cuda::driver;

namespace {
// Driver enum values used here (cuda.h is not included by the host layers).
constexpr int attr_multiprocessor_count = 16;      // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int func_attr_max_threads_per_block = 0; // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int cuda_error_not_found = 500;          // CUDA_ERROR_NOT_FOUND

class CudaCode final : public DeviceCode {
public:
    struct KernelCode {
        backend::CudaFunction function = nullptr;
        int max_threads_per_block = 0;
        /// cuOccupancyMaxPotentialBlockSize's answer, asked on the first launch
        /// with block size 0 (0 until then): it does not change for a loaded function.
        mutable std::atomic<int> suggested_block{0};
    };

    std::string name;
    int ordinal = 0;
    int multiprocessors = 1;
    backend::CudaModule module = nullptr;
    backend::CudaDevicePtr expect_failures = 0; // the module's __device__ int weft_expect_failures (0: none)
    backend::CudaDevicePtr failure_log = 0;     // weft_failure_log (debug mode's first bounds failures)
    backend::CudaDevicePtr bounds_failures = 0; // weft_bounds_failures (all of them)
    Logger logger;
    std::vector<std::unique_ptr<KernelCode>> kernels; // by Kernel::Impl::index

    ~CudaCode() override {
        if (!module) return;
        try {
            const CudaContextGuard context(ordinal);
            driver().module_unload(module);
        } catch (...) {
        }
    }

    void launch(const std::shared_ptr<const Kernel::Impl> &k, const std::vector<std::int64_t> &dim,
                const std::vector<KernelArg> &args, const LaunchOptions &options) const override {
        k->live_pool(); // a kernel of a destroyed host does not launch, on any device
        check_launchable(k->name(), k->external(), k->entry.tid_dims, dim);
        const KernelCode &code = *kernels[k->index];
        // The same checks and bytes as a CPU launch; the entry takes the grid first.
        launch_t grid{};
        PackedArgs packed = pack_launch_args(*k, args);
        try {
            fill_launch_grid(grid, dim, "kernel '" + k->name() + "': ");
        } catch (const LaunchError &) {
            throw;
        } catch (const UserError &e) {
            throw LaunchError(e.what());
        }
        int block_size = options.block_dim;
        if (k->entry.tiled && block_size == 0) block_size = default_tile_block_dim;
        if (block_size == 0) {
            block_size = code.suggested_block.load(std::memory_order_relaxed);
            if (block_size == 0) {
                const CudaContextGuard context(ordinal);
                block_size = driver().max_potential_block_size(code.function).second;
                code.suggested_block.store(block_size, std::memory_order_relaxed);
            }
        }
        if (block_size < 1 || block_size > code.max_threads_per_block)
            throw LaunchError("kernel '" + k->name() + "': block size " + std::to_string(block_size) + " is not 1 to " +
                              std::to_string(code.max_threads_per_block) + " (the kernel's maximum threads per block)");
        if (grid.size > 0) {
            std::vector<void *> params(k->entry.params.size() + 1);
            params[0] = &grid;
            for (std::size_t i = 0; i < k->entry.params.size(); ++i) params[i + 1] = packed.pointers()[i];
            // A tiled launch's grid counts blocks; another's counts threads.
            const std::int64_t blocks_needed = k->entry.tiled ? grid.size : (grid.size + block_size - 1) / block_size;
            // At most 32 blocks per multiprocessor: the kernel's grid-stride loop covers the rest.
            const std::int64_t cap = std::max<std::int64_t>(1, std::int64_t{multiprocessors} * 32);
            const unsigned blocks = static_cast<unsigned>(std::min(blocks_needed, cap));
            const auto stream =
                options.stream ? static_cast<backend::CudaStream>(options.stream->native_handle()) : nullptr;
            const CudaContextGuard context(ordinal);
            // cuLaunchKernel copies the parameter bytes before it returns:
            // device arrays need not outlive the call (freeing device memory
            // waits for the device's work).
            driver().launch_kernel(code.function, blocks, 1, 1, static_cast<unsigned>(block_size), 1, 1, 0, stream,
                                   params.data());
        }
        if (!options.stream) {
            synchronize(); // waits; failed expect_* checks throw here
            return;
        }
        // Failed expect_* checks of this module surface at the stream's synchronize(),
        // which is also as long as host objects the launch received stay alive.
        options.stream->backend().check_on_synchronize([k, owners = packed.owners()] {
            static_cast<const CudaCode &>(*k->owner->code).synchronize();
        });
    }

    /// Waits for all work on the device (cuCtxSynchronize) and throws
    /// LaunchError when expect_* checks of this module failed since the last
    /// call (the counter is reset).
    void synchronize() const {
        const CudaContextGuard context(ordinal);
        CudaDriver &d = driver();
        d.context_synchronize();
        if (expect_failures == 0) return;
        int failed = 0;
        d.memcpy_dtoh(&failed, expect_failures, sizeof failed);
        if (failed == 0) return;
        int bounds = 0;
        FailureLog log{};
        if (failure_log != 0) {
            d.memcpy_dtoh(&bounds, bounds_failures, sizeof bounds);
            d.memcpy_dtoh(&log, failure_log, sizeof log);
        }
        // The resets are memsets on the legacy stream, asynchronous to the host:
        // a kernel launched after this call on a non-blocking stream (which does
        // not order after the legacy stream) could count a failure into the
        // counter before the zero lands and lose it. Wait for them before returning.
        d.memset_d8(expect_failures, 0, sizeof failed);
        if (failure_log != 0) {
            d.memset_d8(failure_log, 0, sizeof log);
            d.memset_d8(bounds_failures, 0, sizeof(int));
        }
        d.context_synchronize();
        throw_failed_checks("module '" + name + "' on cuda:" + std::to_string(ordinal), failed, bounds,
                            failure_log != 0 ? &log : nullptr, logger);
    }

    std::string kernel_signatures() const override {
        const CudaContextGuard context(ordinal);
        char digest[65] = {};
        try {
            const auto global = driver().module_get_global(module, codegen::kernel_signatures_symbol);
            if (global.second == sizeof digest) driver().memcpy_dtoh(digest, global.first, sizeof digest);
        } catch (const CudaDriverError &e) {
            if (e.result() != cuda_error_not_found) throw;
        }
        return std::string(digest, strnlen(digest, sizeof digest));
    }
};

} // namespace

std::unique_ptr<DeviceCode> load_cuda_code(const pipeline::Artifact &artifact, int ordinal, const CodeContext &context,
                                           const std::string &origin) {
    CudaDriver &d = driver();
    const CudaContextGuard guard(ordinal);
    auto code = std::make_unique<CudaCode>(); // unloads on any error below
    code->name = artifact.module;
    code->ordinal = ordinal;
    code->logger = context.logger;
    const std::string bytes = artifact.bytes; // NUL-terminated (std::string), as PTX must be
    code->module = d.module_load_data(bytes.c_str());
    try {
        code->expect_failures = d.module_get_global(code->module, "weft_expect_failures").first;
        // Read and cleared as a whole FailureLog: only one of that size is used.
        const auto log = d.module_get_global(code->module, "weft_failure_log");
        if (log.second == sizeof(FailureLog)) {
            code->failure_log = log.first;
            code->bounds_failures = d.module_get_global(code->module, "weft_bounds_failures").first;
        }
    } catch (const CudaDriverError &e) {
        if (e.result() != cuda_error_not_found) throw;
    }
    code->multiprocessors = d.device_attribute(attr_multiprocessor_count, d.device(ordinal));
    for (const codegen::KernelEntry &e : artifact.kernels) {
        auto k = std::make_unique<CudaCode::KernelCode>();
        try {
            k->function = d.module_get_function(code->module, e.symbol.c_str());
        } catch (const CudaDriverError &err) {
            if (err.result() != cuda_error_not_found) throw;
            throw UserError("kernel '" + e.name + "' of " + origin + " has no entry '" + e.symbol + "' in " +
                            artifact.path.string() +
                            ": the artifact was built from a different version of the source or its plugins");
        }
        k->max_threads_per_block = d.function_attribute(func_attr_max_threads_per_block, k->function);
        code->kernels.push_back(std::move(k));
    }
    return code;
}

} // namespace weft::modules
