// weft::Host owns a registry and the plugins loaded into it. Two hosts in one
// process are independent. Destroying a host drops its registrations, then
// unloads its plugins (last loaded first).
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/cache/cache.hpp"
#include "weft/cache/cache_counters.hpp"
#include "weft/cache/remote_cache.hpp"
#include "weft/host/object.hpp"
#include "weft/build/module.hpp"
#include "weft/modules/compiled_module.hpp"
#include "weft/kernel/diagnostics.hpp" // KernelSourceError: what load_module throws for bad source
#include "weft/manifest/manifest.hpp"
#include "weft/registry/registry.hpp"
#include "weft/runtime/thread_pool.hpp"
#include "weft/support/log.hpp"
#include "weft/trust/trust_policy.hpp"

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

namespace pipeline {
struct ModuleSource;
}
namespace detail {
struct HostAccess;
}

struct HostOptions {
    /// Which plugins this host loads (weft/trust/plugin_trust.hpp): any (the
    /// default), allow-list or signed. Under allow-list and signed, a plugin's
    /// manifest and library are read once, checked, and the library is loaded
    /// from a sealed in-memory copy of the checked bytes, so a file replaced
    /// or rewritten after the check is never run; a refused plugin is never
    /// opened. The allow-list file and the trusted keys are read when the
    /// host is constructed (UserError when they cannot be).
    trust::TrustPolicy plugin_trust;
    /// Append WEFT_PLUGIN_PATH (':'-separated directories) to the search path,
    /// then the default directories (weft/host/search_path.hpp: the per-user
    /// one, then the installation's; WEFT_PLUGIN_SYSTEM_PATH replaces them).
    bool use_environment = true;
    std::vector<std::filesystem::path> search_path;
    LogSink log_sink;           // empty: stderr
    std::string log_categories; // empty: WEFT_DEBUG
    /// Register weft's core builtins (when the registry is first used for builtins).
    bool core_builtins = true;
    /// Artifact cache root; empty: WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft, else ~/.cache/weft.
    std::filesystem::path cache_dir;
    /// The prebuilt runtime headers and precompiled header a CPU compile uses
    /// before building its own in the cache (`weft cache prebuild`); unset:
    /// the installation's (installed_prebuilt_dir(), which the build writes);
    /// an empty path: none, every cache builds its own.
    std::optional<std::filesystem::path> prebuilt_dir;
    /// The shared artifact cache behind the local one (weft/cache/remote_cache.hpp);
    /// url empty: WEFT_REMOTE_CACHE when use_environment (and not setuid), else none.
    RemoteCacheOptions remote_cache;
    /// Threads CPU launches use; 0: one per hardware thread.
    unsigned threads = 0;
    /// No "Module <name> <hash> load on device 'cpu' took N ms" line on stderr.
    bool quiet = false;
    /// Keep each CPU module also as a shared object in the cache (linked in
    /// the background by the system linker, through the clang driver), and
    /// map it with dlopen when a later load finds it: a warm load in a new
    /// process then neither creates the JIT nor links. Off: every load links
    /// the module's object into the JIT.
    bool cpu_shared_objects = true;
    /// Test-only fault injection: called with "plugin-verified" once a
    /// plugin's bytes passed the trust policy, before its library is opened.
    std::function<void(std::string_view point)> fault_hook;
};

/// Reads a weft configuration file (TOML) into `options`; what the file does
/// not set stays as it is. Relative paths in it are relative to the file.
///   [plugins] trust = "any" | "allow-list" | "signed", trusted_keys = DIR,
///             allow_list = FILE, allow = ["<digest>", ...]
///   [cache]   dir = DIR, remote = URL, remote_read_only = BOOL,
///             remote_prefix = TEXT, remote_password_env = NAME, remote_timeout_ms = N,
///             remote_backoff_ms = N, remote_max_artifact_bytes = N,
///             remote_require_signature = BOOL, remote_trusted_keys = DIR, remote_signing_key = FILE
/// Throws UserError naming the file, the line and the key.
void apply_config_file(HostOptions &options, const std::filesystem::path &file);

/// A plugin whose registrations are committed to a host's registry.
struct LoadedPlugin {
    PluginManifest manifest;
    unsigned abi_version = 0;
    std::string sdk_version;
    /// What it registered, in call order: the host registry's records (valid
    /// while the host keeps this plugin loaded).
    OverloadList builtins;
    std::vector<NativeTypeInfo> native_types;  // what it registered, in call order (copies)
    std::vector<ModuleBuildOptions> build_options; // one per add_build_options call
    std::vector<ObjectTypeInfo> object_types;      // weft_register_object_type, in call order
    /// Loaded under the `signed` policy: the file name of the trusted key that signed it.
    std::string signed_by;
    /// Loaded under a trust policy: the files of its directory as checked.
    /// A build that uses the plugin compares the directory with them.
    std::optional<trust::VerifiedDirectory> verified_files;
    const std::string &name() const { return manifest.name; }
};

/// Why one plugin did not load.
struct PluginFailure {
    std::string plugin;          // manifest name, or the path when no manifest could be read
    std::filesystem::path where; // manifest or library path
    std::string message;         // complete, starts with "plugin 'name'"
};

struct LoadReport {
    std::vector<const LoadedPlugin *> loaded; // in load order, requirements first
    std::vector<PluginFailure> failures;      // sorted by plugin name
    bool ok() const { return failures.empty(); }
};

/// Manifests found on the search path; no library is opened.
struct Discovery {
    std::vector<PluginManifest> plugins; // sorted by name; first on the path wins
    std::vector<std::string> errors;     // unreadable manifests, shadowed duplicates
    // Not errors: a plugin in a default directory (default_plugin_search_path:
    // the per-user or installed plugins) overridden by one earlier on the path,
    // which is what those directories are for (as GStreamer's user registry).
    std::vector<std::string> notes;
};

class Host {
public:
    explicit Host(HostOptions options = {});
    ~Host();
    Host(const Host &) = delete;
    Host &operator=(const Host &) = delete;

    void add_search_path(const std::filesystem::path &directory);
    const std::vector<std::filesystem::path> &search_path() const;

    /// Reads every manifest on the search path (DIR/plugin.toml and DIR/*/plugin.toml).
    Discovery discover() const;

    /// Loads a plugin (a manifest, a directory holding plugin.toml, or the
    /// library beside it) and, first, its requirements. Throws PluginError;
    /// on failure nothing of the failed plugin remains.
    const LoadedPlugin &load(const std::filesystem::path &path);
    /// Loads a plugin found on the search path by name.
    const LoadedPlugin &load_by_name(std::string_view name);
    /// Loads several plugins in dependency order (ties by name, so the result
    /// does not depend on argument order), continuing past failures.
    /// `available` plugins satisfy requirements (before the search path) but
    /// load only when something requires them.
    LoadReport load_all(const std::vector<std::filesystem::path> &paths,
                        const std::vector<std::filesystem::path> &available = {});

    const LoadedPlugin *plugin(std::string_view name) const;
    /// Plugins on the search path that this host has not loaded and whose
    /// builtin prefixes (their manifests' [prefixes] builtins) `function`
    /// starts with ("wp." allowed): what to load when a kernel calls an
    /// unknown function. Reads manifests only; no library is opened.
    std::vector<PluginManifest> unloaded_plugins_for(std::string_view function) const;
    std::vector<const LoadedPlugin *> plugins() const; // load order

    /// The module of that name, created on first use.
    ModuleSettings &module(std::string_view name);
    const ModuleSettings *find_module(std::string_view name) const;
    /// Applies build options to a module (by name or object): the one invalidation point.
    void set_module_options(std::string_view module, ModuleBuildOptions options);
    void set_module_options(ModuleSettings &module, ModuleBuildOptions options);
    /// Sets the plugins a module uses, by name, taking each one's build options
    /// as they are now. Throws UserError when one is not loaded.
    void set_module_plugins(ModuleSettings &module, const std::vector<std::string> &plugins);

    /// Host objects (weft/host/object.hpp): the object type of that name
    /// among the loaded plugins', or nullptr; all of them in load order.
    const ObjectTypeInfo *object_type(std::string_view name) const;
    std::vector<const ObjectTypeInfo *> object_types() const;
    /// Builds an object of type `type` on `device` from named arguments, e.g.
    ///   host.create("mesh", {{"points", points}, {"indices", indices}})
    /// Every argument is checked against the type's declared parameters
    /// (names, kinds, array dtype, ndim and device) before plugin code runs.
    /// Throws UserError naming plugin, object type and argument; nothing is
    /// left allocated then.
    Object create(std::string_view type, const ObjectArgs &args, Device device = Device::cpu());
    /// The objects of this host alive now and the memory they hold.
    ObjectStats object_stats() const;

    /// The artifact cache (its root is resolved on first use).
    const ArtifactCache &cache() const;
    /// The shared tier, or nullptr when none is configured.
    const RemoteCache *remote_cache() const;
    /// What this host's loads took from each cache tier and compiled. Added
    /// to the local cache's stats.json when the host is destroyed.
    CacheCounters cache_counters() const;

    /// Checks, compiles (or takes from the cache) and loads a kernel module
    /// on options.device (the CPU by default; a CUDA device gets a CUBIN for
    /// its architecture, else PTX), through the build pipeline
    /// (weft/pipeline/pipeline.hpp). The same calls then launch it on either.
    /// The module is named options.name, else after the file's stem; its hash
    /// depends on its name, source text and options, never on the path, so
    /// the same file at any path hits the same cache entry. Loading an
    /// unchanged module again returns the loaded one; a changed one replaces
    /// it in this host (handles to the old one keep working). Throws
    /// KernelSourceError (file:line:col diagnostics), UserError (build options,
    /// plugins; another file already loaded under this name, naming both) or
    /// a compile error naming the .py or preamble line; the host stays usable.
    CompiledModule load_module(const std::filesystem::path &file, ModuleLoadOptions options = {});
    /// The same for source text; `name` names the module (and its "<name>.py" in diagnostics).
    CompiledModule load_module_source(const std::string &name, const std::string &source,
                                      ModuleLoadOptions options = {});
    /// The module of that name loaded on `device`, if any.
    std::optional<CompiledModule> loaded_module(std::string_view name, Device device = Device::cpu()) const;
    /// Forgets the module of that name (CPU and CUDA): a later load builds
    /// it anew, and the name may then come from another file. Handles and
    /// kernels still held keep their code loaded until they are dropped.
    /// Returns false when no module of that name is loaded.
    bool unload_module(std::string_view name);
    /// Compiles a kernel module ahead of time for each target, in order (cpu,
    /// cuda-sm_XX-cubin, cuda-compute_XX-ptx), and returns the artifact paths in
    /// the same order: in the artifact cache, or, with `out_dir`, copies named
    /// <module>.<target>.<o|cubin|ptx> there (see find_aot_artifact; a CPU
    /// module of several compile units is an archive of their objects, <module>.cpu.a). Targets
    /// already cached compile nothing; files that are already there and equal
    /// are left as they are (their mtimes do not change). Nothing is loaded.
    /// Pass::Backward builds the kernels' backward entries instead (copies
    /// named <module>-backward.<target>.<ext>). A file with module="unique"
    /// kernels compiles to several modules (the file's unless it has only
    /// unique kernels, then <module>.<kernel> for each): the paths are then
    /// each module's, targets in order, the file's module first.
    std::vector<std::filesystem::path> compile_aot(const std::filesystem::path &file, const std::vector<Target> &targets,
                                                   ModuleLoadOptions options = {},
                                                   const std::filesystem::path &out_dir = {},
                                                   Pass pass = Pass::Forward);
    /// Loads module `file` onto options.device from an AOT directory that
    /// compile_aot (or `weft build --output-dir`) filled, compiling nothing:
    /// on the CPU <module>.cpu.o (or .cpu.a, a module of several compile units),
    /// on a CUDA device the CUBIN for its compute capability, else the newest
    /// PTX not newer than it (find_aot_artifact). `file` (with the host's
    /// plugins loaded) gives the kernel signatures; an artifact built from
    /// another version of it is refused, naming the kernel. The module is this
    /// host's like a loaded one (loaded_module, unload_module). A CPU module
    /// loaded this way has no backward pass and runs no strided copies (both
    /// would compile). Throws UserError listing every path tried when no
    /// artifact fits, and BackendError "CUDA driver not available: ..." for a
    /// CUDA device without a driver.
    CompiledModule load_aot(const std::filesystem::path &file, const std::filesystem::path &dir,
                            ModuleLoadOptions options = {});
    /// The pool CPU launches run on (sized by HostOptions::threads).
    ThreadPool &thread_pool();

    const Registry &registry() const;
    /// For embedding applications that register their own builtins (owner names are theirs).
    Registry &registry();
    const Logger &logger() const;

    struct Impl;

private:
    CompiledModule load(pipeline::ModuleSource source, ModuleLoadOptions options);
    // What every path of the host (CPU and CUDA loads, AOT) shares: the
    // pipeline, the name claims, the module table (host.cpp, modules.cpp).
    friend struct detail::HostAccess;
    bool quiet() const;
    std::unique_ptr<Impl> impl_;
};

/// The artifact a device of compute capability `arch` (e.g. 90) loads from an
/// AOT directory: <module>.cuda-sm_<arch>-cubin.cubin, else the PTX of the
/// highest compute_XX <= arch (the driver JIT-compiles PTX forward). Throws
/// UserError listing every path it tried when none fits.
std::filesystem::path find_aot_artifact(const std::filesystem::path &dir, const std::string &module, int arch);

/// Notes for a kernel check's diagnostics: one for each unknown function whose
/// name starts with a builtin prefix of a plugin on the host's search path
/// that it has not loaded (Host::unloaded_plugins_for), naming that plugin, at
/// the call's place. Host::load_module adds them to its KernelSourceError.
std::vector<kernel::Diagnostic> plugin_notes(const Host &host, const std::vector<kernel::Diagnostic> &diagnostics);

/// Finds the manifest for PATH: PATH itself (*.toml), PATH/plugin.toml, or
/// the plugin.toml beside a library file. Throws UserError.
std::filesystem::path locate_manifest(const std::filesystem::path &path);

} // namespace weft
