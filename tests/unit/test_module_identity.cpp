// Module identity and lifetime through the build pipeline: the hash is the
// module's content (never the path it was read from), one name belongs to one
// file per host, an unchanged module is loaded once, and kernels keep their
// code alive.
#include "test_support.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/host/host.hpp"
#include "weft/pipeline/pipeline.hpp"
#include "pipeline/load_fields.hpp"
#include "weft/support/file.hpp"
#include "weft/support/log.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <optional>
#include <set>
#include <unistd.h>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

const char *saxpy = R"(import warp as wp

@wp.struct
class Params:
    a: float

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]
)";

std::string scale_source(int factor) {
    return "import warp as wp\n\n@wp.kernel\ndef scale(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] * " +
           std::to_string(factor) + ".0\n";
}

/// A private directory (unique per process: CTest runs test cases in parallel).
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string &name)
        : path(fs::temp_directory_path() / ("weft_identity_" + name + "_" + std::to_string(::getpid()))) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

HostOptions options_for(const fs::path &cache) {
    HostOptions o = weft::test::test_host_options();
    o.cache_dir = cache;
    o.quiet = true;
    return o;
}

void write(const fs::path &file, const std::string &text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

/// Restores the working directory when the test leaves.
struct WorkingDirectory {
    fs::path saved = fs::current_path();
    explicit WorkingDirectory(const fs::path &to) { fs::current_path(to); }
    ~WorkingDirectory() { fs::current_path(saved); }
};

float run_scale(const Kernel &k, float value) {
    Array x = Array::from_vector(f32, std::vector<float>{value});
    k.launch({1}, {x});
    return x.to_vector<float>()[0];
}

long resident_kib() {
    std::ifstream statm("/proc/self/statm");
    long pages = 0, resident = 0;
    statm >> pages >> resident;
    return resident * (::sysconf(_SC_PAGESIZE) / 1024);
}

} // namespace

TEST_CASE("one source at 4 spellings and 2 directories: 1 compile, 3 cache hits, one hash") {
    TempDir dir("spellings");
    write(dir.path / "a" / "kern.py", saxpy);
    write(dir.path / "b" / "kern.py", saxpy);
    const WorkingDirectory cwd(dir.path);
    const std::vector<fs::path> spellings = {"a/kern.py", "./a/kern.py", dir.path / "a" / "kern.py", "b/kern.py"};
    std::vector<bool> from_cache;
    std::set<std::string> hashes;
    for (const fs::path &file : spellings) {
        Host host(options_for(dir.path / "cache")); // a new process would see the same
        CompiledModule m = host.load_module(file);
        CHECK(m.name() == "kern");
        from_cache.push_back(m.from_cache());
        hashes.insert(m.hash());
        CHECK(m.source_path() == file);
    }
    CHECK(from_cache == std::vector<bool>{false, true, true, true});
    CHECK(hashes.size() == 1);
    // AOT builds hash the same way: both copies name one cached object.
    Host host(options_for(dir.path / "cache"));
    const fs::path a = host.compile_aot("a/kern.py", {Target::cpu()}).at(0);
    const fs::path b = host.compile_aot(dir.path / "b" / "kern.py", {Target::cpu()}).at(0);
    CHECK(a == b);
}

TEST_CASE("the generated text names the kernel file only through a macro, and compile errors name the real file") {
    TempDir dir("line_markers");
    write(dir.path / "deep" / "er" / "kern.py", saxpy);
    Host host(options_for(dir.path / "cache"));
    CompiledModule m = host.load_module(dir.path / "deep" / "er" / "kern.py");
    const std::string text = read_input_file(m.generated_source_path(), 1 << 24, "generated source");
    CHECK(text.find(dir.path.string()) == std::string::npos);
    CHECK(text.find("#line 10 WEFT_PY_FILE\n") != std::string::npos);
    CHECK(text.find("#define WEFT_PY_FILE \"kern.py\"") != std::string::npos);

    // A preamble error is a compile error of the generated text: it keeps
    // Clang's diagnostics on the JIT and the AOT path alike.
    ModuleLoadOptions bad;
    bad.build_options = ModuleBuildOptions{};
    bad.build_options->extra_cpu_preamble = "int broken = ;\n";
    bad.name = "bad_preamble";
    for (int aot = 0; aot < 2; ++aot) {
        std::vector<backend::CpuDiagnostic> diagnostics;
        std::string message;
        try {
            if (aot) host.compile_aot(dir.path / "deep" / "er" / "kern.py", {Target::cpu()}, bad);
            else host.load_module(dir.path / "deep" / "er" / "kern.py", bad);
        } catch (const backend::CompileError &e) {
            diagnostics = e.diagnostics();
            message = e.what();
        }
        INFO("aot " << aot);
        REQUIRE_FALSE(diagnostics.empty());
        CHECK(diagnostics.front().file == "module 'bad_preamble' preamble");
        CHECK(diagnostics.front().line == 1);
        CHECK_THAT(message, Catch::StartsWith("module 'bad_preamble' does not compile for cpu:\n"));
    }
}

TEST_CASE("two files that claim one module name in one host: an error naming both, and the same file at another spelling is the same module") {
    TempDir dir("claims");
    write(dir.path / "a" / "kern.py", saxpy);
    write(dir.path / "b" / "kern.py", saxpy);
    Host host(options_for(dir.path / "cache"));
    CompiledModule first = host.load_module(dir.path / "a" / "kern.py");
    CHECK(host.load_module(dir.path / "a" / ".." / "a" / "kern.py") == first);

    const std::string message = message_of<UserError>([&] { host.load_module(dir.path / "b" / "kern.py"); });
    CHECK_THAT(message, Catch::Contains("module 'kern' is already loaded in this host from " +
                                        (dir.path / "a" / "kern.py").string()));
    CHECK_THAT(message, Catch::Contains((dir.path / "b" / "kern.py").string() + " cannot load under the same name"));
    // Source text cannot take a file's name either.
    CHECK_THAT(message_of<UserError>([&] { host.load_module_source("kern", saxpy); }),
               Catch::Contains("source text cannot load under the same name"));

    // Another name for the second file works; so does the name once it is unloaded.
    ModuleLoadOptions renamed;
    renamed.name = "kern_b";
    CompiledModule other = host.load_module(dir.path / "b" / "kern.py", renamed);
    CHECK(other.name() == "kern_b");
    CHECK(other.hash() != first.hash()); // the name is part of the identity
    CHECK(host.unload_module("kern"));
    CHECK_FALSE(host.unload_module("kern"));
    CompiledModule from_b = host.load_module(dir.path / "b" / "kern.py");
    CHECK(from_b.hash() == first.hash());
    CHECK(from_b.from_cache());

    // Claims compare paths as given first and canonical paths only when those
    // differ: a link to the loaded file is still that file, and a relative
    // path names the file in the directory current at the load.
    Host other_host(options_for(dir.path / "cache"));
    CompiledModule via_a = other_host.load_module(dir.path / "a" / "kern.py");
    fs::create_directories(dir.path / "links");
    fs::create_symlink(dir.path / "a" / "kern.py", dir.path / "links" / "kern.py");
    CHECK(other_host.load_module(dir.path / "links" / "kern.py") == via_a);
    struct RestoreCwd {
        fs::path was = fs::current_path();
        ~RestoreCwd() {
            std::error_code ec;
            fs::current_path(was, ec);
        }
    } restore;
    fs::current_path(dir.path / "a");
    CHECK(other_host.load_module("kern.py") == via_a);
    fs::current_path(dir.path / "b");
    CHECK_THAT(message_of<UserError>([&] { other_host.load_module("kern.py"); }),
               Catch::Contains("module 'kern' is already loaded in this host from " + (dir.path / "a" / "kern.py").string()));
}

TEST_CASE("an unchanged module loads once, a changed one replaces it, and kernels keep their code") {
    TempDir dir("lifetime");
    Host host(options_for(dir.path / "cache"));
    CompiledModule twice = host.load_module_source("scaler", scale_source(2));
    CHECK(host.load_module_source("scaler", scale_source(2)) == twice);
    const Kernel by2 = twice.kernel("scale");

    CompiledModule thrice = host.load_module_source("scaler", scale_source(3));
    CHECK_FALSE(thrice == twice);
    CHECK(thrice.hash() != twice.hash());
    REQUIRE(host.loaded_module("scaler").has_value());
    CHECK(*host.loaded_module("scaler") == thrice);
    const Kernel by3 = thrice.kernel("scale");
    CHECK(run_scale(by2, 5.0f) == 10.0f); // the replaced module's code is still loaded
    CHECK(run_scale(by3, 5.0f) == 15.0f);

    CHECK(host.unload_module("scaler"));
    CHECK_FALSE(host.loaded_module("scaler").has_value());
    CHECK(run_scale(by3, 2.0f) == 6.0f); // unloading in the host leaves held kernels working
    // Back to the first source: a new load (from the cache), not the dropped module.
    CompiledModule again = host.load_module_source("scaler", scale_source(2));
    CHECK(again.from_cache());
    CHECK(again.hash() == twice.hash());
    CHECK_FALSE(again == twice);
}

TEST_CASE("300 loads of an unchanged module: one module, constant memory") {
    TempDir dir("reload");
    write(dir.path / "kern.py", saxpy);
    Host host(options_for(dir.path / "cache"));
    CompiledModule first = host.load_module(dir.path / "kern.py");
    for (int i = 0; i < 20; ++i) host.load_module(dir.path / "kern.py"); // allocator warm-up
    const long before = resident_kib();
    bool same = true;
    for (int i = 0; i < 300; ++i) same = same && host.load_module(dir.path / "kern.py") == first;
    const long grown = resident_kib() - before;
    CHECK(same);
#if defined(__SANITIZE_ADDRESS__)
    // ASan's quarantine keeps freed memory out of reuse: resident size says nothing (LeakSanitizer checks leaks).
    WARN("resident memory not compared under AddressSanitizer (grew by " << grown << " KiB)");
#else
    INFO("resident memory grew by " << grown << " KiB");
    CHECK(grown < 1024); // before: each load linked another JIT copy (about 30 KiB each)
#endif
}

TEST_CASE("a kernel launched after its host is gone is a LaunchError, not a crash") {
    TempDir dir("orphan");
    std::optional<Kernel> kept;
    {
        Host host(options_for(dir.path / "cache"));
        kept = host.load_module_source("scaler", scale_source(2)).kernel("scale");
        CHECK(run_scale(*kept, 1.0f) == 2.0f);
    }
    Array x = Array::from_vector(f32, std::vector<float>{1});
    CHECK_THAT(message_of<LaunchError>([&] { kept->launch({1}, {x}); }),
               Catch::Contains("kernel 'scale' (module 'scaler'): the Host it was loaded in has been destroyed"));
}

TEST_CASE("the pipeline runs without a host: check, generate, hash, realize") {
    TempDir dir("pipeline");
    Registry registry;
    register_core_builtins(registry);
    const Logger logger;
    const ArtifactCache cache(dir.path / "cache");
    const pipeline::Pipeline p(registry, cache, logger);
    const pipeline::CheckedModule checked = p.check(pipeline::ModuleSource::from_text("saxpy", saxpy));
    CHECK(checked.referenced_owners().empty());
    const ResolvedBuildOptions options = resolve(EffectiveBuildOptions{});
    const std::vector<pipeline::GeneratedModule> generated = p.generate(checked, options, {Target::cpu()}, {});
    REQUIRE(generated.size() == 1);
    CHECK(generated[0].hash.size() == 64);
    const pipeline::Artifact compiled = p.realize(generated[0]);
    const pipeline::Artifact cached = p.realize(generated[0]);
    CHECK_FALSE(compiled.from_cache);
    CHECK(cached.from_cache);
    CHECK(cached.bytes == compiled.bytes);
    REQUIRE(compiled.kernels.size() == 1);
    CHECK(compiled.kernels[0].name == "saxpy");
    // Another name is another module.
    pipeline::ModuleSource renamed = pipeline::ModuleSource::from_text("saxpy2", saxpy);
    CHECK(p.generate(p.check(renamed), options, {Target::cpu()}, {})[0].hash != generated[0].hash);
}

TEST_CASE("kernels are found by function name, and by their name= key as Warp's kernel key") {
    TempDir dir("key");
    Host host(options_for(dir.path / "cache"));
    const CompiledModule m = host.load_module_source("keyed", R"(import warp as wp

@wp.kernel(name="double_it")
def scale(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 2.0
)");
    const Kernel by_key = m.kernel("double_it");
    CHECK(by_key.name() == "scale");
    CHECK(run_scale(by_key, 4.0f) == 8.0f);
    CHECK(run_scale(m.kernel("scale"), 1.0f) == 2.0f);
    CHECK_THAT(message_of<UserError>([&] { m.kernel("nope"); }),
               Catch::Contains("module 'keyed' has no kernel 'nope' (its kernels: scale)"));
}

TEST_CASE("name= is the kernel's identity: a change of key alone is a new module whose kernel has the new key") {
    TempDir dir("key_identity");
    Host host(options_for(dir.path / "cache"));
    const auto keyed = [](const char *key) {
        return std::string("import warp as wp\n\n@wp.kernel(name=\"") + key +
               "\")\ndef scale(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] * 2.0\n";
    };
    const CompiledModule a = host.load_module_source("rekeyed", keyed("kernel_a"));
    const CompiledModule b = host.load_module_source("rekeyed", keyed("kernel_b"));
    CHECK(a.hash() != b.hash());
    CHECK_FALSE(a == b);
    CHECK(run_scale(b.kernel("kernel_b"), 3.0f) == 6.0f);
    CHECK_THAT(message_of<UserError>([&] { b.kernel("kernel_a"); }),
               Catch::Contains("module 'rekeyed' has no kernel 'kernel_a'"));
    // The key is in the generated code's names, as Warp's mangled names are.
    const std::string generated = read_input_file(b.generated_source_path(), 1 << 24, "generated source");
    CHECK(generated.find("wk8kernel_b") != std::string::npos);
    CHECK(generated.find("kernel_a") == std::string::npos);
    // A unique kernel is a module of its own: its key is in that module's identity too.
    const auto unique = [](const char *key) {
        return std::string("import warp as wp\n\n@wp.kernel(module=\"unique\", name=\"") + key +
               "\")\ndef scale(x: wp.array(dtype=float)):\n    i = wp.tid()\n    x[i] = x[i] * 2.0\n";
    };
    const CompiledModule ua = host.load_module_source("unique_keyed", unique("kernel_a"));
    const CompiledModule ub = host.load_module_source("unique_keyed", unique("kernel_b"));
    CHECK(ua.kernel("scale").module_hash() != ub.kernel("scale").module_hash());
    CHECK(run_scale(ub.kernel("kernel_b"), 1.0f) == 2.0f);
    CHECK_THROWS_AS(ub.kernel("kernel_a"), UserError);
}

TEST_CASE("a kernel defined twice in a file means its last definition, as a Python name does (and Warp's key)") {
    TempDir dir("redefined");
    std::vector<std::string> warnings;
    HostOptions o = options_for(dir.path / "cache");
    o.log_sink = [&](LogLevel level, std::string_view, std::string_view message) {
        if (level == LogLevel::Warning) warnings.emplace_back(message);
    };
    Host host(o);
    const CompiledModule m = host.load_module_source("redefined", R"(import warp as wp

@wp.kernel
def scale(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 2.0

@wp.kernel
def scale(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 3.0

@wp.kernel(name="scale")
def other(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 5.0

@wp.kernel
def scale(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 7.0
)");
    CHECK(m.kernel_names() == std::vector<std::string>{"scale"});
    CHECK(run_scale(m.kernel("scale"), 1.0f) == 7.0f);
    CHECK_THROWS_AS(m.kernel("other"), UserError);
    std::string all;
    for (const std::string &w : warnings) all += w + "\n";
    CHECK_THAT(all, Catch::Contains("kernel 'scale' is defined again (previous definition at line 4)"));
    CHECK_THAT(all, Catch::Contains("kernel 'other' has the key 'scale' of kernel 'scale' (previous definition at line 9)"));
    CHECK_THAT(all, Catch::Contains("kernel 'scale' has the key 'scale' of kernel 'other' (previous definition at line 14)"));
}

TEST_CASE("an unknown function under a plugin's prefix names the plugin to load, from its manifest alone") {
    TempDir dir("plugin_hint");
    HostOptions o = options_for(dir.path / "cache");
    o.search_path = {fs::path(WEFT_BUNDLED_PLUGIN_DIR)};
    Host host(o);
    const char *source = R"(import warp as wp

@wp.kernel
def noise(out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.philox_uniform(wp.uint64(1), wp.uint64(i)) + nothing_like_it(1.0)
)";
    const std::string message = message_of<kernel::KernelSourceError>([&] { host.load_module_source("hint", source); });
    CHECK_THAT(message, Catch::Contains("hint.py:6:14: note: 'philox_uniform' has the prefix 'philox_' of plugin "
                                        "'philox' (") &&
                            Catch::Contains("which this host has not loaded: load it first (Host::load_by_name(\"philox\"), "
                                            "or --plugin philox)"));
    // Only names under an installed plugin's prefix get a note; the plugin's library was never opened.
    CHECK_THAT(message, !Catch::Contains("'nothing_like_it' has the prefix"));
    CHECK(host.plugin("philox") == nullptr);
    // Loaded, the plugin's builtin resolves (the other name still does not, and gets no note).
    host.load_by_name("philox");
    const std::string after = message_of<kernel::KernelSourceError>([&] { host.load_module_source("hint", source); });
    CHECK_THAT(after, Catch::Contains("unknown function 'nothing_like_it'") && !Catch::Contains("note:"));
}

// The guard against stale warm loads: the content key and the module hash
// read one table of ModuleLoadOptions' fields (pipeline/load_fields.hpp),
// which must list every field (it fails to compile otherwise). This checks
// the table's claims field by field.
TEST_CASE("every load option that changes the module hash changes the warm-load content key") {
    TempDir dir("key_guard");
    Registry registry;
    register_core_builtins(registry);
    const Logger logger;
    const ArtifactCache cache(dir.path / "cache");
    const pipeline::Pipeline p(registry, cache, logger);
    const pipeline::ModuleSource source = pipeline::ModuleSource::from_text("saxpy", saxpy);
    const pipeline::CheckedModule checked = p.check(source);
    const ResolvedBuildOptions options = resolve(EffectiveBuildOptions{});
    const auto hash = [&](const ModuleLoadOptions &o) { return p.generate(checked, options, {Target::cpu()}, o)[0].hash; };
    const auto key = [&](const ModuleLoadOptions &o) { return p.content_key(source, Target::cpu(), o); };
    const ModuleLoadOptions defaults;
    if (key(defaults).empty()) {
        WARN("this build has no build ID, so it keeps no warm records: the content key is not checked");
        return;
    }
    CHECK(pipeline::load_fields().size() == pipeline::load_options_field_count());
    using E = pipeline::LoadField::Effect;
    int binary = 0;
    for (const pipeline::LoadField &f : pipeline::load_fields()) {
        INFO("field " << f.name);
        ModuleLoadOptions changed = defaults;
        f.change(changed);
        CHECK(f.text(changed) != f.text(defaults));
        if (f.effect == E::Identity) continue; // keyed by inputs of their own (other tests)
        const bool hash_changed = hash(changed) != hash(defaults);
        const bool key_changed = key(changed) != key(defaults);
        CHECK((f.effect == E::Binary) == hash_changed);
        CHECK((f.effect == E::Binary || f.effect == E::Key) == key_changed);
        if (hash_changed) CHECK(key_changed); // the guard itself
        binary += f.effect == E::Binary;
    }
    CHECK(binary == 5); // opt, fast_math, native_cpu, debug, native_signatures
}

TEST_CASE("load_aot on the CPU: the object of an AOT directory, no compile, a stale one refused by name") {
    TempDir dir("aot_cpu");
    const fs::path file = dir.path / "scaled.py";
    std::ofstream(file) << scale_source(4);
    const fs::path aot = dir.path / "aot";
    {
        Host builder(options_for(dir.path / "cache_a"));
        const std::vector<fs::path> paths = builder.compile_aot(file, {Target::cpu()}, {}, aot);
        REQUIRE(paths.size() == 1);
        CHECK(paths[0].parent_path() == aot);
    }
    // Another host with an empty cache: the AOT object loads, nothing compiles.
    Host host(options_for(dir.path / "cache_b"));
    CHECK_THAT(message_of<UserError>([&] { host.load_aot(file, dir.path / "nothing"); }),
               Catch::Contains("no AOT artifact of module 'scaled' for the CPU; tried:") &&
                   Catch::Contains("scaled.cpu.o") && Catch::Contains("scaled.cpu.a"));
    const CompiledModule m = host.load_aot(file, aot);
    CHECK(m.device() == Device::cpu());
    CHECK(m.from_cache());
    CHECK(m.artifact_path().parent_path() == aot);
    CHECK(host.cache_counters().compiles == 0);
    CHECK(run_scale(m.kernel("scale"), 2.0f) == 8.0f);
    CHECK(host.loaded_module("scaled") == m);
    CHECK(m.hash() == host.load_module(file).hash()); // the JIT load of the same file is the same module
    // The source changed since (another signature): its kernel is not in the object.
    std::ofstream(file) << "import warp as wp\n\n@wp.kernel\ndef scale(x: wp.array(dtype=wp.float64)):\n"
                           "    i = wp.tid()\n    x[i] = x[i] * 4.0\n";
    CHECK_THAT(message_of<UserError>([&] { host.load_aot(file, aot); }),
               Catch::Contains("module 'scaled': ") && Catch::Contains("does not hold the kernels of") &&
                   Catch::Contains("built from a different version of the source"));
}
