// The build pipeline: the one way from kernel source to artifacts, for JIT
// loads and AOT builds, CPU and CUDA alike.
//
//   ModuleSource --check--> CheckedModule (parsed, type-checked, lowered: once per load)
//                --generate(targets)--> GeneratedModule per target (source per backend, module hash)
//                --realize--> Artifact (from the cache, else compiled and stored)
//
// Module identity is content: the hash covers the module's name, the text
// generated from its source, its resolved build options, codegen options,
// target, referenced plugin contracts, weft's runtime headers and the
// toolchain, and never the path the source was read from. Generated text
// names its file only through codegen::source_file_macro; the compile defines
// that macro to the real path, so compiler diagnostics still name the file
// the user can open.
//
// This layer knows no Host: the module's resolved build options come in as a
// value, the registry and the cache by reference.
#pragma once

#include "weft/build/build_options.hpp"
#include "weft/cache/cache.hpp"
#include "weft/cache/cache_counters.hpp"
#include "weft/cache/remote_cache.hpp"
#include "weft/build/target.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/kernel/ir.hpp"
#include "weft/pipeline/load_options.hpp"
#include "weft/registry/registry.hpp"
#include "weft/support/log.hpp"

#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace weft::pipeline {

/// A kernel module's source text and the name it is known by.
struct ModuleSource {
    std::string name; // the module's identity (with the text and options)
    std::string text;
    /// Where the text was read from, as given. Diagnostics and #line markers
    /// name it; the module hash never sees it. Empty: "<name>.py".
    std::filesystem::path origin;

    /// Reads `file` (a regular file of bounded size; UserError naming it
    /// otherwise). `name` empty: the file's stem.
    static ModuleSource from_file(const std::filesystem::path &file, std::string name = {});
    /// Source text without a file: diagnostics name "<name>.py".
    static ModuleSource from_text(std::string name, std::string text);
    /// What diagnostics call the file: origin, or "<name>.py".
    std::string display_name() const;
};

/// A module after the front end: checked, lowered, named.
struct CheckedModule {
    ModuleSource source;
    kernel::ir::Module ir;
    /// The plugins that own the external builtins and native types the module
    /// references (unordered; a module's default plugin list).
    std::vector<std::string> referenced_owners() const;
};

/// The modules `module` compiles to, each generated, hashed, compiled and
/// cached on its own: the module itself, or, when it has module="unique"
/// kernels, the file's module (unless only unique kernels are left) and one
/// module per unique kernel, named "<module>.<kernel>" (see
/// kernel::split_unique_kernels). Every load and build goes through it.
std::vector<CheckedModule> split_unique_kernels(CheckedModule module);

/// The identity of what a file loads as: the hash of its one compiled module,
/// else a digest of its modules' hashes in order.
std::string combined_hash(const std::vector<std::string> &hashes);

/// One target of a module: the generated source and its hash; nothing compiled.
struct GeneratedModule {
    std::string module;
    Target target;
    std::string hash; // full-width module hash for this target
    /// What every compile unit's cache key starts from (codegen::CompileUnit):
    /// the module hash's inputs short of the generated text.
    std::string unit_context;
    codegen::GeneratedSource source;
    std::string origin; // the file name #line markers resolve to (the define, outside the hash)
    ModuleLoadOptions options;
    std::vector<std::filesystem::path> include_dirs; // the module's resolved include dirs for this backend
    bool preamble_includes_headers = false;          // a CUDA preamble with #include (NVRTC PCH pays off)
    /// CPU: which copies of the kernels this compile holds (codegen::strided_macro):
    /// a JIT load compiles the dense ones, a kernel's strided copy is compiled
    /// when a launch first needs it, AOT builds compile the whole module.
    int strided = codegen::strided_dense_only;
};

/// `g` as the compile of other copies of its kernels: codegen::strided_whole
/// (every copy and each kernel's full entry, for AOT) or a kernel's
/// strided_section (its strided copy alone, linked into the module's JIT code).
/// The hash is derived from the module's, so each variant is a cache entry
/// of its own while the module hash stays the module's identity.
GeneratedModule strided_variant(const GeneratedModule &g, int strided);

/// A compiled module for one target.
struct Artifact {
    std::string module;
    Target target;
    std::string hash;
    std::vector<codegen::KernelEntry> kernels;
    std::string bytes;                              // the object, CUBIN or PTX
    std::filesystem::path path;                     // in the artifact cache; empty when it could not be stored
    std::filesystem::path generated_source_path;   // the source compiled, for reference in diagnostics
    bool from_cache = false;  // local or remote: nothing was compiled
    bool from_remote = false; // fetched from the remote cache (and now in the local one)
};

using Pass = weft::Pass;

/// What a warm load needs instead of the front end, stored under the
/// module's content key (see Pipeline::content_key).
struct WarmRecord {
    std::string module; // the file's module name, as loaded
    Target target;
    /// What the file compiles to (split_unique_kernels), in order.
    struct Compiled {
        std::string module;
        std::string hash; // the full module hash: the artifact's identity, verified by the cache as on every hit
        std::vector<codegen::KernelEntry> kernels;
    };
    std::vector<Compiled> modules;
    /// The plugins the module's build options came from: with
    /// ModuleLoadOptions::plugins unset, the owners of what it references (a
    /// set: the load orders them by the host's load order, as the front-end
    /// path does); otherwise that list as given.
    std::vector<std::string> plugins;
    std::string options_digest; // resolved_options_digest() of the options it was built with

    std::string serialize() const;
    /// Throws UserError when `text` is not a well-formed record (kernel
    /// parameter types are rebuilt and checked against their recorded codes).
    static WarmRecord parse(const std::string &text);
};

class Pipeline {
public:
    /// `cache` (and `remote`, when given) must outlive the pipeline; the
    /// cache's root also holds the runtime headers, precompiled headers and
    /// generated sources. `remote` is the shared tier behind the local cache.
    /// `prebuilt`, when not empty, is a directory prebuild_runtime_pch wrote
    /// (an installation's, next to weft's code): a CPU compile uses its
    /// precompiled runtime header when it is this weft's, instead of building
    /// one in the cache.
    Pipeline(const Registry &registry, const ArtifactCache &cache, const Logger &logger,
             const RemoteCache *remote = nullptr, std::filesystem::path prebuilt = {});
    /// As above, with the prebuilt directory found by `find_prebuilt` when a
    /// compile first needs one: finding an installation's (canonical paths)
    /// was a tenth of a warm load, which compiles nothing.
    Pipeline(const Registry &registry, const ArtifactCache &cache, const Logger &logger, const RemoteCache *remote,
             std::function<std::filesystem::path()> find_prebuilt);

    /// Parses, checks and lowers. Throws kernel::KernelSourceError with
    /// file:line:col diagnostics; the registry is only read.
    CheckedModule check(ModuleSource source) const;

    /// Generates the source for each target (codegen runs once per backend)
    /// and its module hash. The module options its source sets
    /// (wp.set_module_options for the file's module, module_options= for a
    /// unique kernel's: debug, fast_math, opt level, fmad, line info,
    /// enable_backward) override `load`'s, as Warp's module options override
    /// its global configuration. Throws UserError for a
    /// kernel a backend cannot compile, naming it.
    std::vector<GeneratedModule> generate(const CheckedModule &module, const ResolvedBuildOptions &options,
                                          const std::vector<Target> &targets, const ModuleLoadOptions &load,
                                          Pass pass = Pass::Forward) const;

    /// The compiled module `name` of `source` (one of those
    /// split_unique_kernels makes) checked and generated again for `targets`
    /// with the build options it was loaded with: a pass of a loaded module
    /// built after the load (its backward pass, a kernel's strided copy). A
    /// source that no longer compiles to `name` is a UserError saying so.
    std::vector<GeneratedModule> regenerate(const ModuleSource &source, const std::string &name,
                                            const ResolvedBuildOptions &options, const std::vector<Target> &targets,
                                            const ModuleLoadOptions &load, Pass pass) const;

    /// The artifact: verified from the local cache, else fetched from the
    /// remote one (verified, then stored locally), else compiled (Clang in process
    /// or NVRTC) and stored. One routine for every path: a precompiled header
    /// that does not fit is rebuilt once, and a compile error keeps the
    /// compiler's diagnostics (backend::CompileError / CudaCompileError) and
    /// names the module, the target and the generated source.
    Artifact realize(const GeneratedModule &generated) const;
    /// realize() of several modules (a file's unique-kernel modules) at once,
    /// on up to the hardware's concurrency of threads, in order; a failure is
    /// the first failing module's in that order.
    std::vector<Artifact> realize_all(const std::vector<GeneratedModule> &modules) const;

    /// generate + realize for each target, in order: complete artifacts (a
    /// CPU object holds every copy of every kernel: strided_whole).
    std::vector<Artifact> build(const CheckedModule &module, const ResolvedBuildOptions &options,
                                const std::vector<Target> &targets, const ModuleLoadOptions &load,
                                Pass pass = Pass::Forward) const;

    /// The content key of a load: SHA-256 over what decides the module's
    /// generated code short of running the front end: weft's version and
    /// build identity, the runtime-header digest, the toolchain identity, the
    /// target, the registry's contract digest (every plugin's and the
    /// application's registrations), the module's name and source text, the
    /// load options, and the plugin list when one is given. The resolved build
    /// options (plugin options, preambles, dependency contents) are not in it:
    /// the record carries their digest and the load compares it. "" when this
    /// process has no build identity (warm records are then not used).
    std::string content_key(const ModuleSource &source, const Target &target, const ModuleLoadOptions &load,
                            Pass pass = Pass::Forward) const;
    /// The record under `key` for `module` and one of `targets` (a CUDA
    /// device's CUBIN or PTX), or nullopt: absent, damaged (a miss; the next
    /// remember() replaces it) or for another module.
    std::optional<WarmRecord> find_warm(const std::string &key, const std::string &module,
                                        const std::vector<Target> &targets) const;
    /// Stores `record` under `key`; a cache that cannot be written only warns (once).
    void remember(const std::string &key, const WarmRecord &record) const;
    /// The artifacts a warm record names, in its order, each verified by the
    /// cache (counted as local hits), or nullopt when one is missing (a miss
    /// is not counted: the full path follows).
    std::optional<std::vector<Artifact>> realize_warm(const WarmRecord &record) const;

    const ArtifactCache &cache() const { return cache_; }
    const RemoteCache *remote() const { return remote_; }
    /// What realize() did so far: local hits and misses, compiles, and the remote tier's counters.
    CacheCounters counters() const;

private:
    const Registry &registry_;
    const ArtifactCache &cache_;
    const Logger &logger_;
    const RemoteCache *remote_;
    std::function<std::filesystem::path()> find_prebuilt_;
    mutable std::once_flag prebuilt_found_;
    mutable std::filesystem::path prebuilt_; // once prebuilt_found_
    const std::filesystem::path &prebuilt() const;
    mutable std::atomic<std::uint64_t> local_hits_{0}, warm_hits_{0}, local_misses_{0}, compiles_{0};
    mutable std::atomic<std::uint64_t> unit_hits_{0}, unit_compiles_{0};
    mutable std::atomic<bool> uncached_warned_{false};
    /// A write under the cache root failed: warned once, and the load goes on in memory.
    void uncached(const std::string &why) const;
};

/// Checks what the compile keeps beside the cache entries: the materialized
/// runtime headers (against the ones compiled into weft) and each precompiled
/// runtime header (against the digest recorded when it was built). With
/// `repair`, headers that differ are rewritten and a PCH that does not match
/// is removed (the next compile builds it again). Part of `weft cache verify`.
std::vector<CacheFinding> verify_compile_files(const ArtifactCache &cache, bool repair);

/// Writes the runtime headers and their precompiled header for CPU compiles
/// with `load`'s flags under `dir`, laid out as in a cache root
/// (runtime-headers/, pch/), and returns the PCH's path. An installation does
/// this once (`weft cache prebuild`, run by the build), so that a process's
/// first compile does not build the PCH (Pipeline's `prebuilt`).
std::filesystem::path prebuild_runtime_pch(const std::filesystem::path &dir, const ModuleLoadOptions &load,
                                           const Logger &logger);

} // namespace weft::pipeline
