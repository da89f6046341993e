#include "test_support.hpp"

#include "weft/support/error.hpp"
#include "weft/host/host.hpp"
#include "weft/build/module.hpp"
#include "weft/build/module_hash.hpp"

#include <catch2/catch.hpp>

#include <fstream>

using namespace weft;
using weft::test::message_of;
using weft::test::plugin_dir;
using weft::test::test_host_options;

namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path;
    explicit TempDir(const std::string &name) : path(fs::temp_directory_path() / ("weft_test_" + name)) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

ModuleHashInputs inputs(std::string source = "void k() {}") {
    ModuleHashInputs in;
    in.generated_source = std::move(source);
    in.target = Target::cpu();
    in.runtime_header_digest = "rt-digest";
    in.toolchain = "clang 19";
    return in;
}

std::string hash_with(Host &host, const std::string &name, ModuleBuildOptions options,
                      const ModuleHashInputs &in = inputs()) {
    ModuleSettings &m = host.module(name);
    m.set_build_options(std::move(options));
    return m.hash(in);
}

} // namespace

TEST_CASE("a module hash is a full-width SHA-256 and depends on the source, target and codegen options") {
    Host host(test_host_options());
    const std::string h = hash_with(host, "m", {});
    CHECK(h.size() == 64);
    CHECK(h.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK(host.module("m").hash(inputs()) == h);
    CHECK(host.module("m").hash(inputs("void k() { }")) != h);
    ModuleHashInputs cuda = inputs();
    cuda.target = Target::cuda_ptx(90);
    CHECK(host.module("m").hash(cuda) != h);
    ModuleHashInputs cubin = cuda;
    cubin.target = Target::cuda_cubin(90);
    CHECK(host.module("m").hash(cubin) != host.module("m").hash(cuda));
    ModuleHashInputs fast = inputs();
    fast.codegen_options["fast_math"] = "1";
    CHECK(host.module("m").hash(fast) != h);
}

TEST_CASE("dependency content '#define EXTERNAL_VALUE 1' -> '2' changes the hash") {
    TempDir dir("dep_content");
    const fs::path dep = dir.path / "external.h";
    std::ofstream(dep) << "#define EXTERNAL_VALUE 1\n";
    Host host(test_host_options());
    ModuleBuildOptions o;
    o.extra_build_dependencies = {dep.string()};
    const std::string h1 = hash_with(host, "m", o);

    std::ofstream(dep, std::ios::trunc) << "#define EXTERNAL_VALUE 2\n";
    // Read when the hash is computed after options are set, not at every use.
    CHECK(host.module("m").hash(inputs()) == h1);
    const std::string h2 = hash_with(host, "m", o);
    CHECK(h2 != h1);
    // A new process (here: a new host) reads it afresh too.
    Host fresh(test_host_options());
    CHECK(hash_with(fresh, "m", o) == h2);
}

TEST_CASE("a CUDA include dir, a CPU include dir and no dir give three different hashes") {
    TempDir dir("include_dirs");
    Host host(test_host_options());
    ModuleBuildOptions cuda, cpu;
    cuda.extra_cuda_include_dirs = {dir.path.string()};
    cpu.extra_cpu_include_dirs = {dir.path.string()};
    const std::string a = hash_with(host, "a", cuda);
    const std::string b = hash_with(host, "b", cpu);
    const std::string c = hash_with(host, "c", {});
    CHECK(a != b);
    CHECK(b != c);
    CHECK(a != c);
}

TEST_CASE("'#define X 1' and the same with a trailing newline hash alike - '#define X 2' does not") {
    Host host(test_host_options());
    ModuleBuildOptions p1, p1n, p2;
    p1.extra_cpu_preamble = "#define X 1";
    p1n.extra_cpu_preamble = "#define X 1\n";
    p2.extra_cpu_preamble = "#define X 2";
    CHECK(hash_with(host, "a", p1) == hash_with(host, "b", p1n));
    CHECK(hash_with(host, "a", p1) != hash_with(host, "c", p2));
    // The CUDA preamble is its own input.
    ModuleBuildOptions cuda1;
    cuda1.extra_cuda_preamble = "#define X 1";
    CHECK(hash_with(host, "d", cuda1) != hash_with(host, "a", p1));
}

TEST_CASE("an external builtin's native target is part of the hash of modules that reference it") {
    auto registry_with = [](const std::string &native) {
        auto r = std::make_unique<Registry>();
        auto tx = r->begin("ext");
        tx.add_builtin({"ext_square", {{"x", "float32"}}, "float32", native, "", {}});
        tx.commit();
        return r;
    };
    const auto first = registry_with("external::square");
    const auto second = registry_with("external::square_v2");
    Host host(test_host_options());

    ModuleHashInputs uses_a = inputs(), uses_b = inputs(), plain = inputs();
    uses_a.referenced_builtins = first->overloads("ext_square");
    uses_b.referenced_builtins = second->overloads("ext_square");
    ModuleSettings &m = host.module("m");
    CHECK(m.hash(uses_a) != m.hash(uses_b));
    CHECK(m.hash(uses_a) != m.hash(plain));
    // A module that does not reference it: no change, whichever registry.
    ModuleHashInputs plain2 = inputs();
    CHECK(m.hash(plain) == m.hash(plain2));
    // Core builtins are covered by weft's version, not by identity.
    Registry core;
    register_core_builtins(core);
    ModuleHashInputs with_core = inputs();
    with_core.referenced_builtins = core.overloads("add");
    CHECK(m.hash(with_core) == m.hash(plain));
}

TEST_CASE("native type codes of referenced types are part of the hash") {
    Host host(test_host_options());
    host.load(plugin_dir("wt_color"));
    ModuleHashInputs in = inputs();
    in.referenced_native_types = {*host.registry().native_type("warp_test::Color")};
    ModuleSettings &m = host.module("m");
    CHECK(m.hash(in) != m.hash(inputs()));
    ModuleHashInputs image = inputs();
    image.referenced_native_types = {*host.registry().native_type("warp_test::Image")};
    CHECK(m.hash(in) != m.hash(image));
    // Order of discovery does not matter.
    ModuleHashInputs both1 = inputs(), both2 = inputs();
    both1.referenced_native_types = {*host.registry().native_type("warp_test::Color"), *host.registry().native_type("warp_test::Image")};
    both2.referenced_native_types = {both1.referenced_native_types[1], both1.referenced_native_types[0]};
    CHECK(m.hash(both1) == m.hash(both2));
}

TEST_CASE("editing an options value in place changes nothing until it is set again") {
    Host host(test_host_options());
    ModuleBuildOptions o;
    o.extra_cpu_preamble = "#define A 1";
    ModuleSettings &m = host.module("m");
    host.set_module_options(m, o);
    const std::string h1 = m.hash(inputs());
    const auto gen = m.generation();
    o.extra_cpu_preamble = "#define A 2";
    CHECK(m.hash(inputs()) == h1);
    CHECK(m.build_options().extra_cpu_preamble == "#define A 1");
    host.set_module_options("m", o); // by name: the same module
    CHECK(m.generation() == gen + 1);
    CHECK(m.hash(inputs()) != h1);
}

TEST_CASE("effective options: own first, then each used plugin's - plugins the module does not use change nothing") {
    Host host(test_host_options());
    host.load(plugin_dir("wt_color")); // build options: "#define WT_COLOR 1" on both backends
    ModuleBuildOptions own;
    own.extra_cpu_preamble = "#define OWN 1";
    ModuleSettings &uses = host.module("uses");
    uses.set_build_options(own);
    host.set_module_plugins(uses, {"wt_color"});
    ModuleSettings &plain = host.module("plain");
    plain.set_build_options(own);

    const EffectiveBuildOptions e = uses.effective_options();
    REQUIRE(e.cpu_preamble.size() == 2);
    CHECK(e.cpu_preamble[0].value == "#define OWN 1");
    CHECK(e.cpu_preamble[0].source == "module 'uses'");
    CHECK(e.cpu_preamble[1].value == "#define WT_COLOR 1");
    CHECK(e.cpu_preamble[1].source == "plugin 'wt_color'");
    CHECK(plain.effective_options().cpu_preamble.size() == 1);
    CHECK(uses.resolved_options().cpu_preamble_text() == "#define OWN 1\n#define WT_COLOR 1\n");

    const std::string before = plain.hash(inputs());
    host.load(plugin_dir("same_a")); // unused by `plain`
    host.set_module_options("plain", own);
    CHECK(plain.hash(inputs()) == before);
    CHECK(uses.hash(inputs()) != before);
}

TEST_CASE("a module that uses a plugin which is not loaded is a clear error") {
    Host host(test_host_options());
    ModuleSettings &m = host.module("m");
    CHECK_THAT(message_of<UserError>([&] { host.set_module_plugins(m, {"wt_color"}); }),
               Catch::Contains("module 'm' uses plugin 'wt_color', which is not loaded in this host"));
    CHECK(m.plugins().empty()); // nothing half-set
    ModuleBuildOptions bad;
    bad.extra_cpu_include_dirs = {"not/absolute"};
    m.set_plugins({});
    m.set_build_options(bad);
    CHECK_THAT(message_of<UserError>([&] { m.hash(inputs()); }),
               Catch::Contains("module 'm': invalid module build options:\n  extra_cpu_include_dirs: 'not/absolute' (from module 'm'): not absolute"));
}

TEST_CASE("targets have stable names") {
    CHECK(Target::cpu().str() == "cpu");
    CHECK(Target::cuda_ptx(90).str() == "cuda-compute_90-ptx");
    CHECK(Target::cuda_cubin(86).str() == "cuda-sm_86-cubin");
    CHECK(Target::parse("cuda-sm_86-cubin") == Target::cuda_cubin(86));
    CHECK(Target::parse("cuda-compute_120-ptx") == Target::cuda_ptx(120));
    CHECK_THROWS_WITH(Target::parse("cuda-sm_x-cubin"), Catch::Contains("invalid target 'cuda-sm_x-cubin'"));
    CHECK_THROWS_WITH(Target::parse("gpu"), Catch::Contains("expected cpu"));
}
