// Host::load_module: check -> lower -> generate C++ -> hash -> (cache hit |
// compile in process) -> JIT load -> kernels. The module hash covers the
// generated source, the resolved build options, codegen options, the target,
// referenced contracts, the runtime headers and the toolchain.
#include "weft/host/compiled_module.hpp"

#include "kernel_lookup.hpp"
#include "weft/backend/cpu_compiler.hpp"
#include "weft/backend/cuda.hpp"
#include "weft/build/module_hash.hpp"
#include "weft/codegen/build_inputs.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/codegen/runtime_headers.hpp"
#include "weft/host/host.hpp"
#include "weft/kernel/frontend.hpp"
#include "weft/kernel/lower.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/support/sha256.hpp"

#include <weft/rt/array.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace weft {

namespace fs = std::filesystem;

struct Kernel::Impl {
    std::string name;
    std::string module;
    CpuEntry entry = nullptr;
    std::vector<KernelParam> params;
    int tid_dims = 0;
    kernel::ir::EntryPointAbi abi = kernel::ir::EntryPointAbi::Warp;
    int *expect_failures = nullptr; // the module's counter (weft_expect_failures)
    ThreadPool *pool = nullptr;
    std::mutex *launch_mutex = nullptr; // expect_* accounting is per launch
};

struct CompiledModule::Impl {
    std::string name;
    std::string hash;
    bool from_cache = false;
    double load_ms = 0;
    fs::path artifact_path;
    fs::path generated_source_path;
    std::unique_ptr<backend::JitModule> jit;
    std::vector<std::shared_ptr<Kernel::Impl>> kernels;
    std::mutex launch_mutex;
};

const std::string &Kernel::name() const { return impl_->name; }
const std::vector<KernelParam> &Kernel::params() const { return impl_->params; }

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args) const {
    const Impl &k = *impl_;
    if (k.abi == kernel::ir::EntryPointAbi::ExternalConstantParams)
        throw LaunchError("kernel '" + k.name + "' uses entry_point_abi='external_constant_params' and cannot be launched by weft");
    if (k.tid_dims > 1 && dim.size() != static_cast<std::size_t>(k.tid_dims))
        throw LaunchError("kernel '" + k.name + "' unpacks tid() into " + std::to_string(k.tid_dims) +
                          " values; launch it with a " + std::to_string(k.tid_dims) + "-D dimension, not " +
                          std::to_string(dim.size()) + "-D");
    const PackedArgs packed = pack_args(k.name, k.params, args);
    // One launch of a module at a time reads and resets its expect_* counter.
    std::lock_guard<std::mutex> lock(*k.launch_mutex);
    auto *counter = reinterpret_cast<std::atomic<int> *>(k.expect_failures);
    counter->store(0);
    launch_cpu(k.entry, dim, packed, *k.pool);
    const int failed = counter->exchange(0);
    if (failed)
        throw LaunchError("kernel '" + k.name + "' (module '" + k.module + "'): " + std::to_string(failed) + " expect_* check" +
                          (failed == 1 ? "" : "s") + " failed (the messages above give kernel, line and values)");
}

void Kernel::launch(const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args, Stream *stream) const {
    if (!stream) return launch(dim, args);
    const std::shared_ptr<const Impl> k = impl_;
    if (!stream->device().is_cpu())
        throw LaunchError("kernel '" + k->name + "' is compiled for the CPU; the stream is on " + stream->device().name());
    if (k->abi == kernel::ir::EntryPointAbi::ExternalConstantParams)
        throw LaunchError("kernel '" + k->name + "' uses entry_point_abi='external_constant_params' and cannot be launched by weft");
    if (k->tid_dims > 1 && dim.size() != static_cast<std::size_t>(k->tid_dims))
        throw LaunchError("kernel '" + k->name + "' unpacks tid() into " + std::to_string(k->tid_dims) +
                          " values; launch it with a " + std::to_string(k->tid_dims) + "-D dimension, not " +
                          std::to_string(dim.size()) + "-D");
    // Shared, not moved in: the stream's tasks are std::function, which must be copyable.
    auto packed = std::make_shared<const PackedArgs>(pack_args(k->name, k->params, args));
    stream->enqueue([k, packed, dim] {
        std::lock_guard<std::mutex> lock(*k->launch_mutex);
        auto *counter = reinterpret_cast<std::atomic<int> *>(k->expect_failures);
        counter->store(0);
        launch_cpu(k->entry, dim, *packed, *k->pool);
        const int failed = counter->exchange(0);
        if (failed)
            throw LaunchError("kernel '" + k->name + "' (module '" + k->module + "'), on a stream: " +
                              std::to_string(failed) + " expect_* check" + (failed == 1 ? "" : "s") +
                              " failed (the messages above give kernel, line and values)");
    });
}

CompiledModule::CompiledModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledModule::~CompiledModule() = default;
const std::string &CompiledModule::name() const { return impl_->name; }
const std::string &CompiledModule::hash() const { return impl_->hash; }
bool CompiledModule::from_cache() const { return impl_->from_cache; }
double CompiledModule::load_ms() const { return impl_->load_ms; }
const fs::path &CompiledModule::artifact_path() const { return impl_->artifact_path; }
const fs::path &CompiledModule::generated_source_path() const { return impl_->generated_source_path; }

std::vector<std::string> CompiledModule::kernel_names() const { return detail::kernel_names(impl_->kernels); }

Kernel CompiledModule::kernel(std::string_view name) const {
    Kernel out;
    out.impl_ = detail::find_kernel(impl_->kernels, impl_->name, name);
    return out;
}

namespace {

fs::path runtime_pch(const fs::path &root, const backend::CpuCompileOptions &options);
std::string read_source(const fs::path &file);

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Writes `text` to `path` atomically (temp + rename): concurrent writers of
/// the same content never leave a torn file.
void write_atomically(const fs::path &path, const std::string &text) {
    fs::create_directories(path.parent_path());
    static std::atomic<unsigned> counter{0};
    const fs::path tmp = path.string() + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out) throw UserError("cannot write " + tmp.string());
    }
    fs::rename(tmp, path);
}

/// The plugins that own what a module references (its default plugin list).
std::vector<std::string> referenced_plugins(const kernel::ir::Module &m, const Host &host) {
    std::set<std::string> owners;
    for (const BuiltinOverload &b : m.references.builtins)
        if (b.external)
            for (const std::string &o : b.owners) owners.insert(o);
    for (const NativeTypeInfo &t : m.references.native_types)
        for (const std::string &o : t.owners) owners.insert(o);
    std::vector<std::string> out;
    for (const LoadedPlugin *p : host.plugins()) // load order: requirements first
        if (owners.count(p->name())) out.push_back(p->name());
    return out;
}

} // namespace

CompiledModule &Host::load_module(const fs::path &file, ModuleLoadOptions options) {
    const std::string source = read_source(file);
    return compile_module(file.string(), file.stem().string(), source, std::move(options));
}

CompiledModule &Host::load_module_source(const std::string &name, const std::string &source, ModuleLoadOptions options) {
    return compile_module(name + ".py", name, source, std::move(options));
}

namespace {

/// What every target of a module starts from: the checked, lowered IR and the
/// module's resolved build options.
struct Prepared {
    kernel::ir::Module ir;
    Module *module = nullptr;
    const ResolvedBuildOptions *resolved = nullptr;
};

Prepared prepare(Host &host, const std::string &path, const std::string &name, const std::string &source,
                 const ModuleLoadOptions &options) {
    kernel::FrontendResult checked = kernel::check_module(kernel::SourceFile(path, source), host.registry());
    if (!checked.ok()) throw kernel::KernelSourceError(checked.formatted, checked.diagnostics);
    Prepared p;
    p.ir = std::move(checked.module);
    p.ir.name = name;
    kernel::lower(p.ir);
    p.module = &host.module(name);
    if (options.build_options) p.module->set_build_options(*options.build_options);
    const std::vector<std::string> plugins = options.plugins ? *options.plugins : referenced_plugins(p.ir, host);
    if (p.module->plugins() != plugins) host.set_module_plugins(*p.module, plugins);
    p.resolved = &p.module->resolved_options();
    return p;
}

std::string read_source(const fs::path &file) { return kernel::read_source_text(file); }

} // namespace

CompiledModule &Host::compile_module(const std::string &path, const std::string &name, const std::string &source,
                                     ModuleLoadOptions options) {
    const auto t0 = std::chrono::steady_clock::now();
    Prepared prepared = prepare(*this, path, name, source, options);
    kernel::ir::Module &ir = prepared.ir;
    Module &module = *prepared.module;
    const ResolvedBuildOptions &resolved = *prepared.resolved;

    codegen::GeneratedSource generated = codegen::generate_cpp(ir, resolved, codegen::Backend::Cpu);

    backend::CpuCompileOptions copts;
    copts.opt_level = options.opt_level;
    copts.fast_math = options.fast_math;
    copts.native_cpu = options.native_cpu;
    const fs::path root = cache().root();
    copts.weft_include_dirs = {codegen::materialize_runtime_headers(root / "runtime-headers")};
    copts.include_dirs = resolved.cpu_include_dirs;

    ModuleHashInputs inputs = codegen::contract_inputs(ir);
    inputs.generated_source = generated.text;
    inputs.target = Target::cpu();
    inputs.codegen_options = {{"opt", std::to_string(options.opt_level)},
                              {"fast_math", options.fast_math ? "1" : "0"},
                              {"native_cpu", options.native_cpu ? "1" : "0"}};
    inputs.runtime_header_digest = codegen::runtime_header_digest();
    inputs.toolchain = backend::toolchain_identity(copts);
    const std::string hash = module.hash(inputs);

    auto impl = std::make_unique<CompiledModule::Impl>();
    impl->name = name;
    impl->hash = hash;
    impl->generated_source_path = root / "generated" / (name + "-" + hash.substr(0, 16) + ".cpp");

    std::vector<char> object;
    if (auto hit = cache().find(name, hash, Target::cpu())) {
        object.assign(hit->content.begin(), hit->content.end());
        impl->artifact_path = hit->path;
        impl->from_cache = true;
        // A warm load writes nothing: the entry keeps the source it was compiled from.
        impl->generated_source_path = cache().entry_directory(name, hash) / "module.src";
    } else {
        write_atomically(impl->generated_source_path, generated.text); // for reference in diagnostics
        copts.source_name = impl->generated_source_path.string();
        if (options.use_pch) copts.pch = runtime_pch(root, copts);
        try {
            object = backend::compile_to_object(generated.text, copts);
        } catch (const backend::CompileError &e) {
            if (!e.pch_rejected()) {
                throw backend::CompileError(std::string("module '") + name + "' does not compile:\n" + e.what() +
                                                "\n(generated source, for reference: " +
                                                impl->generated_source_path.string() + ")",
                                            e.diagnostics());
            }
            // A PCH that does not fit (corrupt, or from other headers): rebuild it once.
            logger().log(LogLevel::Warning, "cache", "rebuilding the precompiled runtime header " + copts.pch.string() +
                                                          ": " + e.what());
            fs::remove(copts.pch);
            copts.pch = runtime_pch(root, copts);
            object = backend::compile_to_object(generated.text, copts);
        }
        const CachedArtifact stored =
            cache().store(name, hash, Target::cpu(), generated.text, std::string(object.begin(), object.end()));
        impl->artifact_path = stored.path;
    }

    impl->jit = backend::CpuJit::instance().load(std::move(object), name + "-" + hash.substr(0, 8));
    int *expect_failures = static_cast<int *>(impl->jit->lookup("weft_expect_failures"));
    for (const codegen::KernelEntry &e : generated.kernels) {
        auto k = std::make_shared<Kernel::Impl>();
        k->name = e.name;
        k->module = name;
        k->entry = impl->jit->lookup_function<std::remove_pointer_t<CpuEntry>>(e.symbol);
        for (const auto &[pname, ptype] : e.params) k->params.push_back({pname, ptype});
        k->tid_dims = e.tid_dims;
        k->abi = e.abi;
        k->expect_failures = expect_failures;
        k->pool = &thread_pool();
        k->launch_mutex = &impl->launch_mutex;
        impl->kernels.push_back(std::move(k));
    }
    impl->load_ms = ms_since(t0);
    if (!quiet()) {
        char line[256];
        std::snprintf(line, sizeof line, "Module %s %s load on device 'cpu' took %.2f ms (%s)\n", name.c_str(),
                      hash.substr(0, 8).c_str(), impl->load_ms, impl->from_cache ? "cached" : "compiled");
        std::fputs(line, stderr);
    }
    return keep(std::make_unique<CompiledModule>(std::move(impl)));
}

namespace {
fs::path runtime_pch(const fs::path &root, const backend::CpuCompileOptions &options) {
    // One PCH per (runtime headers, toolchain and flags); several processes may race to build it.
    Sha256 key;
    key.field("weft.pch.v1").field(codegen::runtime_header_digest()).field(backend::toolchain_identity(options));
    for (const fs::path &d : options.weft_include_dirs) key.field(d.string());
    const fs::path pch = root / "pch" / (key.hex().substr(0, 24) + ".pch");
    if (!fs::exists(pch)) {
        fs::create_directories(pch.parent_path());
        backend::CpuCompileOptions o = options;
        o.pch.clear();
        o.source_name = (pch.parent_path() / "runtime.pch.cpp").string();
        backend::build_pch("#include <weft/rt/runtime.h>\n", o, pch); // atomic
    }
    return pch;
}
} // namespace

} // namespace weft

namespace weft {

namespace {
std::string aot_file_name(const std::string &module, const Target &t) {
    const char *ext = t.kind == Target::Kind::Cpu ? ".o" : t.output == Target::Output::Cubin ? ".cubin" : ".ptx";
    return module + "." + t.str() + ext;
}

/// Copies `from` to `to` unless `to` already holds the same bytes (mtime kept).
fs::path publish_copy(const fs::path &from, const fs::path &to) {
    std::ifstream a(from, std::ios::binary), b(to, std::ios::binary);
    if (b) {
        const std::string x((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
        const std::string y((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
        if (x == y) return to;
    }
    std::ifstream in(from, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    write_atomically(to, text.str());
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
                                        const fs::path &out_dir) {
    const std::string source = read_source(file);
    const std::string name = file.stem().string();
    Prepared prepared = prepare(*this, file.string(), name, source, options);
    const fs::path root = cache().root();
    const fs::path rt_dir = codegen::materialize_runtime_headers(root / "runtime-headers");
    std::vector<fs::path> paths;
    for (const Target &target : targets) {
        const bool cuda = target.kind == Target::Kind::Cuda;
        const codegen::GeneratedSource generated =
            codegen::generate_cpp(prepared.ir, *prepared.resolved, cuda ? codegen::Backend::Cuda : codegen::Backend::Cpu);
        ModuleHashInputs inputs = codegen::contract_inputs(prepared.ir);
        inputs.generated_source = generated.text;
        inputs.target = target;
        inputs.codegen_options = {{"opt", std::to_string(options.opt_level)},
                                  {"fast_math", options.fast_math ? "1" : "0"},
                                  {"native_cpu", options.native_cpu && !cuda ? "1" : "0"}};
        inputs.runtime_header_digest = codegen::runtime_header_digest();
        backend::CpuCompileOptions cpu;
        backend::CudaCompileOptions gpu;
        if (cuda) {
            gpu.arch = target.arch;
            gpu.cubin = target.output == Target::Output::Cubin;
            gpu.opt_level = std::max(options.opt_level, 0);
            gpu.fast_math = options.fast_math;
            gpu.fmad = options.fmad;
            gpu.line_info = options.line_info;
            gpu.include_dirs = {rt_dir};
            // NVRTC's PCH pays for heavy plugin headers (about 3x on libcu++/CUB,
            // bench/cuda_compile) and costs light modules: only when a preamble includes one.
            for (const SourcedValue &piece : prepared.resolved->cuda_preamble)
                if (piece.value.find("#include") != std::string::npos) gpu.use_pch = options.use_pch;
            for (const fs::path &d : prepared.resolved->cuda_include_dirs) gpu.include_dirs.push_back(d);
            inputs.toolchain = backend::cuda_toolchain_identity(gpu);
        } else {
            cpu.opt_level = options.opt_level;
            cpu.fast_math = options.fast_math;
            cpu.native_cpu = options.native_cpu;
            cpu.weft_include_dirs = {rt_dir};
            cpu.include_dirs = prepared.resolved->cpu_include_dirs;
            inputs.toolchain = backend::toolchain_identity(cpu);
        }
        const std::string hash = prepared.module->hash(inputs);
        auto publish = [&](const fs::path &cached) {
            return out_dir.empty() ? cached : publish_copy(cached, out_dir / aot_file_name(name, target));
        };
        if (auto hit = cache().find(name, hash, target)) {
            paths.push_back(publish(hit->path)); // cached: nothing compiles, nothing is rewritten
            continue;
        }
        const fs::path generated_path = root / "generated" / (name + "-" + hash.substr(0, 16) + (cuda ? ".cu" : ".cpp"));
        write_atomically(generated_path, generated.text);
        std::string artifact;
        try {
            if (cuda) {
                gpu.source_name = generated_path.string();
                artifact = backend::compile_cuda(generated.text, gpu);
            } else {
                cpu.source_name = generated_path.string();
                if (options.use_pch) cpu.pch = runtime_pch(root, cpu);
                const std::vector<char> object = backend::compile_to_object(generated.text, cpu);
                artifact.assign(object.begin(), object.end());
            }
        } catch (const UserError &e) {
            throw UserError("module '" + name + "' does not compile for " + target.str() + ":\n" + e.what() +
                            "\n(generated source, for reference: " + generated_path.string() + ")");
        }
        paths.push_back(publish(cache().store(name, hash, target, generated.text, artifact).path));
    }
    return paths;
}

} // namespace weft
