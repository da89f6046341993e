// What the host's loading paths (CPU modules, CUDA modules, AOT builds)
// share: the pipeline, the module name claims and the table of loaded
// modules. Implemented in host.cpp, where Host::Impl lives.
#pragma once

#include "weft/host/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/pipeline/pipeline.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

class CudaModule;

namespace detail {

/// A module after the front end, with the plugins and build options it
/// builds with: what every target starts from.
struct PreparedModule {
    pipeline::CheckedModule checked;
    ResolvedBuildOptions options;
};

struct HostAccess {
    static const pipeline::Pipeline &pipeline(const Host &host);
    static std::shared_ptr<ThreadPool> pool(Host &host);

    /// Throws UserError naming both files when another file (or source text)
    /// already holds `source.name` in this host.
    static void check_claim(const Host &host, const pipeline::ModuleSource &source);

    /// The loaded CPU module of that name (nullptr: none).
    static std::shared_ptr<CompiledModule::Impl> find_cpu(const Host &host, std::string_view name);
    /// Makes `module` the loaded CPU module of its name, claiming the name for `source`.
    static void put_cpu(Host &host, const pipeline::ModuleSource &source, std::shared_ptr<CompiledModule::Impl> module);

    /// A CUDA module this host keeps with that name, device and one of `hashes`.
    static CudaModule *find_cuda(Host &host, std::string_view name, int device, const std::vector<std::string> &hashes);
    /// Keeps `module` until unload_module(name), release_cuda_modules or the host's end.
    static CudaModule &keep_cuda(Host &host, const pipeline::ModuleSource &source, std::unique_ptr<CudaModule> module);
    /// Unloads every CUDA module the host keeps (release_cuda_modules).
    static void release_cuda(Host &host);
};

/// Check + lower, then the module's plugins (options.plugins, else those the
/// module references, in load order) and its resolved build options.
PreparedModule prepare_module(Host &host, pipeline::ModuleSource source, const ModuleLoadOptions &options);

} // namespace detail
} // namespace weft
