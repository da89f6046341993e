// How the host loads modules, on every device: the front end (or the warm
// record that stands for it) through the pipeline to artifacts, loaded by the
// modules layer (modules/loaded_module.hpp) into the host's one table of
// loaded modules; AOT builds and loads of their artifacts.
#include "host_access.hpp"
#include "modules/loaded_module.hpp"
#include "modules/shared_objects.hpp"
#include "weft/backend/cpu_compiler.hpp"
#include "weft/backend/cuda.hpp"
#include "weft/build/module_hash.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/host/host.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/support/file.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>

namespace weft {

namespace fs = std::filesystem;

namespace detail {

namespace {
/// `e` with a note for each unknown function whose name starts with a builtin
/// prefix that a plugin on the search path owns but this host has not loaded:
/// the usual cause, found from manifests alone (no library is opened).
kernel::KernelSourceError with_plugin_hints(const Host &host, const std::string &file, const kernel::KernelSourceError &e) {
    std::vector<kernel::Diagnostic> diagnostics = e.diagnostics();
    std::string notes;
    for (const kernel::Diagnostic &note : plugin_notes(host, e.diagnostics())) {
        notes += file + ":" + std::to_string(note.location.line) + ":" + std::to_string(note.location.column) +
                 ": note: " + note.message + "\n";
        diagnostics.push_back(note);
    }
    if (notes.empty()) return e;
    std::string formatted = e.what();
    if (!formatted.empty() && formatted.back() != '\n') formatted += '\n';
    return kernel::KernelSourceError(formatted + notes, std::move(diagnostics));
}
} // namespace

PreparedModule prepare_module(Host &host, pipeline::ModuleSource source, const ModuleLoadOptions &options) {
    const std::string file = source.display_name();
    pipeline::CheckedModule checked = [&] {
        try {
            return HostAccess::pipeline(host).check(std::move(source));
        } catch (const kernel::KernelSourceError &e) {
            std::optional<kernel::KernelSourceError> hinted;
            try {
                hinted.emplace(with_plugin_hints(host, file, e));
            } catch (const std::exception &) {
                // Unreadable manifests or the like: the source's own errors stand.
            }
            if (hinted) throw *hinted;
            throw;
        }
    }();
    PreparedModule p;
    p.source = checked.source;
    p.referenced_owners = checked.referenced_owners();
    ModuleSettings &module = host.module(p.source.name);
    if (options.build_options) module.set_build_options(*options.build_options);
    std::vector<std::string> plugins;
    if (options.plugins) {
        plugins = *options.plugins;
    } else {
        for (const LoadedPlugin *plugin : host.plugins()) // load order: requirements first
            if (std::find(p.referenced_owners.begin(), p.referenced_owners.end(), plugin->name()) !=
                p.referenced_owners.end())
                plugins.push_back(plugin->name());
    }
    if (module.plugins() != plugins) host.set_module_plugins(module, plugins);
    p.options = module.resolved_options();
    p.plugins = std::move(plugins);
    p.modules = pipeline::split_unique_kernels(std::move(checked));
    return p;
}

const pipeline::CheckedModule &PreparedModule::module(const std::string &name) const {
    for (const pipeline::CheckedModule &m : modules)
        if (m.source.name == name) return m;
    throw InternalError("module '" + source.name + "' compiles to no module named '" + name + "'");
}

} // namespace detail

pipeline::Artifact detail::read_aot_artifact(Host &host, pipeline::ModuleSource source, const ModuleLoadOptions &options,
                                             const Target &target, const fs::path &path, const fs::path &dir) {
    PreparedModule prepared = prepare_module(host, std::move(source), options);
    if (prepared.modules.size() != 1 || prepared.modules.front().source.name != prepared.source.name)
        throw UserError("module '" + prepared.source.name + "' has module=\"unique\" kernels, each built as a module "
                        "of its own (" + dir.string() + " holds one artifact per module); loading such a file from an "
                        "AOT directory is not supported: load it with Host::load_module");
    const pipeline::GeneratedModule g =
        HostAccess::pipeline(host).generate(prepared.modules.front(), prepared.options, {target}, options).front();
    pipeline::Artifact artifact;
    artifact.module = g.module;
    artifact.target = target;
    artifact.hash = g.hash;
    artifact.bytes = read_input_file(path, std::uintmax_t{1} << 30, "AOT artifact"); // megabytes, never gigabytes
    artifact.path = path;
    artifact.from_cache = true; // nothing compiled
    artifact.kernels = g.source.kernels;
    return artifact;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// What the passes of a loaded module built after its load (its backward
/// pass, a kernel's strided copy) need: the pipeline, not the host. They
/// hold the pipeline weakly: once the host is gone they throw LaunchError.
struct LoadContext {
    std::weak_ptr<const pipeline::Pipeline> pipeline;
    pipeline::ModuleSource source; // the file's
    ResolvedBuildOptions options;  // the build options the module was loaded with
    ModuleLoadOptions load;
    Device device;
    modules::CodeContext code;
    bool quiet = false;

    std::shared_ptr<const pipeline::Pipeline> live_pipeline(const std::string &module) const {
        std::shared_ptr<const pipeline::Pipeline> p = pipeline.lock();
        if (!p) throw LaunchError("module '" + module + "': the Host it was loaded in has been destroyed");
        return p;
    }
};
using Context = std::shared_ptr<const LoadContext>;

/// A kernel's strided copy, from the cache by the module hash it derives
/// from, else compiled from the source generated again as the module was
/// loaded (a warm load never ran the front end): a source or plugin that
/// changed since then no longer makes that module, and says so.
std::function<std::string(int)> strided_builder(const Context &c, const std::string &name, const std::string &hash,
                                                pipeline::Pass pass) {
    if (!c->device.is_cpu()) return {};
    return [c, name, hash, pass](int section) -> std::string {
        const auto p = c->live_pipeline(name);
        const pipeline::GeneratedModule g = p->regenerate(c->source, name, c->options, {Target::cpu()}, c->load, pass).front();
        if (g.hash != hash)
            throw LaunchError("module '" + name + "' " + hash.substr(0, 8) + " needs the strided copy of a kernel (an "
                              "argument is strided in its last dimension), but its source or plugins now make module " +
                              g.hash.substr(0, 8) + ": load the module again");
        return p->realize(pipeline::strided_variant(g, section)).bytes;
    };
}

modules::CodeContext code_context(const Context &c, const std::string &name, const std::string &hash,
                                  pipeline::Pass pass) {
    modules::CodeContext code = c->code;
    code.build_strided = strided_builder(c, name, hash, pass);
    return code;
}

/// The load's fields a loaded compiled module keeps, and its backward pass,
/// built from the same source and options when a gradient is first needed.
std::shared_ptr<CompiledModule::Impl> finish_compiled(const Context &c, std::shared_ptr<CompiledModule::Impl> impl,
                                                      std::chrono::steady_clock::time_point t0, const char *what) {
    impl->source_path = c->source.origin;
    impl->load_ms = ms_since(t0);
    if (std::string_view(what).empty())
        impl->build_backward = [c, name = impl->name] {
            const auto p = c->live_pipeline(name);
            const auto t1 = std::chrono::steady_clock::now();
            const std::vector<pipeline::GeneratedModule> generated = p->regenerate(
                c->source, name, c->options, modules::targets_for(c->device), c->load, pipeline::Pass::Backward);
            return finish_compiled(
                c,
                modules::load_first(*p, generated, c->device,
                                    code_context(c, name, generated.front().hash, pipeline::Pass::Backward)),
                t1, "backward ");
        };
    if (!c->quiet) modules::report_load(*impl, what);
    return impl;
}

/// The warm record of a loaded file: what it compiles to, their hashes and
/// kernels, the plugins and options it was built with. nullopt when a part
/// is not in the cache or the parts were loaded for different targets.
std::optional<pipeline::WarmRecord> warm_record_of(const std::shared_ptr<CompiledModule::Impl> &loaded,
                                                   const std::string &file, std::vector<std::string> plugins,
                                                   std::string options_digest) {
    pipeline::WarmRecord record;
    record.module = file;
    record.target = loaded->target;
    for (const std::shared_ptr<CompiledModule::Impl> &part : modules::parts_of(loaded)) {
        if (part->artifact_path.empty() || part->target != record.target) return std::nullopt;
        pipeline::WarmRecord::Compiled c{part->name, part->hash, {}};
        for (const std::shared_ptr<Kernel::Impl> &k : part->kernels) c.kernels.push_back(k->entry);
        record.modules.push_back(std::move(c));
    }
    record.plugins = std::move(plugins);
    record.options_digest = std::move(options_digest);
    return record;
}

/// A load through the warm record under `key`, or nullopt when there is
/// none or whatever it names does not match (the options resolve differently
/// now, an artifact is gone or damaged, the code does not load): the full
/// path follows. `context` gets the source and resolved options.
std::optional<CompiledModule> load_warm(
    Host &host, const std::string &key, const pipeline::ModuleSource &source, const ModuleLoadOptions &options,
    const std::vector<Target> &targets, LoadContext &context, std::chrono::steady_clock::time_point t0,
    const std::function<std::shared_ptr<CompiledModule::Impl>(std::vector<std::shared_ptr<CompiledModule::Impl>>,
                                                              const pipeline::ModuleSource &)> &finish) {
    using detail::HostAccess;
    const pipeline::Pipeline &pipeline = HostAccess::pipeline(host);
    const Logger &logger = host.logger();
    const double key_ms = ms_since(t0);
    const std::optional<pipeline::WarmRecord> record = pipeline.find_warm(key, source.name, targets);
    if (!record) return std::nullopt;
    const double record_ms = ms_since(t0);
    ModuleSettings &module = host.module(source.name);
    if (options.build_options) module.set_build_options(*options.build_options);
    std::vector<std::string> plugin_list;
    if (options.plugins) {
        plugin_list = *options.plugins;
    } else {
        for (const LoadedPlugin *plugin : host.plugins()) // load order, as prepare_module orders them
            if (std::find(record->plugins.begin(), record->plugins.end(), plugin->name()) != record->plugins.end())
                plugin_list.push_back(plugin->name());
    }
    std::optional<ResolvedBuildOptions> resolved;
    try {
        if (module.plugins() != plugin_list) host.set_module_plugins(module, plugin_list);
        resolved = module.resolved_options();
    } catch (const UserError &) {
        return std::nullopt; // the full path reports it, naming the module
    }
    if (resolved_options_digest(*resolved) != record->options_digest) return std::nullopt;
    std::vector<std::string> hashes;
    for (const pipeline::WarmRecord::Compiled &c : record->modules) hashes.push_back(c.hash);
    if (std::shared_ptr<CompiledModule::Impl> loaded = HostAccess::find_loaded(host, source.name, context.device);
        loaded && loaded->hash == pipeline::combined_hash(hashes))
        return CompiledModule(std::move(loaded));
    const std::optional<std::vector<pipeline::Artifact>> artifacts = pipeline.realize_warm(*record);
    if (!artifacts) return std::nullopt;
    const double read_ms = ms_since(t0);
    context.source = source;
    context.options = std::move(*resolved);
    const Context c = std::make_shared<const LoadContext>(context);
    std::vector<std::shared_ptr<CompiledModule::Impl>> parts;
    try {
        for (const pipeline::Artifact &a : *artifacts)
            parts.push_back(finish_compiled(
                c, modules::load_artifact(a, context.device, code_context(c, a.module, a.hash, pipeline::Pass::Forward)),
                t0, ""));
    } catch (const backend::BackendError &e) {
        logger.log(LogLevel::Warning, "cache",
                   "module '" + source.name + "' " + pipeline::combined_hash(hashes).substr(0, 8) +
                       " from its content-key record does not load (" + e.what() + "); building it through the front end");
        return std::nullopt;
    }
    if (logger.enabled(LogLevel::Debug, "time"))
        logger.log(LogLevel::Debug, "time",
                   "module '" + source.name + "' warm: content key " + std::to_string(key_ms) + " ms, record " +
                       std::to_string(record_ms - key_ms) + " ms, artifacts " + std::to_string(read_ms - record_ms) +
                       " ms, load " + std::to_string(ms_since(t0) - read_ms) + " ms");
    return CompiledModule(finish(std::move(parts), source));
}

} // namespace

CompiledModule Host::load_module(const fs::path &file, ModuleLoadOptions options) {
    std::string name = options.name;
    return load(pipeline::ModuleSource::from_file(file, std::move(name)), std::move(options));
}

CompiledModule Host::load_module_source(const std::string &name, const std::string &source, ModuleLoadOptions options) {
    return load(pipeline::ModuleSource::from_text(options.name.empty() ? name : options.name, source), std::move(options));
}

CompiledModule Host::load(pipeline::ModuleSource source, ModuleLoadOptions options) {
    using detail::HostAccess;
    const auto t0 = std::chrono::steady_clock::now();
    const Device device = options.device;
    HostAccess::check_claim(*this, source);
    const std::vector<Target> targets = modules::targets_for(device); // CUDA: checks the driver and the device
    const std::shared_ptr<const pipeline::Pipeline> handle = HostAccess::pipeline_handle(*this);
    const pipeline::Pipeline &pipeline = *handle;
    auto context = std::make_shared<LoadContext>();
    context->pipeline = handle;
    context->load = options;
    context->device = device;
    context->code.logger = logger();
    context->code.pool = HostAccess::pool(*this);
    context->code.shared = &HostAccess::shared_objects(*this);
    context->code.cache = &pipeline.cache();
    context->code.origin = source.display_name();
    context->quiet = quiet();
    const auto finish = [&](std::vector<std::shared_ptr<CompiledModule::Impl>> parts, const pipeline::ModuleSource &src) {
        std::shared_ptr<CompiledModule::Impl> impl = modules::combine(std::move(parts), src);
        // A file of one compiled module is that module, which may be a loaded one reused: its own time stands.
        if (!impl->modules.empty()) impl->load_ms = ms_since(t0);
        HostAccess::put_loaded(*this, src, device, impl);
        return impl;
    };

    // Warm: the record under the content key names the module hashes, the
    // plugins and the kernels, so the front end does not run.
    const std::string key = pipeline.content_key(source, targets.front(), options);
    if (!key.empty())
        if (std::optional<CompiledModule> warm = load_warm(*this, key, source, options, targets, *context, t0, finish))
            return std::move(*warm);

    // The front end and a compile (or a cache read) come first: the JIT can
    // be created meanwhile.
    if (device.is_cpu()) HostAccess::prepare_jit(*this);
    detail::PreparedModule prepared = detail::prepare_module(*this, std::move(source), options);
    const pipeline::ModuleSource &src = prepared.source;
    context->source = src;
    context->options = prepared.options;
    const Context c = context;
    // Each compiled module of the file, for each of the device's targets.
    std::vector<std::vector<pipeline::GeneratedModule>> generated;
    for (const pipeline::CheckedModule &m : prepared.modules)
        generated.push_back(pipeline.generate(m, prepared.options, targets, options));
    const auto remember = [&](const std::shared_ptr<CompiledModule::Impl> &loaded) {
        if (key.empty()) return;
        if (std::optional<pipeline::WarmRecord> record =
                warm_record_of(loaded, src.name, options.plugins ? *options.plugins : prepared.referenced_owners,
                               resolved_options_digest(prepared.options)))
            pipeline.remember(key, *record);
    };

    // An unchanged compiled module is the loaded one: nothing is read, linked or run again.
    std::vector<std::shared_ptr<CompiledModule::Impl>> parts(generated.size());
    std::vector<pipeline::GeneratedModule> to_realize;
    std::shared_ptr<CompiledModule::Impl> loaded = HostAccess::find_loaded(*this, src.name, device);
    const std::vector<std::shared_ptr<CompiledModule::Impl>> loaded_parts =
        loaded ? modules::parts_of(loaded) : std::vector<std::shared_ptr<CompiledModule::Impl>>{};
    for (std::size_t i = 0; i < generated.size(); ++i) {
        for (const std::shared_ptr<CompiledModule::Impl> &part : loaded_parts)
            for (const pipeline::GeneratedModule &g : generated[i])
                if (part->name == g.module && part->hash == g.hash) parts[i] = part;
        if (!parts[i]) to_realize.push_back(generated[i].front());
    }
    if (loaded && to_realize.empty() && loaded_parts.size() == parts.size()) {
        remember(loaded);
        return CompiledModule(std::move(loaded));
    }

    const double front_ms = ms_since(t0);
    const std::vector<pipeline::Artifact> artifacts = pipeline.realize_all(to_realize);
    const double realized_ms = ms_since(t0);
    for (std::size_t i = 0, next = 0; i < parts.size(); ++i) {
        if (parts[i]) continue;
        const pipeline::Artifact &first = artifacts[next++];
        parts[i] = finish_compiled(
            c,
            modules::load_first(pipeline, generated[i], device,
                                code_context(c, first.module, first.hash, pipeline::Pass::Forward), &first),
            t0, "");
    }
    if (logger().enabled(LogLevel::Debug, "time"))
        logger().log(LogLevel::Debug, "time",
                     "module '" + src.name + "': front end and codegen " + std::to_string(front_ms) +
                         " ms, cache or compile " + std::to_string(realized_ms - front_ms) + " ms, load " +
                         std::to_string(ms_since(t0) - realized_ms) + " ms");
    std::shared_ptr<CompiledModule::Impl> impl = finish(std::move(parts), src);
    remember(impl);
    return CompiledModule(std::move(impl));
}

CompiledModule Host::load_aot(const fs::path &file, const fs::path &dir, ModuleLoadOptions options) {
    using detail::HostAccess;
    const auto t0 = std::chrono::steady_clock::now();
    const Device device = options.device;
    std::string name = options.name;
    pipeline::ModuleSource source = pipeline::ModuleSource::from_file(file, std::move(name));
    const pipeline::ModuleSource src = source; // what the claim records
    HostAccess::check_claim(*this, source);
    fs::path path;
    Target target = Target::cpu();
    if (device.is_cpu()) {
        const fs::path object = dir / (src.name + ".cpu.o"), archive = dir / (src.name + ".cpu.a");
        std::error_code ec;
        path = fs::is_regular_file(object, ec) ? object : archive;
        if (!fs::is_regular_file(path, ec))
            throw UserError("no AOT artifact of module '" + src.name + "' for the CPU; tried:\n  " + object.string() +
                            "\n  " + archive.string());
    } else {
        path = find_aot_artifact(dir, src.name, cuda_compute_capability(device.ordinal)); // lists every path tried
        target = Target::parse(path.stem().extension().string().substr(1));
        // Before the driver sees it: a driver older than NVRTC answers a PTX
        // with a bare CUDA_ERROR_UNSUPPORTED_PTX_VERSION.
        modules::require_driver_for(device.ordinal, target.output == Target::Output::Ptx,
                                    "cannot load " + path.string() + ": ");
    }
    const pipeline::Artifact artifact = detail::read_aot_artifact(*this, std::move(source), options, target, path, dir);
    const auto stale = [&](const std::string &why) {
        return UserError("module '" + artifact.module + "': " + path.string() + " does not hold the kernels of " +
                         src.display_name() + " (" + why + "): it was built from a different version of the "
                         "source; build it again (Host::compile_aot, weft build --output-dir)");
    };
    // The artifact's own code: never a shared object the cache keeps for the
    // hash the source makes now (another build of it, perhaps).
    modules::CodeContext code;
    code.logger = logger();
    code.pool = HostAccess::pool(*this);
    code.origin = src.display_name();
    std::shared_ptr<CompiledModule::Impl> impl;
    std::string foreign; // why the artifact's code is not the source's
    try {
        impl = modules::load_artifact(artifact, device, code);
        // The same entry symbols can hold other signatures (a kernel's parameter types changed).
        if (impl->code->kernel_signatures() != codegen::kernel_signature_digest(artifact.kernels))
            foreign = "its kernel signatures differ from the source's";
    } catch (const backend::CudaDriverError &e) {
        throw backend::CudaDriverError(e.call(), e.result(),
                                       "module '" + artifact.module + "' on " + device.name() + " from " +
                                           path.string() + ": " + e.what());
    } catch (const backend::BackendError &e) {
        if (!device.is_cpu()) throw;
        foreign = e.what(); // an entry or the signature digest is missing from the object
    } catch (const UserError &e) {
        foreign = e.what(); // a kernel's entry is missing from the CUBIN or PTX
    }
    if (!foreign.empty()) throw stale(foreign);
    impl->source_path = src.origin;
    impl->load_ms = ms_since(t0);
    if (!quiet()) modules::report_load(*impl, "AOT ");
    HostAccess::put_loaded(*this, src, device, impl);
    return CompiledModule(std::move(impl));
}

namespace {
std::string aot_file_name(const std::string &module, const Target &t) {
    const char *ext = t.kind == Target::Kind::Cpu ? ".o" : t.output == Target::Output::Cubin ? ".cubin" : ".ptx";
    return module + "." + t.str() + ext;
}

/// Writes `bytes` to `to` unless it already holds them (its mtime is then kept).
fs::path publish_copy(const std::string &bytes, const fs::path &to) {
    std::error_code ec;
    if (fs::is_regular_file(to, ec) && fs::file_size(to, ec) == bytes.size()) {
        try {
            if (read_input_file(to, bytes.size(), "AOT artifact") == bytes) return to;
        } catch (const UserError &) {
            // Unreadable or changed meanwhile: replaced below.
        }
    }
    write_file_atomically(to, bytes);
    return to;
}
} // namespace

fs::path find_aot_artifact(const fs::path &dir, const std::string &module, int arch) {
    std::vector<fs::path> tried;
    auto candidate = [&](const Target &t) -> std::optional<fs::path> {
        const fs::path p = dir / aot_file_name(module, t);
        tried.push_back(p);
        if (fs::is_regular_file(p)) return p;
        return std::nullopt;
    };
    if (auto p = candidate(Target::cuda_cubin(arch))) return *p;
    for (int a = arch; a >= 50; --a) // PTX of any lower architecture runs, JIT-compiled by the driver
        if (a % 10 <= 9 && fs::exists(dir / aot_file_name(module, Target::cuda_ptx(a))))
            if (auto p = candidate(Target::cuda_ptx(a))) return *p;
    if (tried.size() == 1) candidate(Target::cuda_ptx(arch)); // name the PTX we looked for
    std::string list;
    for (const fs::path &p : tried) list += "\n  " + p.string();
    throw UserError("no AOT artifact of module '" + module + "' fits compute capability " + std::to_string(arch / 10) + "." +
                    std::to_string(arch % 10) + "; tried:" + list);
}

std::vector<fs::path> Host::compile_aot(const fs::path &file, const std::vector<Target> &targets, ModuleLoadOptions options,
                                        const fs::path &out_dir, Pass pass) {
    std::string name = options.name;
    detail::PreparedModule prepared =
        detail::prepare_module(*this, pipeline::ModuleSource::from_file(file, std::move(name)), options);
    std::vector<fs::path> paths;
    // Each module the file compiles to, for each target: targets already
    // cached compile nothing; copies that are already there are not rewritten.
    for (const pipeline::CheckedModule &checked : prepared.modules) {
        const std::string &module = checked.source.name;
        for (const pipeline::Artifact &a :
             detail::HostAccess::pipeline(*this).build(checked, prepared.options, targets, options, pass)) {
            if (out_dir.empty() && a.path.empty())
                throw UserError("module '" + module + "' for " + a.target.str() +
                                " was compiled but the cache cannot be written to hold it: name an output directory");
            if (out_dir.empty()) {
                paths.push_back(a.path);
                continue;
            }
            fs::path copy = out_dir / aot_file_name(pass == Pass::Backward ? module + "-backward" : module, a.target);
            if (a.target.kind == Target::Kind::Cpu) {
                // A module of several compile units is an archive of their objects; a copy
                // of the other kind left from an earlier build would be stale.
                fs::path stale = copy;
                if (backend::is_object_bundle(a.bytes)) copy.replace_extension(".a");
                else stale.replace_extension(".a");
                std::error_code ec;
                fs::remove(stale, ec);
            }
            paths.push_back(publish_copy(a.bytes, copy));
        }
    }
    return paths;
}

} // namespace weft
