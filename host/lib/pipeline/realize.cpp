// The one compile-and-store routine: cache hit, else compile (Clang in
// process with a precompiled runtime header, or NVRTC) and store. Every path
// (JIT load, AOT build, CUDA load) comes here, so the PCH retry and the
// compile diagnostics behave the same everywhere.
#include "compile_options.hpp"

#include "weft/codegen/runtime_headers.hpp"
#include "weft/support/concurrent.hpp"
#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <exception>
#include <set>
#include <atomic>
#include <chrono>
#include <unistd.h>
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

/// The runtime PCH is about half a megabyte; anything far larger at its path
/// was not written by weft.
constexpr std::uintmax_t max_pch_bytes = std::uintmax_t(64) << 20;

fs::path pch_digest_path(const fs::path &pch) { return fs::path(pch.string() + ".sha256"); }

/// "" when the PCH's bytes have the digest recorded when it was built; otherwise why not.
std::string pch_problem(const fs::path &pch) {
    const fs::path digest_file = pch_digest_path(pch);
    std::string recorded;
    try {
        recorded = read_input_file(digest_file, 128, "PCH digest");
    } catch (const UserError &) {
        return "has no digest recorded beside it (" + digest_file.filename().string() + ")";
    }
    while (!recorded.empty() && (recorded.back() == '\n' || recorded.back() == '\r')) recorded.pop_back();
    std::string actual;
    try {
        actual = sha256_hex(read_input_file(pch, max_pch_bytes, "precompiled header"));
    } catch (const UserError &e) {
        return std::string("cannot be read: ") + e.what();
    }
    if (actual != recorded) return "has sha256 " + actual + ", but " + recorded + " was recorded when it was built";
    return {};
}

/// What the PCH holds: the runtime, and the adjoints that backward modules
/// include (parsed again in each backward compile, they made it 4x a forward's).
/// Forward code, which does not include them, is unaffected: a PCH is read lazily.
constexpr const char *pch_text = "#include <weft/rt/runtime.h>\n#include <weft/rt/adjoint.h>\n";

/// Where the PCH for these headers, toolchain and flags lives under `root`.
/// v2: templates are instantiated in the PCH (-fpch-instantiate-templates).
/// v3: the PCH holds the adjoints too (pch_text).
fs::path runtime_pch_path(const fs::path &root, const backend::CpuCompileOptions &options) {
    Sha256 key;
    key.field("weft.pch.v3").field(codegen::runtime_header_digest()).field(backend::toolchain_identity(options));
    for (const fs::path &d : options.weft_include_dirs) key.field(d.string());
    return root / "pch" / (key.hex().substr(0, 24) + ".pch");
}

/// One PCH per (runtime headers, toolchain and flags), built on first use;
/// several processes may race to build it (build_pch publishes atomically).
/// Whatever else is at its path (a symbolic link, say to /dev/zero, which
/// Clang read without end; a directory, which failed every new module until
/// `cache clear`; an oversized file) is removed and the PCH built again.
fs::path runtime_pch(const fs::path &root, const backend::CpuCompileOptions &options, const Logger &logger) {
    // Modules realized at once (realize_all) wait for one build, not one each.
    static std::mutex building;
    const std::lock_guard<std::mutex> lock(building);
    const fs::path pch = runtime_pch_path(root, options);
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(pch, ec); // not followed
    bool present = fs::exists(st);
    if (present && (!fs::is_regular_file(st) || fs::file_size(pch, ec) > max_pch_bytes || ec)) {
        const std::string kind = fs::is_regular_file(st) ? "a file larger than " + std::to_string(max_pch_bytes >> 20) +
                                                               " MiB"
                                                         : fs::is_symlink(st) ? std::string("a symbolic link")
                                                         : describe_file_kind(pch);
        logger.log(LogLevel::Warning, "cache",
                   "the precompiled runtime header " + pch.string() + " is " + kind + ", not one weft wrote: replacing it");
        fs::remove_all(pch, ec);
        if (ec)
            throw UserError("cannot remove " + pch.string() + " (" + kind + ", where the precompiled runtime header "
                            "belongs): " + ec.message() + " (errno " + std::to_string(ec.value()) + ")");
        present = false;
    }
    const fs::path digest_file = pch_digest_path(pch);
    if (present) {
        // The digest recorded when it was built: a PCH built from edited
        // headers, or edited itself, would compile every module wrong.
        const std::string problem = pch_problem(pch);
        if (!problem.empty()) {
            logger.log(LogLevel::Warning, "cache", "rebuilding the precompiled runtime header " + pch.string() + ": it " + problem);
            fs::remove(pch, ec);
            present = false;
        }
    }
    if (!present) {
        fs::create_directories(pch.parent_path());
        backend::CpuCompileOptions o = options;
        o.pch.clear();
        o.defines.clear(); // the PCH holds only weft's headers; a define it lacks is fine when it is used
        o.source_name = (pch.parent_path() / "runtime.pch.cpp").string();
        // Built under a private name; its digest is published before it is, so
        // that a PCH at its path always has its digest beside it.
        static std::atomic<unsigned> counter{0};
        const fs::path staging = pch.parent_path() / (".tmp." + std::to_string(::getpid()) + "." +
                                                      std::to_string(counter++) + "." + pch.filename().string());
        try {
            backend::build_pch(pch_text, o, staging);
            write_file_atomically(digest_file, sha256_hex(read_input_file(staging, max_pch_bytes, "precompiled header")) + "\n");
        } catch (...) {
            fs::remove(staging, ec);
            throw;
        }
        fs::rename(staging, pch, ec);
        if (ec) {
            const int err = ec.value();
            fs::remove(staging, ec);
            throw UserError("cannot publish the precompiled runtime header " + pch.string() + ": " +
                            std::error_code(err, std::generic_category()).message() + " (errno " +
                            std::to_string(err) + ")");
        }
    }
    return pch;
}

/// The runtime headers and PCH an installation prebuilt (prebuild_runtime_pch)
/// for these flags, when they are exactly this weft's: a first compile then
/// builds no PCH. Checked once per process (the headers against the embedded
/// ones, the PCH against the digest recorded when it was built); a problem is
/// a warning, and the compile uses the cache's.
struct PrebuiltPch {
    fs::path headers, pch;
};
std::mutex prebuilt_mutex;
std::map<std::string, bool> prebuilt_checked; // by PCH path: usable?

std::optional<PrebuiltPch> find_prebuilt(const fs::path &given, backend::CpuCompileOptions options, const Logger &logger) {
    if (given.empty()) return std::nullopt;
    // Canonical, as prebuild_runtime_pch wrote it: the PCH's name hashes its headers' directory.
    std::error_code canonical_error;
    const fs::path dir = fs::weakly_canonical(given, canonical_error);
    if (canonical_error) return std::nullopt;
    PrebuiltPch p;
    p.headers = dir / "runtime-headers" / codegen::runtime_header_digest().substr(0, 16);
    options.weft_include_dirs = {p.headers};
    p.pch = runtime_pch_path(dir, options);
    const std::lock_guard<std::mutex> lock(prebuilt_mutex);
    auto it = prebuilt_checked.find(p.pch.string());
    if (it == prebuilt_checked.end()) {
        std::error_code ec;
        std::string problem;
        const bool present = fs::exists(p.pch, ec);
        if (!present) {
            if (logger.enabled(LogLevel::Debug, "cache"))
                logger.log(LogLevel::Debug, "cache", "no prebuilt precompiled runtime header at " + p.pch.string());
        } else if (problem = codegen::runtime_headers_problem(p.headers); !problem.empty()) {
            problem = "its runtime headers in " + p.headers.string() + " are not this weft's: " + problem;
        } else {
            problem = pch_problem(p.pch);
        }
        if (!problem.empty())
            logger.log(LogLevel::Warning, "cache",
                       "not using the prebuilt precompiled runtime header " + p.pch.string() + ": " + problem);
        it = prebuilt_checked.emplace(p.pch.string(), present && problem.empty()).first;
    }
    if (!it->second) return std::nullopt;
    return p;
}

/// Where a module's compile units are looked up and kept, and counted.
struct UnitStore {
    const ArtifactCache &cache;
    std::atomic<std::uint64_t> &hits, &compiles;
    const std::function<void(const std::string &)> &uncached;
    const Logger &logger;
};

std::string unit_key(const GeneratedModule &g, const codegen::CompileUnit &u) {
    return Sha256()
        .field("weft.compile-unit.v1")
        .field(g.unit_context)
        .field(std::to_string(g.strided))
        .field(codegen::without_line_numbers(u.text))
        .hex();
}

/// The module's object: its compile units, each from the cache when its key
/// is there (an edit left it as it was) or compiled (at once, on up to the
/// hardware's concurrency of threads), bundled in unit order; or its text as
/// one unit when codegen made none.
std::vector<char> compile_source(const GeneratedModule &g, const backend::CpuCompileOptions &options,
                                 const UnitStore &store, const fs::path &generated) {
    const std::vector<codegen::CompileUnit> &units = g.source.units;
    std::vector<std::string> keys;
    std::set<int> parts;
    for (const codegen::CompileUnit &u : units) {
        keys.push_back(unit_key(g, u));
        parts.insert(backend::unit_part(keys.back()));
    }
    // Two units named alike would not link: such a module compiles whole.
    if (units.empty() || parts.size() != units.size()) return backend::compile_to_object(g.source.text, options);
    std::vector<std::vector<char>> objects(units.size());
    std::vector<std::size_t> missing;
    for (std::size_t i = 0; i < units.size(); ++i) {
        if (std::optional<CachedArtifact> hit = store.cache.find(g.module, keys[i], Target::cpu_unit())) {
            objects[i].assign(hit->content.begin(), hit->content.end());
            ++store.hits;
        } else {
            missing.push_back(i);
        }
    }
    // Largest first: the last unit to start is a short one, whatever the cores.
    std::stable_sort(missing.begin(), missing.end(),
                     [&](std::size_t a, std::size_t b) { return units[a].text.size() > units[b].text.size(); });
    // A failure reads the same whichever thread finished first: the first
    // failing unit in the file's order is the one reported.
    std::vector<std::exception_ptr> failures(units.size());
    run_concurrently(missing.size(), [&](std::size_t m) {
        const std::size_t i = missing[m];
        backend::CpuCompileOptions o = options;
        o.part = backend::unit_part(keys[i]);
        try {
            objects[i] = backend::compile_to_object(units[i].text, o);
        } catch (const backend::CompileError &e) {
            // Lines of the unit's text: name a copy of it, kept beside the module's.
            const fs::path copy = generated.string() + "." + units[i].name + ".cpp";
            std::string message = e.what();
            try {
                write_file_atomically(copy, units[i].text);
                const std::string name = g.source.file_name + ":";
                for (auto at = message.find(name); at != std::string::npos; at = message.find(name, at + copy.string().size() + 1))
                    message.replace(at, name.size(), copy.string() + ":");
            } catch (...) { // no copy: the message names the module's text as before
            }
            failures[i] = std::make_exception_ptr(backend::CompileError(message, e.diagnostics(), e.pch_rejected()));
        } catch (...) {
            failures[i] = std::current_exception();
        }
    });
    // The units that compiled are kept even when another failed: after the
    // fix, only the failing one compiles again.
    std::size_t compiled = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::size_t i : missing) {
        if (failures[i]) continue;
        ++compiled;
        try {
            store.cache.store(g.module, keys[i], Target::cpu_unit(), units[i].text,
                              std::string(objects[i].begin(), objects[i].end()));
        } catch (const UserError &e) {
            store.uncached(e.what());
        }
    }
    store.compiles += compiled;
    for (const std::exception_ptr &failure : failures)
        if (failure) std::rethrow_exception(failure);
    if (store.logger.enabled(LogLevel::Debug, "time"))
        store.logger.log(LogLevel::Debug, "time",
                         "module '" + g.module + "': " + std::to_string(units.size()) + " compile units, " +
                             std::to_string(units.size() - missing.size()) + " from the cache, " +
                             std::to_string(missing.size()) + " compiled; storing them " +
                             std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()) +
                             " ms");
    return backend::bundle_objects(objects);
}

std::string compile_cpu(const GeneratedModule &g, const fs::path &root, backend::CpuCompileOptions options,
                        const Logger &logger, const std::function<void(const std::string &)> &uncached,
                        const fs::path &prebuilt, const UnitStore &units) {
    const backend::CpuCompileOptions given = options;
    bool using_prebuilt = false;
    if (g.options.use_pch)
        if (const std::optional<PrebuiltPch> p = find_prebuilt(prebuilt, options, logger)) {
            options.weft_include_dirs = {p->headers};
            options.pch = p->pch;
            using_prebuilt = true;
        }
    if (g.options.use_pch && options.pch.empty()) {
        try {
            const auto t0 = std::chrono::steady_clock::now();
            options.pch = runtime_pch(root, options, logger);
            if (logger.enabled(LogLevel::Debug, "time"))
                logger.log(LogLevel::Debug, "time",
                           "precompiled runtime header " +
                               std::to_string(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count()) +
                               " ms (found or built)");
        } catch (const std::exception &e) {
            // No PCH (a read-only or full cache): the same compile without it.
            uncached(e.what());
            options.pch.clear();
        }
    }
    try {
        const std::vector<char> object = compile_source(g, options, units, options.source_name);
        return {object.begin(), object.end()};
    } catch (const backend::CompileError &e) {
        if (!e.pch_rejected() || options.pch.empty()) throw;
        if (using_prebuilt) {
            // The prebuilt one does not fit after all (Clang says so, its digest
            // did not): not again in this process, and this compile as without it,
            // the cache's PCH rebuilt once if that does not fit either.
            logger.log(LogLevel::Warning, "cache",
                       "not using the prebuilt precompiled runtime header " + options.pch.string() + ": " + e.what());
            {
                const std::lock_guard<std::mutex> lock(prebuilt_mutex);
                prebuilt_checked[options.pch.string()] = false;
            }
            return compile_cpu(g, root, given, logger, uncached, fs::path(), units);
        }
        // A PCH that does not fit (corrupt, or from other headers): rebuild it once.
        logger.log(LogLevel::Warning, "cache",
                   "rebuilding the precompiled runtime header " + options.pch.string() + ": " + e.what());
        std::error_code ec;
        fs::remove(options.pch, ec);
        try {
            options.pch = runtime_pch(root, options, logger);
        } catch (const std::exception &error) {
            uncached(error.what());
            options.pch.clear();
        }
        const std::vector<char> object = compile_source(g, options, units, options.source_name);
        return {object.begin(), object.end()};
    }
}

/// weft's runtime headers in a folder of this process's own, for when the
/// cache cannot hold them (read-only, full); removed when the process ends.
fs::path private_runtime_headers() {
    struct Private {
        fs::path dir;
        ~Private() {
            std::error_code ec;
            if (!dir.empty()) fs::remove_all(dir, ec);
        }
    };
    static std::mutex mutex;
    static Private folder;
    const std::lock_guard<std::mutex> lock(mutex);
    if (folder.dir.empty()) {
        std::string pattern = (fs::temp_directory_path() / "weft-runtime-headers-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw UserError("cannot create a private folder for the runtime headers (" + pattern +
                            "): " + errno_text(errno));
        folder.dir = pattern;
    }
    return codegen::materialize_runtime_headers(folder.dir);
}

} // namespace

fs::path prebuild_runtime_pch(const fs::path &given, const ModuleLoadOptions &load, const Logger &logger) {
    // Canonical, as find_prebuilt looks it up: the PCH's name hashes its headers' directory.
    fs::create_directories(given);
    const fs::path dir = fs::canonical(given);
    backend::CpuCompileOptions o = cpu_flags(load);
    o.weft_include_dirs = {codegen::materialize_runtime_headers(dir / "runtime-headers")};
    return runtime_pch(dir, o, logger);
}

void Pipeline::uncached(const std::string &why) const {
    if (!uncached_warned_.exchange(true))
        logger_.log(LogLevel::Warning, "cache",
                    "the cache at " + cache_.root().string() + " cannot be written (" + why +
                        "); modules it does not hold are compiled in memory and not stored");
}

std::vector<CacheFinding> verify_compile_files(const ArtifactCache &cache, bool repair) {
    std::vector<CacheFinding> out;
    const fs::path headers_root = cache.root() / "runtime-headers";
    const fs::path headers = headers_root / codegen::runtime_header_digest().substr(0, 16);
    std::error_code ec;
    if (fs::exists(fs::symlink_status(headers, ec))) {
        if (std::string problem = codegen::runtime_headers_problem(headers); !problem.empty()) {
            CacheFinding f{headers, problem, CacheFinding::Action::Reported};
            if (repair) {
                try {
                    codegen::rewrite_runtime_headers(headers_root);
                    f.action = CacheFinding::Action::Removed;
                    f.problem += " (rewritten)";
                } catch (const UserError &e) {
                    f.action = CacheFinding::Action::Failed;
                    f.problem += std::string("; ") + e.what();
                }
            }
            out.push_back(std::move(f));
        }
    }
    std::vector<fs::path> pchs;
    for (fs::directory_iterator it(cache.root() / "pch", ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".pch" && it->path().filename().string().rfind(".tmp.", 0) != 0)
            pchs.push_back(it->path());
    std::sort(pchs.begin(), pchs.end());
    for (const fs::path &pch : pchs) {
        const fs::file_status st = fs::symlink_status(pch, ec);
        std::string problem = fs::is_regular_file(st) ? pch_problem(pch) : "is not a regular file";
        if (problem.empty()) continue;
        CacheFinding f{pch, std::move(problem), CacheFinding::Action::Reported};
        if (repair) {
            std::error_code rm;
            fs::remove_all(pch, rm);
            fs::remove(pch_digest_path(pch), rm);
            f.action = fs::exists(fs::symlink_status(pch, rm)) ? CacheFinding::Action::Failed : CacheFinding::Action::Removed;
        }
        out.push_back(std::move(f));
    }
    return out;
}

backend::CpuCompileOptions cpu_flags(const ModuleLoadOptions &load) {
    backend::CpuCompileOptions o;
    o.opt_level = load.opt_level;
    o.fast_math = load.fast_math;
    o.native_cpu = load.native_cpu;
    return o;
}

backend::CpuCompileOptions cpu_options(const GeneratedModule &g, const fs::path &runtime_headers) {
    backend::CpuCompileOptions o = cpu_flags(g.options);
    o.weft_include_dirs = {runtime_headers};
    o.include_dirs = g.include_dirs;
    o.defines = {source_file_define(g), std::string(codegen::strided_macro) + "=" + std::to_string(g.strided)};
    // A strided copy links into the module's JIT code beside its units: its
    // static initializer and __dso_handle get names of their own.
    if (g.strided > 0) o.part = backend::strided_copy_part(g.strided);
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

std::vector<Artifact> Pipeline::realize_all(const std::vector<GeneratedModule> &modules) const {
    std::vector<Artifact> out(modules.size());
    run_concurrently(modules.size(), [&](std::size_t i) { out[i] = realize(modules[i]); });
    return out;
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
            try {
                a.path = cache_.store(g.module, g.hash, g.target, g.source.text, fetched->artifact).path;
            } catch (const UserError &e) {
                uncached(e.what());
            }
            a.bytes = std::move(fetched->artifact);
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
    // A cache that cannot be written (read-only, full) still serves its hits;
    // what it lacks is compiled with headers of this process's own and kept in memory.
    fs::path rt_dir;
    try {
        rt_dir = runtime_header_dir(cache_);
    } catch (const UserError &e) {
        uncached(e.what());
        rt_dir = private_runtime_headers();
    }
    a.generated_source_path = root / "generated" / (g.module + "-" + g.hash.substr(0, 16) + (cuda ? ".cu" : ".cpp"));
    bool source_kept = true;
    try {
        write_file_atomically(a.generated_source_path, g.source.text); // for reference in diagnostics
    } catch (const UserError &e) {
        uncached(e.what());
        source_kept = false;
    }
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
        return text + (source_kept ? "\n(generated source, for reference: " + a.generated_source_path.string() + ")"
                                   : std::string("\n(the generated source could not be kept: the cache cannot be written)"));
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
            const std::function<void(const std::string &)> uncached_here = [this](const std::string &why) { uncached(why); };
            a.bytes = compile_cpu(g, root, std::move(options), logger_, uncached_here, prebuilt(),
                                  UnitStore{cache_, unit_hits_, unit_compiles_, uncached_here, logger_});
        } catch (const backend::CompileError &e) {
            throw backend::CompileError(failure(e.what(), searched), e.diagnostics());
        }
    }
    ++compiles_;
    try {
        a.path = cache_.store(g.module, g.hash, g.target, g.source.text, a.bytes).path;
    } catch (const UserError &e) {
        uncached(e.what());
    }
    if (!source_kept) a.generated_source_path.clear();
    if (remote_) remote_->store(g.module, g.hash, g.target, g.source.text, a.bytes);
    return a;
}

} // namespace weft::pipeline
