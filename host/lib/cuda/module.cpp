// CUDA modules loaded from images, their kernels and entries, raw streams and
// events. Launches check and pack their arguments with weft::pack_args, as CPU
// launches do; the entry takes the launch grid first.
#include "internal.hpp"

#include "runtime/kernel_lookup.hpp"
#include "cuda/cuda_module.hpp"
#include "weft/support/error.hpp"

#include <weft/rt/array.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>

namespace weft {

namespace fs = std::filesystem;
using backend::CudaDriver;
using backend::CudaDriverError;
using cuda::driver;

namespace {
// Driver enum values used here (cuda.h is not included by the host layer).
constexpr int attr_multiprocessor_count = 16;    // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int func_attr_max_threads_per_block = 0; // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int cuda_error_not_found = 500;        // CUDA_ERROR_NOT_FOUND

} // namespace

// ---------------------------------------------------------------------------
// Streams and events

CudaStream::CudaStream(int device, bool non_blocking) : device_(device) {
    const CudaContextGuard context(device_);
    stream_ = driver().stream_create(non_blocking ? CudaDriver::stream_non_blocking : 0);
}

CudaStream::~CudaStream() {
    try {
        const CudaContextGuard context(device_);
        driver().stream_destroy(stream_);
    } catch (...) {
    }
}

void CudaStream::synchronize() {
    const CudaContextGuard context(device_);
    driver().stream_synchronize(stream_);
}

void CudaStream::wait_event(backend::CudaEvent event) {
    const CudaContextGuard context(device_);
    driver().stream_wait_event(stream_, event);
}

CudaEvent::CudaEvent(int device, bool timing, bool blocking_sync) : device_(device) {
    const CudaContextGuard context(device_);
    event_ = driver().event_create((timing ? 0 : CudaDriver::event_disable_timing) |
                                   (blocking_sync ? CudaDriver::event_blocking_sync : 0));
}

CudaEvent::~CudaEvent() {
    try {
        const CudaContextGuard context(device_);
        driver().event_destroy(event_);
    } catch (...) {
    }
}

void CudaEvent::record(CudaStream *stream) {
    if (stream && stream->device() != device_)
        throw UserError("CudaEvent::record: the event is on cuda:" + std::to_string(device_) + ", the stream on cuda:" +
                        std::to_string(stream->device()));
    const CudaContextGuard context(device_);
    driver().event_record(event_, stream ? stream->handle() : nullptr);
}

bool CudaEvent::query() {
    const CudaContextGuard context(device_);
    return driver().event_query(event_);
}

void CudaEvent::synchronize() {
    const CudaContextGuard context(device_);
    driver().event_synchronize(event_);
}

float CudaEvent::elapsed_ms(const CudaEvent &start, const CudaEvent &end) {
    const CudaContextGuard context(start.device_);
    return driver().event_elapsed_ms(start.event_, end.event_);
}

// ---------------------------------------------------------------------------
// Entries, kernels, modules

backend::CudaFunctionAttributes CudaEntry::attributes() const {
    const CudaContextGuard context(device_);
    return driver().function_attributes(function_);
}

int CudaEntry::suggested_block_size() const {
    const CudaContextGuard context(device_);
    return driver().max_potential_block_size(function_).second;
}

struct CudaKernel::Impl {
    std::string name;
    std::string key;
    std::string module;
    CudaEntry entry;
    std::vector<KernelParam> params;
    int tid_dims = 0;
    bool external = false;
    int device = 0;
    int max_threads_per_block = 0;
    int multiprocessors = 1;
    /// cuOccupancyMaxPotentialBlockSize's answer, asked on the first launch
    /// with block size 0 (0 until then): it does not change for a loaded function.
    mutable std::atomic<int> suggested_block{0};
};

struct CudaModule::Impl {
    std::string name;
    std::string hash; // of the target loaded (CUBIN or PTX)
    bool from_cache = false;
    fs::path generated_source_path;
    int device = 0;
    int arch = 0;
    std::string image_kind;
    fs::path artifact_path;
    double load_ms = 0;
    backend::CudaModule module = nullptr;
    backend::CudaDevicePtr expect_failures = 0; // the module's __device__ int weft_expect_failures (0: none)
    backend::CudaDevicePtr failure_log = 0;     // weft_failure_log (debug mode's first bounds failures)
    backend::CudaDevicePtr bounds_failures = 0; // weft_bounds_failures (all of them)
    std::vector<std::shared_ptr<CudaKernel::Impl>> kernels;
    Logger logger; // where debug-mode bounds failures are reported
};

const std::string &CudaKernel::name() const { return impl_->name; }
const std::string &CudaKernel::key() const { return impl_->key; }
const std::string &CudaKernel::symbol() const { return impl_->entry.symbol(); }
const std::vector<KernelParam> &CudaKernel::params() const { return impl_->params; }
bool CudaKernel::external() const { return impl_->external; }
const CudaEntry &CudaKernel::function() const { return impl_->entry; }

void CudaKernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, int block_size,
                        CudaStream *stream) const {
    if (stream && stream->device() != impl_->device)
        throw LaunchError("kernel '" + impl_->name + "' is on cuda:" + std::to_string(impl_->device) +
                          ", the stream on cuda:" + std::to_string(stream->device()));
    launch_on(dim, args, block_size, stream ? stream->handle() : nullptr);
}

void CudaKernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, Stream &stream,
                        int block_size) const {
    if (stream.device() != Device::cuda(impl_->device))
        throw LaunchError("kernel '" + impl_->name + "' is loaded on cuda:" + std::to_string(impl_->device) +
                          "; the stream is on " + stream.device().name());
    launch_on(dim, args, block_size, static_cast<backend::CudaStream>(stream.native_handle()));
}

void CudaKernel::launch_on(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, int block_size,
                           backend::CudaStream stream) const {
    const Impl &k = *impl_;
    check_launchable(k.name, k.external, k.tid_dims, dim);
    // The same checks and bytes as a CPU launch; the entry takes the grid first.
    launch_t grid{};
    std::optional<PackedArgs> packed;
    try {
        packed.emplace(pack_args(k.name, k.params, args, Device::cuda(k.device)));
        fill_launch_grid(grid, dim, "kernel '" + k.name + "': ");
    } catch (const LaunchError &) {
        throw;
    } catch (const UserError &e) {
        throw LaunchError(e.what());
    }
    const std::int64_t size = grid.size;
    if (block_size == 0) {
        block_size = k.suggested_block.load(std::memory_order_relaxed);
        if (block_size == 0) {
            block_size = k.entry.suggested_block_size();
            k.suggested_block.store(block_size, std::memory_order_relaxed);
        }
    }
    if (block_size < 1 || block_size > k.max_threads_per_block)
        throw LaunchError("kernel '" + k.name + "': block size " + std::to_string(block_size) + " is not 1 to " +
                          std::to_string(k.max_threads_per_block) + " (the kernel's maximum threads per block)");
    if (size == 0) return;

    std::vector<void *> params(k.params.size() + 1);
    params[0] = &grid;
    for (std::size_t i = 0; i < k.params.size(); ++i) params[i + 1] = packed->pointers()[i];
    const std::int64_t blocks_needed = (size + block_size - 1) / block_size;
    const std::int64_t cap = std::max<std::int64_t>(1, std::int64_t{k.multiprocessors} * 32);
    const unsigned blocks = static_cast<unsigned>(std::min(blocks_needed, cap));
    const CudaContextGuard context(k.device);
    // cuLaunchKernel copies the parameter bytes before it returns.
    driver().launch_kernel(k.entry.handle(), blocks, 1, 1, static_cast<unsigned>(block_size), 1, 1, 0,
                           stream, params.data());
}

CudaModule::CudaModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CudaModule::~CudaModule() {
    if (!impl_ || !impl_->module) return;
    try {
        const CudaContextGuard context(impl_->device);
        driver().module_unload(impl_->module);
    } catch (...) {
    }
}

const std::string &CudaModule::name() const { return impl_->name; }
const std::string &CudaModule::hash() const { return impl_->hash; }
bool CudaModule::from_cache() const { return impl_->from_cache; }
const fs::path &CudaModule::generated_source_path() const { return impl_->generated_source_path; }
int CudaModule::device() const { return impl_->device; }
int CudaModule::arch() const { return impl_->arch; }
const std::string &CudaModule::image_kind() const { return impl_->image_kind; }
const fs::path &CudaModule::artifact_path() const { return impl_->artifact_path; }
double CudaModule::load_ms() const { return impl_->load_ms; }
backend::CudaModule CudaModule::handle() const { return impl_->module; }

std::vector<std::string> CudaModule::kernel_names() const { return detail::kernel_names(impl_->kernels); }

CudaKernel CudaModule::kernel(std::string_view name) const {
    CudaKernel out;
    out.impl_ = detail::find_kernel(impl_->kernels, impl_->name, name);
    return out;
}

std::vector<CudaKernel> CudaModule::kernels() const {
    std::vector<CudaKernel> out;
    for (const auto &k : impl_->kernels) {
        CudaKernel c;
        c.impl_ = k;
        out.push_back(std::move(c));
    }
    return out;
}

CudaEntry CudaModule::function(const std::string &symbol) const {
    const CudaContextGuard context(impl_->device);
    CudaEntry e;
    e.device_ = impl_->device;
    e.symbol_ = symbol;
    e.function_ = driver().module_get_function(impl_->module, symbol.c_str());
    return e;
}

std::shared_ptr<CudaModule> CudaModule::load(const CudaImage &image) {
    const auto t0 = std::chrono::steady_clock::now();
    // Inside the member: CudaEntry admits CudaModule only.
    auto bind_kernels = [](const std::vector<CudaImage::Kernel> &kernels, const std::string &origin, Impl &m) {
    CudaDriver &d = driver();
    const backend::CudaDevice dev = d.device(m.device);
    try {
        m.expect_failures = d.module_get_global(m.module, "weft_expect_failures").first;
        // Read and cleared as a whole FailureLog: only one of that size is used.
        const auto log = d.module_get_global(m.module, "weft_failure_log");
        if (log.second == sizeof(FailureLog)) {
            m.failure_log = log.first;
            m.bounds_failures = d.module_get_global(m.module, "weft_bounds_failures").first;
        }
    } catch (const CudaDriverError &e) {
        if (e.result() != cuda_error_not_found) throw;
    }
    const int multiprocessors = d.device_attribute(attr_multiprocessor_count, dev);
    for (const CudaImage::Kernel &e : kernels) {
        auto k = std::make_shared<CudaKernel::Impl>();
        k->name = e.name;
        k->key = e.key;
        k->module = m.name;
        k->entry.device_ = m.device;
        k->entry.symbol_ = e.symbol;
        try {
            k->entry.function_ = d.module_get_function(m.module, e.symbol.c_str());
        } catch (const CudaDriverError &err) {
            if (err.result() != cuda_error_not_found) throw;
            throw UserError("kernel '" + e.name + "' of " + origin + " has no entry '" + e.symbol + "' in " +
                            m.artifact_path.string() +
                            ": the artifact was built from a different version of the source or its plugins");
        }
        k->params = e.params;
        k->tid_dims = e.tid_dims;
        k->external = e.external;
        k->device = m.device;
        k->max_threads_per_block = d.function_attribute(func_attr_max_threads_per_block, k->entry.function_);
        k->multiprocessors = multiprocessors;
        m.kernels.push_back(std::move(k));
    }
};

    CudaDriver &d = driver();
    const CudaContextGuard context(image.device);
    auto impl = std::make_unique<Impl>();
    impl->name = image.module;
    impl->logger = image.logger;
    impl->hash = image.hash;
    impl->from_cache = image.from_cache;
    impl->generated_source_path = image.generated_source_path;
    impl->device = image.device;
    impl->arch = image.arch;
    impl->image_kind = image.kind;
    impl->artifact_path = image.artifact_path;
    const std::string bytes = image.bytes; // NUL-terminated (std::string), as PTX must be
    impl->module = d.module_load_data(bytes.c_str());
    auto module = std::make_shared<CudaModule>(std::move(impl)); // unloads on any error below
    if (!image.kernel_signatures.empty()) {
        // The same entry symbols can hold other signatures (a kernel's parameter types changed).
        char digest[65] = {};
        try {
            const auto global = d.module_get_global(module->impl_->module, "weft_kernel_signatures");
            if (global.second == sizeof digest) d.memcpy_dtoh(digest, global.first, sizeof digest);
        } catch (const CudaDriverError &e) {
            if (e.result() != cuda_error_not_found) throw;
        }
        if (std::string(digest, strnlen(digest, sizeof digest)) != image.kernel_signatures)
            throw UserError("module '" + image.module + "': the kernels of " + image.artifact_path.string() +
                            " are not those of " + image.origin +
                            ": the artifact was built from a different version of the source or its plugins");
    }
    bind_kernels(image.kernels, image.origin, *module->impl_);
    const auto since = image.started.value_or(t0);
    module->impl_->load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
    return module;
}

void CudaModule::synchronize() const {
    const CudaContextGuard context(impl_->device);
    CudaDriver &d = driver();
    d.context_synchronize();
    if (impl_->expect_failures == 0) return;
    int failed = 0;
    d.memcpy_dtoh(&failed, impl_->expect_failures, sizeof failed);
    if (failed == 0) return;
    int bounds = 0;
    FailureLog log{};
    if (impl_->failure_log != 0) {
        d.memcpy_dtoh(&bounds, impl_->bounds_failures, sizeof bounds);
        d.memcpy_dtoh(&log, impl_->failure_log, sizeof log);
    }
    // The resets are memsets on the legacy stream, asynchronous to the host:
    // a kernel launched after this call on a non-blocking stream (which does
    // not order after the legacy stream) could count a failure into the
    // counter before the zero lands and lose it. Wait for them before returning.
    d.memset_d8(impl_->expect_failures, 0, sizeof failed);
    if (impl_->failure_log != 0) {
        d.memset_d8(impl_->failure_log, 0, sizeof log);
        d.memset_d8(impl_->bounds_failures, 0, sizeof(int));
    }
    d.context_synchronize();
    throw_failed_checks("module '" + impl_->name + "' on cuda:" + std::to_string(impl_->device), failed, bounds,
                        impl_->failure_log != 0 ? &log : nullptr, impl_->logger);
}

} // namespace weft
