// CUDA modules on a device: the build pipeline (CUBIN, else PTX) ->
// cuModuleLoadData in the device's primary context -> kernels launched with
// cuLaunchKernel. The kernel list (symbols, parameters, ABI) comes from the
// same pipeline run that produced the artifact, so it is exactly what the
// artifact was built from.
#include "weft/host/cuda_module.hpp"

#include "cuda_internal.hpp"
#include "host_access.hpp"
#include "kernel_lookup.hpp"
#include "weft/backend/cuda.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/host/host.hpp"
#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <weft/rt/array.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <mutex>
#include <sstream>

namespace weft {

namespace fs = std::filesystem;
using backend::CudaDriver;
using backend::CudaDriverError;

namespace {

// Driver enum values used here (cuda.h is not included by the host layer).
constexpr int attr_multiprocessor_count = 16;    // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
constexpr int func_attr_max_threads_per_block = 0; // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
constexpr int cuda_error_not_found = 500;        // CUDA_ERROR_NOT_FOUND

CudaDriver &driver() { return detail::cuda_driver(); }
backend::CudaContext use_device(int ordinal) { return detail::use_cuda_device(ordinal); }

/// An AOT artifact: a regular file, bounded (CUBIN and PTX images are megabytes, not gigabytes).
std::string read_artifact(const fs::path &path) { return read_input_file(path, std::uintmax_t{1} << 30, "CUDA artifact"); }

/// "nvrtc 13.0" -> 13000 (cuDriverGetVersion's form); 0 when unparsable.
int nvrtc_version_number() {
    const std::string v = backend::nvrtc_version();
    const std::size_t space = v.find(' ');
    if (space == std::string::npos) return 0;
    int major = 0, minor = 0;
    if (std::sscanf(v.c_str() + space + 1, "%d.%d", &major, &minor) < 1) return 0;
    return major * 1000 + minor * 10;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

CudaDriver &detail::cuda_driver() {
    CudaDriver &d = CudaDriver::instance();
    if (!d.available()) d.api(); // throws "CUDA driver not available: <reason>"
    return d;
}

backend::CudaContext detail::use_cuda_device(int ordinal) {
    CudaDriver &d = cuda_driver();
    static std::mutex mutex;
    static auto *contexts = new std::map<int, backend::CudaContext>; // never destroyed, like the driver
    backend::CudaContext context = nullptr;
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto it = contexts->find(ordinal);
        if (it == contexts->end()) {
            const int count = d.device_count();
            if (ordinal < 0 || ordinal >= count)
                throw UserError("no CUDA device cuda:" + std::to_string(ordinal) + " (the driver sees " +
                                std::to_string(count) + " device" + (count == 1 ? "" : "s") + ")");
            it = contexts->emplace(ordinal, d.primary_context_retain(d.device(ordinal))).first;
        }
        context = it->second;
    }
    if (d.current_context() != context) d.set_current_context(context);
    return context;
}

int cuda_device_count() noexcept {
    try {
        CudaDriver &d = CudaDriver::instance();
        return d.available() ? d.device_count() : 0;
    } catch (...) {
        return 0;
    }
}

std::string cuda_unavailable_reason() {
    CudaDriver &d = CudaDriver::instance();
    if (!d.available()) return "CUDA driver not available: " + d.unavailable_reason();
    try {
        if (d.device_count() == 0) return "the CUDA driver sees no device";
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

int cuda_compute_capability(int device) {
    CudaDriver &d = driver();
    const int count = d.device_count();
    if (device < 0 || device >= count)
        throw UserError("there is no CUDA device cuda:" + std::to_string(device) + " (the driver sees " +
                        std::to_string(count) + ")");
    return d.compute_capability(d.device(device));
}

// ---------------------------------------------------------------------------
// Streams and events

CudaStream::CudaStream(int device, bool non_blocking) : device_(device) {
    use_device(device_);
    stream_ = driver().stream_create(non_blocking ? CudaDriver::stream_non_blocking : 0);
}

CudaStream::~CudaStream() {
    try {
        use_device(device_);
        driver().stream_destroy(stream_);
    } catch (...) {
    }
}

void CudaStream::synchronize() {
    use_device(device_);
    driver().stream_synchronize(stream_);
}

void CudaStream::wait_event(backend::CudaEvent event) {
    use_device(device_);
    driver().stream_wait_event(stream_, event);
}

CudaEvent::CudaEvent(int device, bool timing) : device_(device) {
    use_device(device_);
    event_ = driver().event_create(timing ? 0 : CudaDriver::event_disable_timing);
}

CudaEvent::~CudaEvent() {
    try {
        use_device(device_);
        driver().event_destroy(event_);
    } catch (...) {
    }
}

void CudaEvent::record(CudaStream *stream) {
    if (stream && stream->device() != device_)
        throw UserError("CudaEvent::record: the event is on cuda:" + std::to_string(device_) + ", the stream on cuda:" +
                        std::to_string(stream->device()));
    use_device(device_);
    driver().event_record(event_, stream ? stream->handle() : nullptr);
}

bool CudaEvent::query() {
    use_device(device_);
    return driver().event_query(event_);
}

void CudaEvent::synchronize() {
    use_device(device_);
    driver().event_synchronize(event_);
}

float CudaEvent::elapsed_ms(const CudaEvent &start, const CudaEvent &end) {
    use_device(start.device_);
    return driver().event_elapsed_ms(start.event_, end.event_);
}

// ---------------------------------------------------------------------------
// Entries, kernels, modules

backend::CudaFunctionAttributes CudaEntry::attributes() const {
    use_device(device_);
    return driver().function_attributes(function_);
}

int CudaEntry::suggested_block_size() const {
    use_device(device_);
    return driver().max_potential_block_size(function_).second;
}

struct CudaKernel::Impl {
    std::string name;
    std::string module;
    CudaEntry entry;
    std::vector<KernelParam> params;
    int tid_dims = 0;
    kernel::ir::EntryPointAbi abi = kernel::ir::EntryPointAbi::Warp;
    int device = 0;
    int max_threads_per_block = 0;
    int multiprocessors = 1;
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
    backend::CudaDevicePtr first_failure = 0;   // weft_first_failure (debug mode's first bounds failure)
    backend::CudaDevicePtr first_failure_claimed = 0;
    std::vector<std::shared_ptr<CudaKernel::Impl>> kernels;
};

const std::string &CudaKernel::name() const { return impl_->name; }
const std::string &CudaKernel::symbol() const { return impl_->entry.symbol(); }
const std::vector<KernelParam> &CudaKernel::params() const { return impl_->params; }
bool CudaKernel::external() const { return impl_->abi == kernel::ir::EntryPointAbi::ExternalConstantParams; }
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
    if (k.abi == kernel::ir::EntryPointAbi::ExternalConstantParams)
        throw LaunchError("kernel '" + k.name +
                          "' uses entry_point_abi='external_constant_params' and cannot be launched by weft");
    if (k.tid_dims > 1 && dim.size() != static_cast<std::size_t>(k.tid_dims))
        throw LaunchError("kernel '" + k.name + "' unpacks tid() into " + std::to_string(k.tid_dims) +
                          " values; launch it with a " + std::to_string(k.tid_dims) + "-D dimension, not " +
                          std::to_string(dim.size()) + "-D");
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
    if (block_size == 0) block_size = k.entry.suggested_block_size();
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
    use_device(k.device);
    // cuLaunchKernel copies the parameter bytes before it returns.
    driver().launch_kernel(k.entry.handle(), blocks, 1, 1, static_cast<unsigned>(block_size), 1, 1, 0,
                           stream, params.data());
}

CudaModule::CudaModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CudaModule::~CudaModule() {
    if (!impl_ || !impl_->module) return;
    try {
        use_device(impl_->device);
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

CudaEntry CudaModule::function(const std::string &symbol) const {
    use_device(impl_->device);
    CudaEntry e;
    e.device_ = impl_->device;
    e.symbol_ = symbol;
    e.function_ = driver().module_get_function(impl_->module, symbol.c_str());
    return e;
}

void CudaModule::synchronize() const {
    use_device(impl_->device);
    driver().context_synchronize();
    if (impl_->expect_failures == 0) return;
    int failed = 0;
    driver().memcpy_dtoh(&failed, impl_->expect_failures, sizeof failed);
    if (failed == 0) return;
    driver().memset_d8(impl_->expect_failures, 0, sizeof failed);
    std::string first;
    if (impl_->first_failure != 0) {
        char message[256] = {};
        driver().memcpy_dtoh(message, impl_->first_failure, sizeof message);
        first.assign(message, strnlen(message, sizeof message));
        driver().memset_d8(impl_->first_failure, 0, sizeof message);
        driver().memset_d8(impl_->first_failure_claimed, 0, sizeof(int));
        driver().context_synchronize();
    }
    const std::string where = "module '" + impl_->name + "' on cuda:" + std::to_string(impl_->device) + ": ";
    if (!first.empty())
        throw LaunchError(where + first + " (" + std::to_string(failed) + (failed == 1 ? " check" : " checks") +
                          " failed; the messages above give each)");
    throw LaunchError(where + std::to_string(failed) + " expect_* check" + (failed == 1 ? "" : "s") +
                      " failed (the messages above give kernel, line and values)");
}

// ---------------------------------------------------------------------------
// Loading

struct detail::CudaLoader {
/// Looks up every kernel of the artifact in the loaded image of `module` and
/// records what launches need. A symbol the image lacks means the artifact was
/// built from another version of the source (the mangled names carry types).
static void bind_kernels(const std::vector<codegen::KernelEntry> &kernels, const std::string &origin, CudaModule::Impl &m) {
    CudaDriver &d = driver();
    const backend::CudaDevice dev = d.device(m.device);
    try {
        m.expect_failures = d.module_get_global(m.module, "weft_expect_failures").first;
        m.first_failure = d.module_get_global(m.module, "weft_first_failure").first;
        m.first_failure_claimed = d.module_get_global(m.module, "weft_first_failure_claimed").first;
    } catch (const CudaDriverError &e) {
        if (e.result() != cuda_error_not_found) throw;
    }
    const int multiprocessors = d.device_attribute(attr_multiprocessor_count, dev);
    for (const codegen::KernelEntry &e : kernels) {
        auto k = std::make_shared<CudaKernel::Impl>();
        k->name = e.name;
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
        for (const auto &[pname, ptype] : e.params) k->params.push_back({pname, ptype});
        k->tid_dims = e.tid_dims;
        k->abi = e.abi;
        k->device = m.device;
        k->max_threads_per_block = d.function_attribute(func_attr_max_threads_per_block, k->entry.function_);
        k->multiprocessors = multiprocessors;
        m.kernels.push_back(std::move(k));
    }
}

/// The CUBIN for the device's architecture when NVRTC can build it and the
/// driver loads it, else PTX for the newest architecture NVRTC knows up to
/// the device's (the driver JIT-compiles it). One front-end run for both.
static std::shared_ptr<CudaModule> load(Host &host, pipeline::ModuleSource source, int device,
                                        const ModuleLoadOptions &options) {
    using detail::HostAccess;
    const auto t0 = std::chrono::steady_clock::now();
    CudaDriver &d = driver();
    use_device(device);
    const int cc = d.compute_capability(d.device(device));
    const std::vector<int> archs = backend::nvrtc_supported_archs();
    const bool cubin_possible = std::find(archs.begin(), archs.end(), cc) != archs.end();
    int ptx_arch = 0;
    for (int a : archs)
        if (a <= cc) ptx_arch = a;

    HostAccess::check_claim(host, source);
    const pipeline::Pipeline &pipeline = HostAccess::pipeline(host);
    PreparedModule prepared = prepare_module(host, std::move(source), options);
    const pipeline::ModuleSource &src = prepared.checked.source;
    std::vector<Target> targets;
    if (cubin_possible) targets.push_back(Target::cuda_cubin(cc));
    if (ptx_arch) targets.push_back(Target::cuda_ptx(ptx_arch));
    if (targets.empty())
        throw backend::BackendError("cuda:" + std::to_string(device) + " (sm_" + std::to_string(cc) + "): " +
                                    backend::nvrtc_version() + " has no architecture up to this one to compile for");
    const std::vector<pipeline::GeneratedModule> generated = pipeline.generate(prepared.checked, prepared.options, targets, options);
    std::vector<std::string> hashes;
    for (const pipeline::GeneratedModule &g : generated) hashes.push_back(g.hash);
    // An unchanged module is the loaded one.
    if (std::shared_ptr<CudaModule> kept = HostAccess::find_cuda(host, src.name, device, hashes)) return kept;

    auto impl = std::make_unique<CudaModule::Impl>();
    impl->name = src.name;
    impl->device = device;
    impl->arch = cc;

    std::string cubin_error;
    std::optional<pipeline::Artifact> artifact;
    if (cubin_possible) {
        artifact = pipeline.realize(generated.front());
        try {
            impl->module = d.module_load_data(artifact->bytes.data());
            impl->image_kind = "cubin";
        } catch (const CudaDriverError &e) {
            cubin_error = e.what();
        }
    } else {
        cubin_error = backend::nvrtc_version() + " cannot compile for sm_" + std::to_string(cc);
    }
    if (!impl->module) {
        if (ptx_arch == 0)
            throw backend::BackendError("cuda:" + std::to_string(device) + " (sm_" + std::to_string(cc) + "): " +
                                        cubin_error + ", and " + backend::nvrtc_version() +
                                        " has no older architecture to compile PTX for");
        const int driver_version = d.driver_version();
        const int needed = nvrtc_version_number();
        if (driver_version < needed)
            throw backend::BackendError(
                "cuda:" + std::to_string(device) + ": " + cubin_error + "; PTX from " + backend::nvrtc_version() +
                " needs a CUDA driver of version " + std::to_string(needed / 1000) + "." +
                std::to_string(needed % 1000 / 10) + " or newer, this one is " + std::to_string(driver_version / 1000) +
                "." + std::to_string(driver_version % 1000 / 10));
        artifact = pipeline.realize(generated.back());
        try {
            impl->module = d.module_load_data(artifact->bytes.c_str()); // NUL-terminated, as PTX must be
        } catch (const CudaDriverError &e) {
            throw CudaDriverError(e.call(), e.result(),
                                  "module '" + impl->name + "' on cuda:" + std::to_string(device) +
                                      ": the CUBIN did not load (" + cubin_error + ") and the PTX did not either: " +
                                      e.what());
        }
        impl->image_kind = "ptx";
        impl->arch = ptx_arch;
    }
    impl->hash = artifact->hash;
    impl->artifact_path = artifact->path;
    impl->generated_source_path = artifact->generated_source_path;
    impl->from_cache = artifact->from_cache;
    auto module = std::make_shared<CudaModule>(std::move(impl)); // unloads on any error below
    bind_kernels(artifact->kernels, src.display_name(), *module->impl_);
    module->impl_->load_ms = ms_since(t0);
    return HostAccess::keep_cuda(host, src, std::move(module));
}

/// An AOT artifact from `dir`; the pipeline generates (compiles nothing) for
/// the kernel list and the hash of the target found.
static std::shared_ptr<CudaModule> load_aot(Host &host, const fs::path &file, const fs::path &dir, int device) {
    using detail::HostAccess;
    const auto t0 = std::chrono::steady_clock::now();
    CudaDriver &d = driver();
    use_device(device);
    const int cc = d.compute_capability(d.device(device));
    pipeline::ModuleSource source = pipeline::ModuleSource::from_file(file);
    HostAccess::check_claim(host, source);
    auto impl = std::make_unique<CudaModule::Impl>();
    impl->name = source.name;
    impl->device = device;
    impl->artifact_path = find_aot_artifact(dir, impl->name, cc); // UserError listing every path tried
    const bool cubin = impl->artifact_path.extension() == ".cubin";
    impl->image_kind = cubin ? "cubin" : "ptx";
    const Target target = Target::parse(impl->artifact_path.stem().extension().string().substr(1));
    impl->arch = target.arch;
    PreparedModule prepared = prepare_module(host, std::move(source), {});
    const pipeline::GeneratedModule generated =
        HostAccess::pipeline(host).generate(prepared.checked, prepared.options, {target}, {}).front();
    impl->hash = generated.hash;
    const std::string image = read_artifact(impl->artifact_path); // NUL-terminated, as PTX must be
    try {
        impl->module = d.module_load_data(image.c_str());
    } catch (const CudaDriverError &e) {
        throw CudaDriverError(e.call(), e.result(),
                              "module '" + impl->name + "' on cuda:" + std::to_string(device) + " from " +
                                  impl->artifact_path.string() + ": " + e.what());
    }
    impl->from_cache = true; // nothing compiled
    auto module = std::make_shared<CudaModule>(std::move(impl));
    bind_kernels(generated.source.kernels, prepared.checked.source.display_name(), *module->impl_);
    module->impl_->load_ms = ms_since(t0);
    return HostAccess::keep_cuda(host, prepared.checked.source, std::move(module));
}
};

std::shared_ptr<CudaModule> detail::load_cuda(Host &host, pipeline::ModuleSource source, int device,
                                              const ModuleLoadOptions &options) {
    return CudaLoader::load(host, std::move(source), device, options);
}

CudaModule &load_cuda_module(Host &host, const fs::path &file, int device, ModuleLoadOptions options) {
    std::string name = options.name;
    return *detail::CudaLoader::load(host, pipeline::ModuleSource::from_file(file, std::move(name)), device, options);
}

CudaModule &load_aot(Host &host, const fs::path &file, const fs::path &dir, int device) {
    return *detail::CudaLoader::load_aot(host, file, dir, device);
}

} // namespace weft
