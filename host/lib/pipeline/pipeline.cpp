// check -> generate (per backend, hashed per target). realize() lives in
// realize.cpp: the one compile-and-store routine.
#include "weft/pipeline/pipeline.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/backend/cuda.hpp"
#include "weft/build/module.hpp"
#include "weft/build/module_hash.hpp"
#include "weft/codegen/build_inputs.hpp"
#include "weft/codegen/runtime_headers.hpp"
#include "weft/kernel/frontend.hpp"
#include "weft/kernel/lower.hpp"
#include "weft/kernel/source.hpp"
#include "weft/kernel/unique_kernels.hpp"
#include "weft/support/sha256.hpp"
#include "compile_options.hpp"
#include "load_fields.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace weft::pipeline {

namespace fs = std::filesystem;

ModuleSource ModuleSource::from_file(const fs::path &file, std::string name) {
    ModuleSource s;
    if (name.empty()) {
        name = file.stem().string();
        check_module_name(name, "the stem of " + file.string());
    } else {
        check_module_name(name);
    }
    s.text = kernel::read_source_text(file);
    s.name = std::move(name);
    s.origin = file;
    return s;
}

ModuleSource ModuleSource::from_text(std::string name, std::string text) {
    check_module_name(name);
    ModuleSource s;
    s.name = std::move(name);
    s.text = std::move(text);
    return s;
}

std::string ModuleSource::display_name() const { return origin.empty() ? name + ".py" : origin.string(); }

std::vector<std::string> CheckedModule::referenced_owners() const {
    std::set<std::string> owners;
    for (const BuiltinOverload &b : ir.references.builtins)
        if (b.external) owners.insert(b.owners.begin(), b.owners.end());
    for (const NativeTypeInfo &t : ir.references.native_types) owners.insert(t.owners.begin(), t.owners.end());
    return {owners.begin(), owners.end()};
}

Pipeline::Pipeline(const Registry &registry, const ArtifactCache &cache, const Logger &logger,
                   const RemoteCache *remote, std::filesystem::path prebuilt)
    : registry_(registry), cache_(cache), logger_(logger), remote_(remote),
      find_prebuilt_([dir = std::move(prebuilt)] { return dir; }) {}

Pipeline::Pipeline(const Registry &registry, const ArtifactCache &cache, const Logger &logger,
                   const RemoteCache *remote, std::function<std::filesystem::path()> find_prebuilt)
    : registry_(registry), cache_(cache), logger_(logger), remote_(remote), find_prebuilt_(std::move(find_prebuilt)) {}

const std::filesystem::path &Pipeline::prebuilt() const {
    std::call_once(prebuilt_found_, [this] {
        if (find_prebuilt_) prebuilt_ = find_prebuilt_();
    });
    return prebuilt_;
}

CacheCounters Pipeline::counters() const {
    CacheCounters c;
    c.local_hits = local_hits_;
    c.warm_hits = warm_hits_;
    c.local_misses = local_misses_;
    c.compiles = compiles_;
    c.unit_hits = unit_hits_;
    c.unit_compiles = unit_compiles_;
    if (remote_) c.remote = remote_->counters();
    return c;
}

CheckedModule Pipeline::check(ModuleSource source) const {
    kernel::FrontendResult checked = kernel::check_module(kernel::SourceFile(source.display_name(), source.text), registry_);
    if (!checked.ok()) throw kernel::KernelSourceError(checked.formatted, checked.diagnostics);
    // Warnings (a redefined kernel or function, say) reach the application's log, with their places.
    if (std::any_of(checked.diagnostics.begin(), checked.diagnostics.end(), [](const kernel::Diagnostic &d) {
            return d.severity == kernel::Diagnostic::Severity::Warning;
        }))
        logger_.log(LogLevel::Warning, "kernel", checked.formatted);
    CheckedModule out{std::move(source), std::move(checked.module)};
    out.ir.name = out.source.name;
    kernel::lower(out.ir);
    return out;
}

std::vector<CheckedModule> split_unique_kernels(CheckedModule module) {
    const std::string file = module.source.display_name();
    std::vector<kernel::SplitModule> modules = kernel::split_unique_kernels(std::move(module.ir));
    std::vector<CheckedModule> out;
    for (kernel::SplitModule &m : modules) {
        ModuleSource source = module.source;
        source.name = m.name;
        // Compiler diagnostics name the file, as the generated text does (not "<module>.<kernel>.py").
        if (source.origin.empty() && m.name != module.source.name) source.origin = file;
        out.push_back({std::move(source), std::move(m.ir)});
    }
    return out;
}

std::string combined_hash(const std::vector<std::string> &hashes) {
    if (hashes.size() == 1) return hashes.front();
    Sha256 h;
    h.field("weft.combined-hash.v1").field(std::to_string(hashes.size()));
    for (const std::string &x : hashes) h.field(x);
    return h.hex();
}

namespace {
ModuleLoadOptions with_source_options(ModuleLoadOptions load, const kernel::ir::ModuleOptions &o) {
    // As in Warp, where module options override the global configuration.
    if (o.enable_backward) load.enable_backward = *o.enable_backward;
    if (o.debug) load.debug = *o.debug;
    if (o.fast_math) load.fast_math = *o.fast_math;
    if (o.fuse_fp) load.fmad = *o.fuse_fp;
    if (o.lineinfo) load.line_info = *o.lineinfo;
    if (o.optimization_level) load.opt_level = *o.optimization_level;
    return load;
}
} // namespace

std::vector<GeneratedModule> Pipeline::generate(const CheckedModule &module, const ResolvedBuildOptions &options,
                                                const std::vector<Target> &targets, const ModuleLoadOptions &given,
                                                Pass pass) const {
    // The options the source sets (wp.set_module_options, module_options=) over the loader's.
    const ModuleLoadOptions load = with_source_options(given, module.ir.options);
    if (pass == Pass::Backward && !load.enable_backward)
        throw UserError("module '" + module.source.name +
                        (module.ir.options.enable_backward ? "' sets enable_backward=False in its module options"
                                                           : "' was loaded with enable_backward=false") +
                        ": it has no backward pass (automatic differentiation)");
    std::map<codegen::Backend, codegen::GeneratedSource> sources; // codegen once per backend
    // The toolchain identity leaves include paths out: hashing needs no runtime headers on disk.
    const fs::path no_dir;
    bool cuda_preamble_includes = false;
    for (const SourcedValue &piece : options.cuda_preamble)
        if (piece.value.find("#include") != std::string::npos) cuda_preamble_includes = true;

    std::vector<GeneratedModule> out;
    for (const Target &target : targets) {
        const bool cuda = target.kind == Target::Kind::Cuda;
        const codegen::Backend backend = cuda ? codegen::Backend::Cuda : codegen::Backend::Cpu;
        auto it = sources.find(backend);
        if (it == sources.end()) {
            codegen::CodegenOptions codegen_options;
            codegen_options.bounds_checks = load.debug;
            codegen_options.adjoint = pass == Pass::Backward;
            codegen_options.native_signature_checks = load.check_native_signatures;
            it = sources.emplace(backend, codegen::generate_cpp(module.ir, options, backend, codegen_options)).first;
        }

        GeneratedModule g;
        g.module = module.source.name;
        g.target = target;
        g.source = it->second;
        g.origin = module.source.display_name();
        g.options = load;
        g.include_dirs = cuda ? options.cuda_include_dirs : options.cpu_include_dirs;
        g.preamble_includes_headers = cuda && cuda_preamble_includes;

        ModuleHashInputs inputs = codegen::contract_inputs(module.ir);
        inputs.generated_source = g.source.text;
        inputs.target = target;
        // The options that shape the binary, from the one table the warm-load content key reads too.
        inputs.codegen_options = binary_fields(load, cuda);
        inputs.codegen_options.emplace("module", g.module);
        inputs.codegen_options.emplace("pass", pass == Pass::Backward ? "backward" : "forward");
        inputs.runtime_header_digest = codegen::runtime_header_digest();
        inputs.toolchain = cuda ? backend::cuda_toolchain_identity(cuda_options(g, no_dir))
                                : backend::toolchain_identity(cpu_options(g, no_dir));
        g.hash = compute_module_hash(inputs, options);
        if (!g.source.units.empty()) {
            // Everything but the text, which each unit's key adds its own of.
            inputs.generated_source = "weft.compile-units.v1";
            g.unit_context = compute_module_hash(inputs, options);
        }
        out.push_back(std::move(g));
    }
    return out;
}

std::vector<GeneratedModule> Pipeline::regenerate(const ModuleSource &source, const std::string &name,
                                                  const ResolvedBuildOptions &options, const std::vector<Target> &targets,
                                                  const ModuleLoadOptions &load, Pass pass) const {
    for (CheckedModule &m : split_unique_kernels(check(source)))
        if (m.source.name == name) return generate(m, options, targets, load, pass);
    throw UserError("module '" + name + "': " + source.display_name() + " no longer compiles to a module of that name; "
                    "load it again");
}

GeneratedModule strided_variant(const GeneratedModule &g, int strided) {
    if (g.target.kind != Target::Kind::Cpu || strided < codegen::strided_whole)
        throw InternalError("strided_variant: module '" + g.module + "' for " + g.target.str() + ", variant " +
                            std::to_string(strided));
    GeneratedModule v = g;
    v.strided = strided;
    v.hash = Sha256().field("weft.strided-variant.v1").field(g.hash).field(std::to_string(strided)).hex();
    if (strided > 0) {
        const auto k = std::find_if(g.source.kernels.begin(), g.source.kernels.end(),
                                    [&](const codegen::KernelEntry &e) { return e.strided_section == strided; });
        if (k == g.source.kernels.end())
            throw InternalError("strided_variant: module '" + g.module + "' has no kernel of strided section " +
                                std::to_string(strided));
        // One kernel's copy: from its compile unit's text when the unit holds
        // it alone (the functions it reaches, not the module's), else from the
        // module's text, whose guards select it.
        const int index = static_cast<int>(k - g.source.kernels.begin());
        for (const codegen::CompileUnit &u : g.source.units)
            if (u.kernels == std::vector<int>{index}) v.source.text = u.text;
        v.source.units.clear();
    }
    return v;
}

std::vector<Artifact> Pipeline::build(const CheckedModule &module, const ResolvedBuildOptions &options,
                                      const std::vector<Target> &targets, const ModuleLoadOptions &load, Pass pass) const {
    std::vector<Artifact> out;
    for (const GeneratedModule &g : generate(module, options, targets, load, pass)) {
        const bool split = g.target.kind == Target::Kind::Cpu &&
                           std::any_of(g.source.kernels.begin(), g.source.kernels.end(),
                                       [](const codegen::KernelEntry &k) { return k.strided_section > 0; });
        out.push_back(realize(split ? strided_variant(g, codegen::strided_whole) : g));
        // The artifact is the module's, under its module hash, whichever copies it holds.
        out.back().hash = g.hash;
    }
    return out;
}

} // namespace weft::pipeline
