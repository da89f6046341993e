// The one compile-and-store routine: cache hit, else compile (Clang in
// process with a precompiled runtime header, or NVRTC) and store. Every path
// (JIT load, AOT build, CUDA load) comes here, so the PCH retry and the
// compile diagnostics behave the same everywhere.
#include "compile_options.hpp"

#include "weft/codegen/runtime_headers.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"

#include <algorithm>
#include <string_view>

namespace weft::pipeline {

namespace fs = std::filesystem;

fs::path runtime_header_dir(const ArtifactCache &cache) {
    return codegen::materialize_runtime_headers(cache.root() / "runtime-headers");
}

namespace {

std::string source_file_define(const GeneratedModule &g) {
    return std::string(codegen::source_file_macro) + "=" + codegen::c_string_literal(g.origin);
}

/// One PCH per (runtime headers, toolchain and flags), built on first use;
/// several processes may race to build it (build_pch publishes atomically).
fs::path runtime_pch(const fs::path &root, const backend::CpuCompileOptions &options) {
    Sha256 key;
    key.field("weft.pch.v1").field(codegen::runtime_header_digest()).field(backend::toolchain_identity(options));
    for (const fs::path &d : options.weft_include_dirs) key.field(d.string());
    const fs::path pch = root / "pch" / (key.hex().substr(0, 24) + ".pch");
    if (!fs::exists(pch)) {
        fs::create_directories(pch.parent_path());
        backend::CpuCompileOptions o = options;
        o.pch.clear();
        o.defines.clear(); // the PCH holds only weft's headers; a define it lacks is fine when it is used
        o.source_name = (pch.parent_path() / "runtime.pch.cpp").string();
        backend::build_pch("#include <weft/rt/runtime.h>\n", o, pch);
    }
    return pch;
}

std::string compile_cpu(const GeneratedModule &g, const fs::path &root, backend::CpuCompileOptions options,
                        const Logger &logger) {
    if (g.options.use_pch) options.pch = runtime_pch(root, options);
    try {
        const std::vector<char> object = backend::compile_to_object(g.source.text, options);
        return {object.begin(), object.end()};
    } catch (const backend::CompileError &e) {
        if (!e.pch_rejected()) throw;
        // A PCH that does not fit (corrupt, or from other headers): rebuild it once.
        logger.log(LogLevel::Warning, "cache",
                   "rebuilding the precompiled runtime header " + options.pch.string() + ": " + e.what());
        std::error_code ec;
        fs::remove(options.pch, ec);
        options.pch = runtime_pch(root, options);
        const std::vector<char> object = backend::compile_to_object(g.source.text, options);
        return {object.begin(), object.end()};
    }
}

} // namespace

backend::CpuCompileOptions cpu_options(const GeneratedModule &g, const fs::path &runtime_headers) {
    backend::CpuCompileOptions o;
    o.opt_level = g.options.opt_level;
    o.fast_math = g.options.fast_math;
    o.native_cpu = g.options.native_cpu;
    o.weft_include_dirs = {runtime_headers};
    o.include_dirs = g.include_dirs;
    o.defines = {source_file_define(g)};
    return o;
}

backend::CudaCompileOptions cuda_options(const GeneratedModule &g, const fs::path &runtime_headers) {
    backend::CudaCompileOptions o;
    o.arch = g.target.arch;
    o.cubin = g.target.output == Target::Output::Cubin;
    o.opt_level = std::max(g.options.opt_level, 0);
    o.fast_math = g.options.fast_math;
    o.fmad = g.options.fmad;
    o.line_info = g.options.line_info;
    // OptiX links the PTX of external_constant_params entries with its own
    // code and finds `params` by name: whole-program mode would internalize it.
    o.relocatable = !o.cubin && std::any_of(g.source.kernels.begin(), g.source.kernels.end(), [](const auto &k) {
        return k.abi == kernel::ir::EntryPointAbi::ExternalConstantParams;
    });
    o.include_dirs = {runtime_headers};
    o.include_dirs.insert(o.include_dirs.end(), g.include_dirs.begin(), g.include_dirs.end());
    o.defines = {source_file_define(g)};
    // NVRTC's PCH pays for heavy plugin headers (about 3x on libcu++/CUB,
    // bench/cuda_compile) and costs light modules: only when a preamble includes one.
    o.use_pch = g.preamble_includes_headers && g.options.use_pch;
    return o;
}

Artifact Pipeline::realize(const GeneratedModule &g) const {
    Artifact a;
    a.module = g.module;
    a.target = g.target;
    a.hash = g.hash;
    a.kernels = g.source.kernels;
    if (auto hit = cache_.find(g.module, g.hash, g.target)) {
        a.bytes = std::move(hit->content);
        a.path = hit->path;
        a.from_cache = true;
        // A warm load writes nothing: the entry keeps the source it was compiled from.
        a.generated_source_path = cache_.entry_directory(g.module, g.hash) / "module.src";
        ++local_hits_;
        return a;
    }
    ++local_misses_;
    // The shared tier: bytes that pass verification are stored locally, so
    // the next load is a local hit; anything else is compiled here.
    if (remote_) {
        if (auto fetched = remote_->fetch(g.module, g.hash, g.target, &g.source.text)) {
            const CachedArtifact stored = cache_.store(g.module, g.hash, g.target, g.source.text, fetched->artifact);
            a.bytes = std::move(fetched->artifact);
            a.path = stored.path;
            a.from_cache = true;
            a.from_remote = true;
            a.generated_source_path = cache_.entry_directory(g.module, g.hash) / "module.src";
            logger_.log(LogLevel::Info, "cache",
                        "module '" + g.module + "' " + g.hash.substr(0, 8) + " for " + g.target.str() +
                            " fetched from the remote cache");
            return a;
        }
    }

    const bool cuda = g.target.kind == Target::Kind::Cuda;
    const fs::path root = cache_.root();
    const fs::path rt_dir = runtime_header_dir(cache_);
    a.generated_source_path = root / "generated" / (g.module + "-" + g.hash.substr(0, 16) + (cuda ? ".cu" : ".cpp"));
    write_file_atomically(a.generated_source_path, g.source.text); // for reference in diagnostics
    // A header that is not found is most often a plugin's preamble include:
    // say where it was looked for (issue 19).
    const auto failure = [&](const char *message, const std::vector<fs::path> &searched) {
        // The generated code's lines are numbered as in the file kept for
        // reference (#line "<module>.weft.cpp"): name that file, which exists.
        std::string compiler = message;
        const std::string generated_name = g.source.file_name + ":";
        if (!g.source.file_name.empty())
            for (auto at = compiler.find(generated_name); at != std::string::npos;
                 at = compiler.find(generated_name, at + a.generated_source_path.string().size() + 1))
                compiler.replace(at, generated_name.size(), a.generated_source_path.string() + ":");
        std::string text = "module '" + g.module + "' does not compile for " + g.target.str() + ":\n" + compiler;
        const std::string_view m(message);
        if (m.find("file not found") != std::string_view::npos || m.find("cannot open source file") != std::string_view::npos) {
            text += "\n(include directories searched:";
            for (const fs::path &d : searched) text += "\n  " + d.string();
            text += ")";
        }
        return text + "\n(generated source, for reference: " + a.generated_source_path.string() + ")";
    };
    if (cuda) {
        backend::CudaCompileOptions options = cuda_options(g, rt_dir);
        options.source_name = a.generated_source_path.string();
        try {
            a.bytes = backend::compile_cuda(g.source.text, options);
        } catch (const backend::CudaCompileError &e) {
            throw backend::CudaCompileError(failure(e.what(), options.include_dirs), e.diagnostics());
        }
    } else {
        backend::CpuCompileOptions options = cpu_options(g, rt_dir);
        options.source_name = a.generated_source_path.string();
        std::vector<fs::path> searched = options.weft_include_dirs;
        searched.insert(searched.end(), options.include_dirs.begin(), options.include_dirs.end());
        try {
            a.bytes = compile_cpu(g, root, std::move(options), logger_);
        } catch (const backend::CompileError &e) {
            throw backend::CompileError(failure(e.what(), searched), e.diagnostics());
        }
    }
    ++compiles_;
    a.path = cache_.store(g.module, g.hash, g.target, g.source.text, a.bytes).path;
    if (remote_) remote_->store(g.module, g.hash, g.target, g.source.text, a.bytes);
    return a;
}

} // namespace weft::pipeline
