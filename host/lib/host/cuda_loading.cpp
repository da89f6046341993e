// CUDA modules through the build pipeline: the CUBIN for the device's
// architecture when NVRTC can build it and the driver loads it, else PTX; or
// an AOT directory's artifact. The kernel list comes from the same pipeline
// run that produced the artifact, so it is exactly what the artifact holds.
#include "cuda_loading.hpp"

#include "host_access.hpp"
#include "weft/backend/cuda.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/host/host.hpp"
#include "weft/support/error.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

namespace weft {

namespace fs = std::filesystem;
using backend::CudaDriver;
using backend::CudaDriverError;

namespace {


/// Throws naming both versions when the driver cannot run NVRTC's code (PTX: `ptx`).
void require_driver_for(int device, bool ptx, const std::string &context = "") {
    if (const std::string mismatch = cuda_driver_mismatch(ptx); !mismatch.empty())
        throw backend::BackendError("cuda:" + std::to_string(device) + ": " + context + mismatch);
}


/// The image of `artifact` on `device`, with the kernels the generator described; its load began at `started`.
CudaImage image_of(const pipeline::Artifact &artifact, int device, const std::string &origin,
                   std::chrono::steady_clock::time_point started, const Logger &logger) {
    CudaImage image;
    image.logger = logger;
    image.module = artifact.module;
    image.hash = artifact.hash;
    image.device = device;
    image.arch = artifact.target.arch;
    image.kind = artifact.target.output == Target::Output::Cubin ? "cubin" : "ptx";
    image.bytes = artifact.bytes;
    image.artifact_path = artifact.path;
    image.generated_source_path = artifact.generated_source_path;
    image.from_cache = artifact.from_cache;
    image.origin = origin;
    image.started = started;
    for (const codegen::KernelEntry &e : artifact.kernels) {
        CudaImage::Kernel k;
        k.name = e.name;
        k.key = e.key;
        k.symbol = e.symbol;
        for (const auto &[name, type] : e.params) k.params.push_back({name, type});
        k.tid_dims = e.tid_dims;
        k.external = e.abi == kernel::ir::EntryPointAbi::ExternalConstantParams;
        image.kernels.push_back(std::move(k));
    }
    return image;
}

} // namespace

// ---------------------------------------------------------------------------
// Loading

namespace {

/// The CUBIN for the device's architecture when NVRTC can build it and the
/// driver loads it, else PTX for the newest architecture NVRTC knows up to
/// the device's (the driver JIT-compiles it). One front-end run for both, and
/// for every module the file compiles to (`only`: that one alone).
std::vector<std::shared_ptr<CudaModule>> load_built(Host &host, pipeline::ModuleSource source, int device,
                                                    const ModuleLoadOptions &options, Pass pass = Pass::Forward,
                                                    const std::string &only = {}) {
    // A backward pass belongs to its forward module: it claims no name and is kept by that module.
    const bool backward = pass == Pass::Backward;
    using detail::HostAccess;
    const auto t0 = std::chrono::steady_clock::now();
    const int cc = cuda_compute_capability(device); // checks the driver and the device
    require_driver_for(device, false);
    const std::vector<int> archs = backend::nvrtc_supported_archs();
    const bool cubin_possible = std::find(archs.begin(), archs.end(), cc) != archs.end();
    int ptx_arch = 0;
    for (int a : archs)
        if (a <= cc) ptx_arch = a;

    if (!backward) HostAccess::check_claim(host, source);
    const pipeline::Pipeline &pipeline = HostAccess::pipeline(host);
    detail::PreparedModule prepared = detail::prepare_module(host, std::move(source), options);
    const pipeline::ModuleSource &file = prepared.source;
    std::vector<Target> targets;
    if (cubin_possible) targets.push_back(Target::cuda_cubin(cc));
    if (ptx_arch) targets.push_back(Target::cuda_ptx(ptx_arch));
    if (targets.empty())
        throw backend::BackendError("cuda:" + std::to_string(device) + " (sm_" + std::to_string(cc) + "): " +
                                    backend::nvrtc_version() + " has no architecture up to this one to compile for");

    std::vector<std::shared_ptr<CudaModule>> out;
    for (const pipeline::CheckedModule &checked : prepared.modules) {
        const std::string &name = checked.source.name;
        if (!only.empty() && name != only) continue;
        const std::vector<pipeline::GeneratedModule> generated =
            pipeline.generate(checked, prepared.options, targets, options, pass);
        std::vector<std::string> hashes;
        for (const pipeline::GeneratedModule &g : generated) hashes.push_back(g.hash);
        // An unchanged module is the loaded one.
        if (!backward)
            if (std::shared_ptr<CudaModule> kept = HostAccess::find_cuda(host, name, device, hashes)) {
                out.push_back(std::move(kept));
                continue;
            }

        auto realize_and_load = [&](const pipeline::GeneratedModule &g) {
            return CudaModule::load(image_of(pipeline.realize(g), device, file.display_name(), t0, host.logger()));
        };
        std::string cubin_error;
        std::shared_ptr<CudaModule> module;
        if (cubin_possible) {
            try {
                module = realize_and_load(generated.front());
            } catch (const CudaDriverError &e) {
                cubin_error = e.what();
            }
        } else {
            cubin_error = backend::nvrtc_version() + " cannot compile for sm_" + std::to_string(cc);
        }
        if (!module) {
            if (ptx_arch == 0)
                throw backend::BackendError("cuda:" + std::to_string(device) + " (sm_" + std::to_string(cc) + "): " +
                                            cubin_error + ", and " + backend::nvrtc_version() +
                                            " has no older architecture to compile PTX for");
            require_driver_for(device, true, cubin_error + "; ");
            try {
                module = realize_and_load(generated.back());
            } catch (const CudaDriverError &e) {
                throw CudaDriverError(e.call(), e.result(),
                                      "module '" + name + "' on cuda:" + std::to_string(device) +
                                          ": the CUBIN did not load (" + cubin_error + ") and the PTX did not either: " +
                                          e.what());
            }
        }
        out.push_back(backward ? std::move(module) : HostAccess::keep_cuda(host, file, std::move(module)));
    }
    if (out.empty()) throw InternalError("module '" + file.name + "' compiles to no module named '" + only + "'");
    return out;
}

/// The one CUDA module a file compiles to, for the APIs that hand out one:
/// a file with module="unique" kernels compiles to several.
CudaModule &only_module(const std::vector<std::shared_ptr<CudaModule>> &modules, const std::string &file) {
    if (modules.size() == 1 && modules.front()->name() == file) return *modules.front();
    std::string names;
    for (const auto &m : modules) names += (names.empty() ? "" : ", ") + m->name();
    throw UserError("module '" + file + "' has module=\"unique\" kernels, so it compiles to several CUDA modules (" +
                    names + "); load it with Host::load_module and a CUDA device in ModuleLoadOptions, which offers "
                    "the kernels of all of them");
}

/// An AOT artifact from `dir`; the pipeline generates (compiles nothing) for
/// the kernel list and the hash of the target found.
std::shared_ptr<CudaModule> load_from_directory(Host &host, pipeline::ModuleSource source, const fs::path &dir, int device,
                                                const ModuleLoadOptions &options) {
    using detail::HostAccess;
    const auto t0 = std::chrono::steady_clock::now();
    const int cc = cuda_compute_capability(device); // checks the driver and the device
    HostAccess::check_claim(host, source);
    const fs::path path = find_aot_artifact(dir, source.name, cc); // UserError listing every path tried
    const Target target = Target::parse(path.stem().extension().string().substr(1));
    // Before the driver sees it: a driver older than NVRTC answers a PTX with
    // a bare CUDA_ERROR_UNSUPPORTED_PTX_VERSION.
    require_driver_for(device, target.output == Target::Output::Ptx, "cannot load " + path.string() + ": ");
    const std::string origin = source.display_name();
    const pipeline::ModuleSource claimed = source;
    const pipeline::Artifact artifact = detail::read_aot_artifact(host, std::move(source), options, target, path, dir);
    std::shared_ptr<CudaModule> module;
    try {
        CudaImage image = image_of(artifact, device, origin, t0, host.logger());
        image.kernel_signatures = codegen::kernel_signature_digest(artifact.kernels);
        module = CudaModule::load(image);
    } catch (const CudaDriverError &e) {
        throw CudaDriverError(e.call(), e.result(),
                              "module '" + artifact.module + "' on cuda:" + std::to_string(device) + " from " +
                                  path.string() + ": " + e.what());
    }
    return HostAccess::keep_cuda(host, claimed, std::move(module));
}

} // namespace

std::vector<std::shared_ptr<CudaModule>> detail::load_cuda(Host &host, pipeline::ModuleSource source, int device,
                                                           const ModuleLoadOptions &options, Pass pass,
                                                           const std::string &only) {
    return load_built(host, std::move(source), device, options, pass, only);
}

CudaModule &load_cuda_module(Host &host, const fs::path &file, int device, ModuleLoadOptions options) {
    std::string name = options.name;
    pipeline::ModuleSource source = pipeline::ModuleSource::from_file(file, std::move(name));
    const std::string module = source.name;
    return only_module(load_built(host, std::move(source), device, options), module);
}

std::shared_ptr<CudaModule> detail::load_cuda_aot(Host &host, const pipeline::ModuleSource &source, const fs::path &dir,
                                                  int device, const ModuleLoadOptions &options) {
    return load_from_directory(host, source, dir, device, options);
}

} // namespace weft
