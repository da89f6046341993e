// Loaded CPU modules and their kernels: the pipeline checks, generates,
// hashes and compiles (or takes the object from the cache); this file links
// the object into the JIT, keeps the host's table of loaded modules and
// launches kernels across the host's thread pool. AOT builds go through the
// same pipeline.
#include "weft/host/compiled_module.hpp"

#include "host_access.hpp"
#include "shared_objects.hpp"
#include "runtime/kernel_lookup.hpp"
#include "weft/backend/cpu_compiler.hpp"
#include "weft/build/module_hash.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "cuda_loading.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/support/file.hpp"

#include <weft/rt/array.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <set>

namespace weft {

namespace fs = std::filesystem;

struct Kernel::Impl {
    std::string name;
    std::string key; // name= of the decorator
    std::string module;
    CpuEntry entry = nullptr; // the kernel, or its dense copy when strided_section > 0
    // A kernel with a dense copy (codegen::strided_macro) runs it when each
    // of these array parameters (index, element size) is dense in its last
    // dimension; else the strided copy runs, linked into the module's code
    // when a launch first needs it.
    std::vector<std::pair<std::size_t, std::uint64_t>> dense_arrays;
    int strided_section = 0;
    std::string strided_symbol;
    mutable std::atomic<CpuEntry> strided{nullptr};
    std::vector<KernelParam> params;
    int tid_dims = 0;
    CpuLaunchPlan plan; // what the CPU code asks of a launch beyond its arguments
    bool external = false; // entry_point_abi='external_constant_params': never launched by weft
    bool overloaded = false; // an instance of a generic kernel with siblings of the same name
    const CompiledModule::Impl *owner = nullptr; // alive as long as the Kernel handle (aliasing shared_ptr)
    std::weak_ptr<ThreadPool> pool;              // the host's: gone with the host
    Device device;
    std::optional<CudaKernel> cuda; // a kernel of a CUDA module (owner->cuda)
};

struct CompiledModule::Impl {
    std::string name;
    std::string hash;
    fs::path source_path;
    bool from_cache = false;
    bool from_shared_object = false;
    double load_ms = 0;
    fs::path artifact_path;
    fs::path generated_source_path;
    Device device;
    std::unique_ptr<backend::JitModule> jit;
    std::shared_ptr<CudaModule> cuda; // a module on a CUDA device: its code and kernels
    int *expect_failures = nullptr; // the module's counter (weft_expect_failures)
    FailureLog *failure_log = nullptr; // weft_failure_log: debug mode's first bounds failures
    int *bounds_failures = nullptr;    // weft_bounds_failures: all of them
    Logger logger;                     // the host's: where bounds failures are reported
    std::vector<std::shared_ptr<Kernel::Impl>> kernels; // owned here only: no cycle with Kernel handles
    mutable std::mutex launch_mutex;                     // expect_* accounting is per launch
    // The backward pass: a module of its own, built when a gradient is first needed.
    std::function<std::shared_ptr<Impl>()> build_backward;
    // A file of several compiled modules (module="unique" kernels): each of
    // them, owning its kernels' code; `kernels` then lists all of theirs.
    std::vector<std::shared_ptr<Impl>> modules;
    mutable std::shared_ptr<Impl> backward;
    mutable std::mutex backward_mutex;
    // A kernel's strided copy (its strided_section): the object, from the
    // cache or compiled from the module's source regenerated as it was loaded.
    std::function<std::string(int section)> build_strided;
    mutable std::mutex strided_mutex;
};

namespace {

std::shared_ptr<ThreadPool> pool_of(const Kernel::Impl &k) {
    std::shared_ptr<ThreadPool> pool = k.pool.lock();
    if (!pool)
        throw LaunchError("kernel '" + k.name + "' (module '" + k.module +
                          "'): the Host it was loaded in has been destroyed");
    return pool;
}

/// Marks the instances of generic kernels: a launch of one of them picks by argument types.
void mark_overloads(std::vector<std::shared_ptr<Kernel::Impl>> &kernels) {
    for (const auto &k : kernels)
        k->overloaded = std::count_if(kernels.begin(), kernels.end(),
                                      [&](const std::shared_ptr<Kernel::Impl> &x) { return x->name == k->name; }) > 1;
}

bool takes(const Kernel::Impl &k, const std::vector<KernelArg> &args) {
    if (k.params.size() != args.size()) return false;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (!(k.params[i].type == args[i].type())) return false;
    return true;
}

/// The instance of `k`'s generic kernel that takes `args` (k itself when it is not overloaded).
const Kernel::Impl &instance_for(const Kernel::Impl &k, const std::vector<KernelArg> &args) {
    if (!k.overloaded || takes(k, args)) return k;
    std::string instances;
    for (const auto &x : k.owner->kernels) {
        if (x->name != k.name) continue;
        if (takes(*x, args)) return *x;
        std::string sig;
        for (const KernelParam &p : x->params) sig += (sig.empty() ? "" : ", ") + p.type.name();
        instances += "\n    (" + sig + ")";
    }
    std::string given;
    for (const KernelArg &a : args) given += (given.empty() ? "" : ", ") + a.type().name();
    throw LaunchError("kernel '" + k.name + "' (module '" + k.module + "') is generic and has no instance for the "
                      "argument types (" + given + "); weft makes the instances declared with wp.overload when the "
                      "module loads, add wp.overload(" + k.name + ", [types]) for these. Its instances:" + instances);
}

/// The entry that runs `k` on these arguments.
CpuEntry entry_for(const Kernel::Impl &k, const PackedArgs &packed) {
    if (k.strided_section == 0) return k.entry;
    bool dense = true;
    for (const auto &[i, element_size] : k.dense_arrays)
        dense = dense && innermost_dense(packed.pointers()[i], element_size);
    if (dense) return k.entry;
    if (CpuEntry e = k.strided.load(std::memory_order_acquire)) return e;
    const CompiledModule::Impl &module = *k.owner;
    const std::lock_guard<std::mutex> lock(module.strided_mutex);
    if (CpuEntry e = k.strided.load(std::memory_order_acquire)) return e;
    if (!module.build_strided)
        throw LaunchError("kernel '" + k.name + "' (module '" + k.module + "'): an argument array is strided in its last "
                          "dimension, and this module has no strided copy of the kernel");
    std::string object = module.build_strided(k.strided_section);
    module.jit->add_object(std::vector<char>(object.begin(), object.end()), backend::strided_copy_part(k.strided_section));
    const CpuEntry e = module.jit->lookup_function<std::remove_pointer_t<CpuEntry>>(k.strided_symbol);
    k.strided.store(e, std::memory_order_release);
    return e;
}

/// Runs one launch and reports its failed expect_* checks.
void run(const Kernel::Impl &k, const std::vector<std::int64_t> &dim, const PackedArgs &packed, ThreadPool &pool,
         const char *context) {
    // One launch of a module at a time reads and resets its failure counters
    // and log: cleared first, so a launch that threw before reading them
    // leaves nothing to the next one.
    const CompiledModule::Impl &m = *k.owner;
    std::lock_guard<std::mutex> lock(m.launch_mutex);
    auto *counter = reinterpret_cast<std::atomic<int> *>(m.expect_failures);
    counter->store(0);
    // A message is written only under a claimed count, so a zero count
    // means a clean log: no 2 KiB memset per launch.
    if (m.bounds_failures && __atomic_exchange_n(m.bounds_failures, 0, __ATOMIC_SEQ_CST) != 0 && m.failure_log)
        std::memset(m.failure_log, 0, sizeof(FailureLog));
    launch_cpu(entry_for(k, packed), dim, packed, pool, k.plan);
    const int failed = counter->exchange(0);
    if (!failed) return;
    const int bounds = m.bounds_failures ? __atomic_exchange_n(m.bounds_failures, 0, __ATOMIC_SEQ_CST) : 0;
    FailureLog log{};
    if (m.failure_log) {
        log = *m.failure_log;
        std::memset(m.failure_log, 0, sizeof log);
    }
    throw_failed_checks("kernel '" + k.name + "' (module '" + k.module + "')" + context, failed, bounds,
                        m.failure_log ? &log : nullptr, m.logger);
}

} // namespace

const std::string &Kernel::name() const { return impl_->name; }
const std::vector<KernelParam> &Kernel::params() const { return impl_->params; }

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args) const {
    launch(dim, args, LaunchOptions{});
}

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, Stream *stream) const {
    launch(dim, args, LaunchOptions{stream});
}

StructValue Kernel::make_struct(std::string_view param) const {
    std::string names;
    for (const KernelParam &p : impl_->params) {
        if (p.name == param) {
            if (p.type.kind() != Type::Kind::Struct)
                throw UserError("kernel '" + impl_->name + "': parameter '" + p.name + "' is " + p.type.name() +
                                ", not a struct");
            return StructValue(p.type);
        }
        names += (names.empty() ? "" : ", ") + p.name + ": " + p.type.name();
    }
    throw UserError("kernel '" + impl_->name + "' has no parameter '" + std::string(param) + "'; its parameters: " + names);
}

Device Kernel::device() const { return impl_->device; }
const std::string &Kernel::module() const { return impl_->owner->name; }
const std::string &Kernel::module_hash() const { return impl_->owner->hash; }
int Kernel::tid_dims() const { return impl_->tid_dims; }

Kernel Kernel::backward() const {
    const CompiledModule::Impl &module = *impl_->owner;
    std::shared_ptr<CompiledModule::Impl> b;
    {
        std::lock_guard<std::mutex> lock(module.backward_mutex);
        if (!module.backward) {
            if (!module.build_backward)
                throw UserError("kernel '" + impl_->name + "' (module '" + impl_->module + "') has no backward pass");
            module.backward = module.build_backward();
        }
        b = module.backward;
    }
    // The instance with this one's parameters first (a generic kernel's instances share its name).
    const auto same_params = [&](const Kernel::Impl &k) {
        if (k.params.size() < impl_->params.size()) return false;
        for (std::size_t i = 0; i < impl_->params.size(); ++i)
            if (!(k.params[i].type == impl_->params[i].type)) return false;
        return true;
    };
    for (const std::shared_ptr<Kernel::Impl> &k : b->kernels)
        if (k->name == impl_->name && same_params(*k)) {
            Kernel out;
            out.impl_ = std::shared_ptr<const Impl>(b, k.get());
            return out;
        }
    throw UserError("kernel '" + impl_->name + "' (module '" + impl_->module +
                    "') has no backward pass: it is declared with enable_backward=False or an external entry point ABI");
}

void Kernel::launch_adjoint(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                            const std::vector<KernelArg> &adj_args, const LaunchOptions &options) const {
    if (const Impl &chosen = instance_for(*impl_, args); &chosen != impl_.get()) {
        Kernel k;
        k.impl_ = std::shared_ptr<const Impl>(impl_, &chosen);
        return k.launch_adjoint(dim, args, adj_args, options);
    }
    if (adj_args.size() != impl_->params.size())
        throw LaunchError("launch_adjoint of kernel '" + impl_->name + "': it has " + std::to_string(impl_->params.size()) +
                          " parameters, so " + std::to_string(impl_->params.size()) + " adjoint arguments, got " +
                          std::to_string(adj_args.size()));
    const Kernel b = backward();
    std::vector<KernelArg> all = args;
    all.insert(all.end(), adj_args.begin(), adj_args.end());
    b.launch(dim, all, options);
}

namespace {

PackedArgs packed_args(const Kernel::Impl &k, const std::vector<KernelArg> &args) {
    try {
        return pack_args(k.name, k.params, args, k.device);
    } catch (const LaunchError &) {
        throw;
    } catch (const UserError &e) {
        throw LaunchError(e.what()); // argument mismatches are launch errors on every device
    }
}

void launch_cuda(const std::shared_ptr<const Kernel::Impl> &k, const std::vector<std::int64_t> &dim,
                 const std::vector<KernelArg> &args, const LaunchOptions &options) {
    pool_of(*k); // a kernel of a destroyed host does not launch, on any device
    const std::shared_ptr<CudaModule> &module = k->owner->cuda;
    if (!options.stream) {
        k->cuda->launch(dim, args, options.block_dim);
        module->synchronize(); // waits; failed expect_* checks throw here
        return;
    }
    k->cuda->launch(dim, args, *options.stream, options.block_dim);
    // Failed expect_* checks of this module surface at the stream's synchronize().
    options.stream->backend().check_on_synchronize([module] { module->synchronize(); });
}

} // namespace

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                    const LaunchOptions &options) const {
    if (const Impl &chosen = instance_for(*impl_, args); &chosen != impl_.get()) {
        Kernel k;
        k.impl_ = std::shared_ptr<const Impl>(impl_, &chosen); // the same module, kept loaded
        return k.launch(dim, args, options);
    }
    Stream *stream = options.stream;
    if (stream && stream->device() != impl_->device)
        throw LaunchError("kernel '" + impl_->name + "' runs on " + impl_->device.name() + "; the stream is on " +
                          stream->device().name());
    if (impl_->cuda) {
        launch_cuda(impl_, dim, args, options);
    } else {
        check_launchable(impl_->name, impl_->external, impl_->tid_dims, dim);
        std::shared_ptr<ThreadPool> pool = pool_of(*impl_);
        if (!stream) {
            run(*impl_, dim, packed_args(*impl_, args), *pool, "");
        } else {
            const std::shared_ptr<const Impl> k = impl_; // keeps the module's code loaded until the task has run
            // Shared, not moved in: the stream's tasks are std::function, which must be copyable.
            auto packed = std::make_shared<const PackedArgs>(packed_args(*k, args));
            stream->enqueue([k, packed, dim, pool] { run(*k, dim, *packed, *pool, ", on a stream"); });
        }
    }
    // A launch that was refused (bad arguments, failed checks) is not recorded.
    detail::record_on_tape(*this, dim, args, options);
}

CompiledModule::CompiledModule(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
const std::string &CompiledModule::name() const { return impl_->name; }
const std::string &CompiledModule::hash() const { return impl_->hash; }
bool CompiledModule::from_cache() const { return impl_->from_cache; }
bool CompiledModule::from_shared_object() const { return impl_->from_shared_object; }
double CompiledModule::load_ms() const { return impl_->load_ms; }
const fs::path &CompiledModule::artifact_path() const { return impl_->artifact_path; }
const fs::path &CompiledModule::generated_source_path() const { return impl_->generated_source_path; }
const fs::path &CompiledModule::source_path() const { return impl_->source_path; }
Device CompiledModule::device() const { return impl_->device; }

std::vector<std::string> CompiledModule::kernel_names() const { return detail::kernel_names(impl_->kernels); }

std::vector<Kernel> CompiledModule::kernels() const {
    std::vector<Kernel> out;
    for (const std::shared_ptr<Kernel::Impl> &k : impl_->kernels) {
        Kernel x;
        x.impl_ = std::shared_ptr<const Kernel::Impl>(impl_, k.get());
        out.push_back(std::move(x));
    }
    return out;
}

Kernel CompiledModule::kernel(std::string_view name) const {
    Kernel out;
    // Shares ownership of the module: the kernel's code stays loaded while the handle lives.
    out.impl_ = std::shared_ptr<const Kernel::Impl>(impl_, detail::find_kernel(impl_->kernels, impl_->name, name).get());
    return out;
}

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
/// A CUDA module's handle and kernels.
std::shared_ptr<CompiledModule::Impl> cuda_module(const std::shared_ptr<CudaModule> &cuda, Device device,
                                                  const fs::path &origin, const std::shared_ptr<ThreadPool> &pool) {
    auto impl = std::make_shared<CompiledModule::Impl>();
    impl->name = cuda->name();
    impl->hash = cuda->hash();
    impl->device = device;
    impl->source_path = origin;
    impl->from_cache = cuda->from_cache();
    impl->artifact_path = cuda->artifact_path();
    impl->generated_source_path = cuda->generated_source_path();
    impl->load_ms = cuda->load_ms();
    impl->cuda = cuda;
    for (const CudaKernel &kernel : cuda->kernels()) {
        auto k = std::make_shared<Kernel::Impl>();
        k->cuda = kernel;
        k->name = kernel.name();
        k->key = k->cuda->key();
        k->module = impl->name;
        k->params = k->cuda->params();
        k->owner = impl.get();
        k->pool = pool;
        k->device = device;
        impl->kernels.push_back(std::move(k));
    }
    mark_overloads(impl->kernels);
    return impl;
}

std::shared_ptr<CompiledModule::Impl> cpu_module(Host &host, const pipeline::Artifact &artifact, const fs::path &origin,
                                                 const std::shared_ptr<ThreadPool> &pool, bool shared_objects = true);
double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// A loaded module of `source` generated again for the CPU, as a pass of
/// it is built after the load (the backward pass, a strided copy).
pipeline::GeneratedModule regenerate(Host &host, const pipeline::ModuleSource &source, const std::string &name,
                                     const ModuleLoadOptions &options, pipeline::Pass pass) {
    detail::PreparedModule p = detail::prepare_module(host, source, options);
    return detail::HostAccess::pipeline(host).generate(p.module(name), p.options, {Target::cpu()}, options, pass).front();
}

/// What a file loads as: its one compiled module, or a module offering the
/// kernels of all it compiles to (module="unique" kernels). Each kernel stays
/// its own compiled module's: expect_* counters, backward pass, code.
std::shared_ptr<CompiledModule::Impl> combine(std::vector<std::shared_ptr<CompiledModule::Impl>> modules,
                                              const pipeline::ModuleSource &source) {
    if (modules.size() == 1 && modules.front()->name == source.name) return std::move(modules.front());
    auto impl = std::make_shared<CompiledModule::Impl>();
    impl->name = source.name;
    std::vector<std::string> hashes;
    impl->from_cache = true;
    impl->from_shared_object = true;
    for (const auto &m : modules) {
        hashes.push_back(m->hash);
        impl->from_cache = impl->from_cache && m->from_cache;
        impl->from_shared_object = impl->from_shared_object && m->from_shared_object;
        impl->kernels.insert(impl->kernels.end(), m->kernels.begin(), m->kernels.end());
    }
    impl->hash = pipeline::combined_hash(hashes);
    impl->source_path = source.origin;
    impl->artifact_path = modules.front()->artifact_path;
    impl->generated_source_path = modules.front()->generated_source_path;
    impl->device = modules.front()->device;
    impl->modules = std::move(modules);
    return impl;
}

void report_load(const CompiledModule::Impl &m, const Device &device, const char *what) {
    char line[512];
    std::snprintf(line, sizeof line, "Module %s %s %sload on device '%s' took %.2f ms (%s)\n", m.name.c_str(),
                  m.hash.substr(0, 8).c_str(), what, device.name().c_str(), m.load_ms,
                  m.from_shared_object ? "cached, shared object" : m.from_cache ? "cached" : "compiled");
    std::fputs(line, stderr);
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
    if (!options.device.is_cpu()) return load_on_device(std::move(source), std::move(options));
    const auto t0 = std::chrono::steady_clock::now();
    HostAccess::check_claim(*this, source);
    const pipeline::Pipeline &pipeline = HostAccess::pipeline(*this);
    const std::shared_ptr<ThreadPool> pool = HostAccess::pool(*this);

    // A kernel's strided copy, from the cache by the module hash it derives
    // from, else compiled from the source regenerated as the module was
    // loaded (a warm load never ran the front end): a source or plugin that
    // changed since then no longer makes that module, and says so.
    const auto strided_builder = [this, options](const pipeline::ModuleSource &file, const std::string &name,
                                        const std::string &hash, pipeline::Pass pass,
                                        const std::shared_ptr<ThreadPool> &alive) {
        return [host = this, source = file, name, hash, options, pass,
                weak = std::weak_ptr<ThreadPool>(alive)](int section) -> std::string {
            if (!weak.lock()) throw LaunchError("module '" + name + "': the Host it was loaded in has been destroyed");
            const pipeline::GeneratedModule g = regenerate(*host, source, name, options, pass);
            if (g.hash != hash)
                throw LaunchError("module '" + name + "' " + hash.substr(0, 8) + " needs the strided copy of a kernel (an "
                                  "argument is strided in its last dimension), but its source or plugins now make module " +
                                  g.hash.substr(0, 8) + ": load the module again");
            return HostAccess::pipeline(*host).realize(pipeline::strided_variant(g, section)).bytes;
        };
    };
    // A compiled module of the file, linked: its backward pass is built from
    // the same source and options when a gradient is first needed.
    const auto link_module = [&](const pipeline::Artifact &artifact, const pipeline::ModuleSource &file) {
        std::shared_ptr<CompiledModule::Impl> impl = cpu_module(*this, artifact, file.origin, pool);
        impl->load_ms = ms_since(t0);
        impl->build_strided = strided_builder(file, artifact.module, artifact.hash, pipeline::Pass::Forward, pool);
        impl->build_backward = [host = this, source = file, name = artifact.module, options, strided_builder,
                                weak = std::weak_ptr<ThreadPool>(pool)] {
            const std::shared_ptr<ThreadPool> alive = weak.lock();
            if (!alive)
                throw LaunchError("module '" + name + "': the Host it was loaded in has been destroyed");
            const auto t1 = std::chrono::steady_clock::now();
            const pipeline::Artifact a =
                HostAccess::pipeline(*host).realize(regenerate(*host, source, name, options, pipeline::Pass::Backward));
            std::shared_ptr<CompiledModule::Impl> b = cpu_module(*host, a, source.origin, alive);
            b->load_ms = ms_since(t1);
            b->build_strided = strided_builder(source, name, a.hash, pipeline::Pass::Backward, alive);
            if (!host->quiet()) report_load(*b, Device::cpu(), "backward ");
            return b;
        };
        if (!quiet()) report_load(*impl, Device::cpu(), "");
        return impl;
    };
    const auto finish = [&](std::vector<std::shared_ptr<CompiledModule::Impl>> modules, const pipeline::ModuleSource &src) {
        std::shared_ptr<CompiledModule::Impl> impl = combine(std::move(modules), src);
        impl->load_ms = ms_since(t0);
        HostAccess::put_loaded(*this, src, Device::cpu(), impl);
        return CompiledModule(std::move(impl));
    };

    // Warm: the record under the content key names the module hashes, the
    // plugins and the kernels, so the front end does not run. Whatever does
    // not match (the options resolve differently now, an artifact is gone or
    // damaged, the code does not link) falls through to the full path.
    const std::string key = pipeline.content_key(source, Target::cpu(), options);
    const double key_ms = ms_since(t0);
    if (!key.empty())
        if (const std::optional<pipeline::WarmRecord> record = pipeline.find_warm(key, source.name, Target::cpu())) {
            const double record_ms = ms_since(t0);
            ModuleSettings &module = this->module(source.name);
            if (options.build_options) module.set_build_options(*options.build_options);
            std::vector<std::string> plugin_list;
            if (options.plugins) {
                plugin_list = *options.plugins;
            } else {
                for (const LoadedPlugin *plugin : plugins()) // load order, as prepare_module orders them
                    if (std::find(record->plugins.begin(), record->plugins.end(), plugin->name()) != record->plugins.end())
                        plugin_list.push_back(plugin->name());
            }
            bool same_options = false;
            try {
                if (module.plugins() != plugin_list) set_module_plugins(module, plugin_list);
                same_options = resolved_options_digest(module.resolved_options()) == record->options_digest;
            } catch (const UserError &) {
                // The full path reports it, naming the module.
            }
            if (same_options) {
                std::vector<std::string> hashes;
                for (const pipeline::WarmRecord::Compiled &c : record->modules) hashes.push_back(c.hash);
                if (std::shared_ptr<CompiledModule::Impl> loaded = HostAccess::find_loaded(*this, source.name, Device::cpu());
                    loaded && loaded->hash == pipeline::combined_hash(hashes))
                    return CompiledModule(std::move(loaded));
                if (std::optional<std::vector<pipeline::Artifact>> artifacts = pipeline.realize_warm(*record)) {
                    const double read_ms = ms_since(t0);
                    std::vector<std::shared_ptr<CompiledModule::Impl>> modules;
                    try {
                        for (const pipeline::Artifact &a : *artifacts) modules.push_back(link_module(a, source));
                    } catch (const backend::BackendError &e) {
                        logger().log(LogLevel::Warning, "cache",
                                     "module '" + source.name + "' " + pipeline::combined_hash(hashes).substr(0, 8) +
                                         " from its content-key record does not load (" + e.what() +
                                         "); building it through the front end");
                        modules.clear();
                    }
                    if (!modules.empty()) {
                        if (logger().enabled(LogLevel::Debug, "time"))
                            logger().log(LogLevel::Debug, "time",
                                         "module '" + source.name + "' warm: content key " + std::to_string(key_ms) +
                                             " ms, record " + std::to_string(record_ms - key_ms) + " ms, artifacts " +
                                             std::to_string(read_ms - record_ms) + " ms, link " +
                                             std::to_string(ms_since(t0) - read_ms) + " ms");
                        return finish(std::move(modules), source);
                    }
                }
            }
        }

    // The front end and a compile (or a cache read) come first: the JIT can
    // be created meanwhile.
    HostAccess::prepare_jit(*this);
    detail::PreparedModule prepared = detail::prepare_module(*this, std::move(source), options);
    const pipeline::ModuleSource &src = prepared.source;
    std::vector<pipeline::GeneratedModule> generated;
    std::vector<std::string> hashes;
    for (const pipeline::CheckedModule &m : prepared.modules) {
        generated.push_back(std::move(pipeline.generate(m, prepared.options, {Target::cpu()}, options).front()));
        hashes.push_back(generated.back().hash);
    }
    const auto remember = [&](const std::vector<std::vector<codegen::KernelEntry>> &kernels) {
        pipeline::WarmRecord record;
        record.module = src.name;
        record.target = Target::cpu();
        for (std::size_t i = 0; i < generated.size(); ++i)
            record.modules.push_back({generated[i].module, generated[i].hash, kernels[i]});
        record.plugins = options.plugins ? *options.plugins : prepared.referenced_owners;
        record.options_digest = resolved_options_digest(prepared.options);
        pipeline.remember(key, record);
    };

    // An unchanged module is the loaded one: nothing is read, linked or run again.
    if (std::shared_ptr<CompiledModule::Impl> loaded = HostAccess::find_loaded(*this, src.name, Device::cpu());
        loaded && loaded->hash == pipeline::combined_hash(hashes)) {
        if (!key.empty()) {
            std::vector<std::vector<codegen::KernelEntry>> kernels;
            for (const pipeline::GeneratedModule &g : generated) kernels.push_back(g.source.kernels);
            remember(kernels);
        }
        return CompiledModule(std::move(loaded));
    }

    const double front_ms = ms_since(t0);
    const std::vector<pipeline::Artifact> artifacts = pipeline.realize_all(generated);
    const double realized_ms = ms_since(t0);
    // Only for stored artifacts: a record naming a hash the cache lacks is a miss every time.
    if (!key.empty() && std::none_of(artifacts.begin(), artifacts.end(),
                                     [](const pipeline::Artifact &a) { return a.path.empty(); })) {
        std::vector<std::vector<codegen::KernelEntry>> kernels;
        for (const pipeline::Artifact &a : artifacts) kernels.push_back(a.kernels);
        remember(kernels);
    }
    std::vector<std::shared_ptr<CompiledModule::Impl>> modules;
    for (const pipeline::Artifact &a : artifacts) modules.push_back(link_module(a, src));
    if (logger().enabled(LogLevel::Debug, "time"))
        logger().log(LogLevel::Debug, "time",
                     "module '" + src.name + "': front end and codegen " + std::to_string(front_ms) +
                         " ms, cache or compile " + std::to_string(realized_ms - front_ms) + " ms, link " +
                         std::to_string(ms_since(t0) - realized_ms) + " ms");
    return finish(std::move(modules), src);
}

namespace {
/// A CPU module from its artifact, with its kernels: mapped from the shared
/// object the cache keeps for it (shared_objects.hpp), else linked into the JIT.
std::shared_ptr<CompiledModule::Impl> cpu_module(Host &host, const pipeline::Artifact &artifact, const fs::path &origin,
                                                 const std::shared_ptr<ThreadPool> &pool, bool shared_objects) {
    auto impl = std::make_shared<CompiledModule::Impl>();
    impl->name = artifact.module;
    impl->hash = artifact.hash;
    impl->source_path = origin;
    impl->logger = host.logger();
    impl->from_cache = artifact.from_cache;
    impl->artifact_path = artifact.path;
    impl->generated_source_path = artifact.generated_source_path;
    // The shared object the cache keeps for the artifact, else its object
    // linked into the JIT. A module loaded from the cache is one that is
    // reused: a shared object is made from it for next time. One just
    // compiled may never be loaded again, and a link in the background would
    // take a core from the first launches for nothing.
    const std::string code_name = artifact.module + "-" + artifact.hash.substr(0, 8);
    SharedObjects &shared = detail::HostAccess::shared_objects(host);
    const ArtifactCache &cache = detail::HostAccess::pipeline(host).cache();
    // Everything the module's code must answer for, looked up once.
    const auto attach = [&] {
        impl->kernels.clear();
        impl->expect_failures = static_cast<int *>(impl->jit->lookup("weft_expect_failures"));
        impl->failure_log = static_cast<FailureLog *>(impl->jit->lookup("weft_failure_log"));
        impl->bounds_failures = static_cast<int *>(impl->jit->lookup("weft_bounds_failures"));
        for (const codegen::KernelEntry &e : artifact.kernels) {
            auto k = std::make_shared<Kernel::Impl>();
            k->name = e.name;
            k->key = e.key;
            k->module = artifact.module;
            if (e.strided_section > 0) {
                k->entry = impl->jit->lookup_function<std::remove_pointer_t<CpuEntry>>(codegen::dense_symbol(e));
                // The arrays generated code tests (an indexed array reads its base
                // array through index arrays, so its own density never matters).
                for (std::size_t i = 0; i < e.params.size(); ++i) {
                    const Type &t = e.params[i].second;
                    if (t.kind() == Type::Kind::Array && !t.is_indexed_array())
                        k->dense_arrays.emplace_back(i, t.element().size());
                }
                k->strided_section = e.strided_section;
                k->strided_symbol = codegen::strided_symbol(e);
            } else {
                k->entry = impl->jit->lookup_function<std::remove_pointer_t<CpuEntry>>(e.symbol);
            }
            for (const auto &[pname, ptype] : e.params) k->params.push_back({pname, ptype});
            k->tid_dims = e.tid_dims;
            k->plan.loops = e.loops;
            for (int g : e.private_gradients) {
                const Type &t = e.params.at(static_cast<std::size_t>(g)).second;
                if (t.kind() != Type::Kind::Array || t.is_indexed_array() ||
                    (t.element().scalar_type() != Scalar::Float32 && t.element().scalar_type() != Scalar::Float64))
                    throw InternalError("kernel '" + e.name + "': private gradient " + std::to_string(g) +
                                        " is not an array of float32 or float64 values");
                k->plan.private_gradients.push_back(
                    {static_cast<std::size_t>(g), t.element().scalar_type() == Scalar::Float64, t.element().size()});
            }
            k->external = e.abi == kernel::ir::EntryPointAbi::ExternalConstantParams;
            k->owner = impl.get();
            k->pool = pool;
            impl->kernels.push_back(std::move(k));
        }
    };
    if (shared_objects) impl->jit = shared.load(cache, artifact, code_name);
    if (impl->jit) {
        try {
            attach();
            impl->from_shared_object = true;
        } catch (const backend::BackendError &e) {
            // A shared object that maps but lacks what its object has is a
            // miss like one that does not map.
            host.logger().log(LogLevel::Info, "cache", std::string(e.what()) + "; linking its object instead");
            impl->jit.reset();
        }
    }
    if (!impl->jit) {
        impl->jit = backend::CpuJit::instance().load(std::vector<char>(artifact.bytes.begin(), artifact.bytes.end()),
                                                     code_name);
        attach();
        if (shared_objects && artifact.from_cache && !artifact.path.empty()) shared.keep(cache, artifact);
    }
    mark_overloads(impl->kernels);
    return impl;
}
} // namespace

CompiledModule Host::load_on_device(pipeline::ModuleSource source, ModuleLoadOptions options) {
    using detail::HostAccess;
    const Device device = options.device;
    const pipeline::ModuleSource src = source; // what the claim records
    const std::vector<std::shared_ptr<CudaModule>> cuda =
        detail::load_cuda(*this, std::move(source), device.ordinal, options);
    // The kept CUDA modules are reused for an unchanged source: so is their handle.
    if (std::shared_ptr<CompiledModule::Impl> loaded = HostAccess::find_loaded(*this, src.name, device)) {
        bool same = loaded->modules.empty() ? cuda.size() == 1 && loaded->cuda == cuda.front()
                                            : loaded->modules.size() == cuda.size();
        for (std::size_t i = 0; same && i < loaded->modules.size(); ++i) same = loaded->modules[i]->cuda == cuda[i];
        if (same) return CompiledModule(std::move(loaded));
    }
    std::vector<std::shared_ptr<CompiledModule::Impl>> modules;
    for (const std::shared_ptr<CudaModule> &c : cuda) {
        std::shared_ptr<CompiledModule::Impl> impl = cuda_module(c, device, src.origin, HostAccess::pool(*this));
        impl->build_backward = [host = this, source = src, name = c->name(), device, options,
                                pool = std::weak_ptr<ThreadPool>(HostAccess::pool(*this))] {
            const std::shared_ptr<ThreadPool> alive = pool.lock();
            if (!alive) throw LaunchError("module '" + name + "': the Host it was loaded in has been destroyed");
            return cuda_module(detail::load_cuda(*host, source, device.ordinal, options, Pass::Backward, name).front(),
                               device, source.origin, alive);
        };
        if (!quiet()) report_load(*impl, device, "");
        modules.push_back(std::move(impl));
    }
    std::shared_ptr<CompiledModule::Impl> impl = combine(std::move(modules), src);
    if (!impl->modules.empty())
        for (const auto &m : impl->modules) impl->load_ms = std::max(impl->load_ms, m->load_ms);
    HostAccess::put_loaded(*this, src, device, impl);
    return CompiledModule(std::move(impl));
}
CompiledModule Host::load_aot(const fs::path &file, const fs::path &dir, ModuleLoadOptions options) {
    using detail::HostAccess;
    const auto t0 = std::chrono::steady_clock::now();
    const Device device = options.device;
    std::string name = options.name;
    pipeline::ModuleSource source = pipeline::ModuleSource::from_file(file, std::move(name));
    const pipeline::ModuleSource src = source; // what the claim records
    std::shared_ptr<CompiledModule::Impl> impl;
    if (!device.is_cpu()) {
        impl = cuda_module(detail::load_cuda_aot(*this, src, dir, device.ordinal, options), device, src.origin,
                           HostAccess::pool(*this));
    } else {
        HostAccess::check_claim(*this, source);
        const fs::path object = dir / (src.name + ".cpu.o"), archive = dir / (src.name + ".cpu.a");
        std::error_code ec;
        const fs::path path = fs::is_regular_file(object, ec) ? object : archive;
        if (!fs::is_regular_file(path, ec))
            throw UserError("no AOT artifact of module '" + src.name + "' for the CPU; tried:\n  " + object.string() +
                            "\n  " + archive.string());
        const pipeline::Artifact artifact =
            detail::read_aot_artifact(*this, std::move(source), options, Target::cpu(), path, dir);
        const auto stale = [&](const std::string &why) {
            return UserError("module '" + artifact.module + "': " + path.string() + " does not hold the kernels of " +
                             src.display_name() + " (" + why + "): it was built from a different version of the "
                             "source; build it again (Host::compile_aot, weft build --output-dir)");
        };
        try {
            // The artifact's own code: never a shared object the cache keeps for
            // the hash the source makes now (another build of it, perhaps).
            impl = cpu_module(*this, artifact, src.origin, HostAccess::pool(*this), false);
            // The same entry symbols can hold other signatures (a kernel's parameter types changed).
            const auto *digest = static_cast<const char *>(impl->jit->lookup(codegen::kernel_signatures_symbol));
            const std::string want = codegen::kernel_signature_digest(artifact.kernels);
            if (std::string(digest, strnlen(digest, 65)) != want)
                throw stale("its kernel signatures differ from the source's");
        } catch (const backend::BackendError &e) {
            throw stale(e.what());
        }
    }
    impl->load_ms = ms_since(t0);
    if (!quiet()) report_load(*impl, device, "AOT ");
    HostAccess::put_loaded(*this, src, device, impl);
    return CompiledModule(std::move(impl));
}

} // namespace weft

namespace weft {

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
                // A module compiled in parts is an archive of their objects; a copy
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
