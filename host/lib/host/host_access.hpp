// What the host's loading paths (JIT loads on every device, AOT builds)
// share: the pipeline, the module name claims and the table of loaded
// modules. Implemented in host.cpp, where Host::Impl lives.
#pragma once

#include "modules/loaded_module.hpp"
#include "weft/host/host.hpp"
#include "weft/pipeline/pipeline.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

class SharedObjects;

namespace detail {

/// A module after the front end, with the plugins and build options it
/// builds with: what every target starts from.
struct PreparedModule {
    pipeline::ModuleSource source; // the file's
    /// What it compiles to (pipeline::split_unique_kernels), all with the
    /// file's plugins and build options.
    std::vector<pipeline::CheckedModule> modules;
    ResolvedBuildOptions options;
    std::vector<std::string> plugins; // the module's plugins, in load order
    std::vector<std::string> referenced_owners; // of the whole file (CheckedModule::referenced_owners)

    /// The compiled module of that name; InternalError when there is none.
    const pipeline::CheckedModule &module(const std::string &name) const;
};

struct HostAccess {
    static const pipeline::Pipeline &pipeline(const Host &host);
    /// The same, for what outlives a load (a loaded module's later passes hold it weakly).
    static std::shared_ptr<const pipeline::Pipeline> pipeline_handle(const Host &host);
    static std::shared_ptr<ThreadPool> pool(Host &host);
    /// The CPU modules the host keeps as shared objects (shared_objects.hpp).
    static SharedObjects &shared_objects(Host &host);
    /// Starts creating the CPU JIT on its thread (CpuJit::prepare), once per
    /// host: a compile about to run needs it once it is done.
    static void prepare_jit(Host &host);

    /// Throws UserError naming both files when another file (or source text)
    /// already holds `source.name` in this host.
    static void check_claim(const Host &host, const pipeline::ModuleSource &source);

    /// The module of that name loaded on `device` (nullptr: none).
    static std::shared_ptr<CompiledModule::Impl> find_loaded(const Host &host, std::string_view name, Device device);
    /// Makes `module` the loaded module of its name on `device`, claiming the name for `source`.
    static void put_loaded(Host &host, const pipeline::ModuleSource &source, Device device,
                           std::shared_ptr<CompiledModule::Impl> module);

};

/// The AOT artifact at `path`, built for `target` from `source`: the pipeline
/// checks and generates the source (compiling nothing) for its kernels and
/// hash; the file's bytes are the artifact (from_cache: nothing compiled). A
/// file of module="unique" kernels (one artifact per module in `dir`) is refused.
pipeline::Artifact read_aot_artifact(Host &host, pipeline::ModuleSource source, const ModuleLoadOptions &options,
                                     const Target &target, const std::filesystem::path &path,
                                     const std::filesystem::path &dir);

/// Check + lower, then the module's plugins (options.plugins, else those the
/// module references, in load order) and its resolved build options.
PreparedModule prepare_module(Host &host, pipeline::ModuleSource source, const ModuleLoadOptions &options);

} // namespace detail
} // namespace weft
