// A CPU module's kernels compile as translation units of their own, on
// several threads and cached apart (codegen::CompileUnit), and the module
// still loads, runs, differentiates, fails its checks and warm-loads as one;
// an edit recompiles the units whose code it changed (issue 42).
#include "test_support.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/codegen/cpp_emitter.hpp"
#include "weft/host/host.hpp"
#include "weft/support/file.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace weft;
using weft::test::TempDir;
namespace fs = std::filesystem;

namespace {

/// Twelve kernels of polynomial and vector work, kernel k computing
/// out[i] = x[i] * (k + 1) + (number of loop rounds) and a vector length on
/// the side, so that every kernel's result tells it ran its own code.
std::string many_kernels() {
    std::string s = "import warp as wp\n\n\n@wp.func\ndef poly(x: float, k: float):\n    return x * k + 1.0\n";
    for (int k = 0; k < 12; ++k) {
        const std::string n = std::to_string(k);
        s += "\n\n@wp.kernel\ndef k" + n + "(x: wp.array(dtype=float), out: wp.array(dtype=float), " +
             "v: wp.array(dtype=wp.vec3)):\n"
             "    i = wp.tid()\n"
             "    acc = float(0.0)\n"
             "    for r in range(4):\n"
             "        acc = acc + poly(0.0, float(r))\n"
             "    p = wp.vec3(x[i], 2.0 * x[i], 3.0)\n"
             "    q = wp.cross(p, wp.vec3(0.0, 0.0, 1.0))\n"
             "    m = wp.mat33(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)\n"
             "    v[i] = m * (q + wp.vec3(0.0, 0.0, " + n + ".0))\n"
             "    out[i] = x[i] * " + std::to_string(k + 1) + ".0 + acc\n";
    }
    s += "\n\n@wp.kernel\ndef checked(x: wp.array(dtype=float)):\n    i = wp.tid()\n    wp.expect_eq(x[i], 1.0)\n";
    return s;
}

/// Kernel names of the compile units the cache holds for `module` that are
/// not in `before` (each unit entry keeps the unit's text, which names its
/// kernels' mangled entry points), and the entry directories now held.
std::set<std::string> units_added(const fs::path &cache, const std::string &module, const std::vector<std::string> &kernels,
                                  std::set<fs::path> &before) {
    std::set<std::string> added;
    for (const CacheEntryInfo &e : ArtifactCache(cache).list()) {
        if (e.module != module || std::find(e.targets.begin(), e.targets.end(), "cpu-unit") == e.targets.end()) continue;
        if (!before.insert(e.directory).second) continue;
        const std::string text = read_input_file(e.directory / "module.src", 64 << 20, "unit source");
        for (const std::string &k : kernels)
            if (text.find("wk" + std::to_string(k.size()) + k + "_cpu") != std::string::npos) added.insert(k);
    }
    return added;
}

void check_kernels(const CompiledModule &m) {
    const Type f32 = Type::scalar(Scalar::Float32);
    const Type v3 = Type::vector(Scalar::Float32, 3);
    for (int k = 0; k < 12; ++k) {
        Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3});
        Array out = Array::zeros(f32, {3});
        Array v = Array::zeros(v3, {3});
        m.kernel("k" + std::to_string(k)).launch({3}, {x, out, v});
        // acc = 1 + 1 + 1 + 1 (poly(0, r) == 1)
        CHECK(out.to_vector<float>() == std::vector<float>{float(k + 1) + 4, 2 * float(k + 1) + 4, 3 * float(k + 1) + 4});
        // cross((x, 2x, 3), (0, 0, 1)) = (2x, -x, 0)
        std::vector<float> vs(9);
        v.copy_to_host(vs.data(), vs.size() * sizeof(float));
        CHECK(vs == std::vector<float>{2, -1, float(k), 4, -2, float(k), 6, -3, float(k)});
    }
}

} // namespace

TEST_CASE("a module compiled as units runs every kernel, shares its check counter and warm-loads") {
    TempDir cache("compile_units");
    TempDir work("compile_units_src");
    const fs::path file = work.path / "many.py";
    write_file_atomically(file, many_kernels());
    fs::path artifact;
    std::string hash;
    {
        Host host(weft::test::cached_host_options(cache.path));
        const CompiledModule m = host.load_module(file);
        // One unit per kernel, each compiled once and kept in the cache.
        CHECK(host.cache_counters().unit_compiles == 13);
        CHECK(host.cache_counters().unit_hits == 0);
        const std::string bytes = read_input_file(m.artifact_path(), 64 << 20, "artifact");
        CHECK(backend::is_object_bundle(bytes));
        CHECK(backend::unbundle_objects(std::vector<char>(bytes.begin(), bytes.end())).size() == 13);
        check_kernels(m);

        // A view with gaps runs k3's strided copy, compiled from k3's unit
        // alone (the functions it reaches, not the module's other kernels).
        {
            const Type f32 = Type::scalar(Scalar::Float32);
            Array wide = Array::from_vector(f32, std::vector<float>{1, 0, 2, 0, 3, 0});
            Array out = Array::zeros(f32, {3});
            Array v = Array::zeros(Type::vector(Scalar::Float32, 3), {3});
            m.kernel("k3").launch({3}, {wide.view({3}, {8}), out, v});
            CHECK(out.to_vector<float>() == std::vector<float>{8, 12, 16});
            bool found = false;
            for (const CacheEntryInfo &e : ArtifactCache(cache.path).list()) {
                const std::string text = read_input_file(e.directory / "module.src", 64 << 20, "source");
                // Not the module's own entry: the strided copy's, under a hash derived from it.
                if (e.hash == m.hash() || e.targets != std::vector<std::string>{"cpu"} ||
                    text.find("wk2k3_cpu_strided") == std::string::npos)
                    continue;
                found = true;
                CHECK(text.find("wk2k4_cpu") == std::string::npos);
            }
            CHECK(found);
        }

        // The check counter is one for the module: `checked` sits in a unit of its own.
        const Type f32 = Type::scalar(Scalar::Float32);
        CHECK_THROWS_WITH(m.kernel("checked").launch({2}, {Array::from_vector(f32, std::vector<float>{1, 5})}),
                          Catch::Contains("kernel 'checked'") && Catch::Contains("1 expect_* check failed"));
        CHECK_NOTHROW(m.kernel("checked").launch({2}, {Array::from_vector(f32, std::vector<float>{1, 1})}));

        // The backward pass is in units too, and its gradients are right.
        Array x = Array::from_vector(f32, std::vector<float>{1, 2});
        Array out = Array::zeros(f32, {2});
        Array v = Array::zeros(Type::vector(Scalar::Float32, 3), {2});
        Array adj_x = Array::zeros(f32, {2});
        Array adj_out = Array::from_vector(f32, std::vector<float>{1, 1});
        Array adj_v = Array::zeros(Type::vector(Scalar::Float32, 3), {2});
        m.kernel("k11").launch_adjoint({2}, {x, out, v}, {adj_x, adj_out, adj_v});
        CHECK(adj_x.to_vector<float>() == std::vector<float>{12, 12});
        artifact = m.artifact_path();
        hash = m.hash();
    }
    // A new host loads the bundle from the cache.
    Host again(weft::test::cached_host_options(cache.path));
    const CompiledModule warm = again.load_module(file);
    CHECK(warm.from_cache());
    CHECK(warm.hash() == hash);
    check_kernels(warm);

    // An AOT copy of a module in units is an archive of the units' objects.
    const std::vector<fs::path> aot = again.compile_aot(file, {Target::cpu()}, {}, work.path / "aot");
    REQUIRE(aot.size() == 1);
    CHECK(aot[0].filename() == "many.cpu.a");
    // It holds every copy of every kernel; the JIT's artifact the dense copies only.
    const std::string aot_bytes = read_input_file(aot[0], 64 << 20, "AOT copy");
    const std::string jit_bytes = read_input_file(artifact, 64 << 20, "artifact");
    CHECK(aot_bytes.rfind("!<arch>\n", 0) == 0);
    CHECK(jit_bytes.rfind("!<arch>\n", 0) == 0);
    CHECK(aot_bytes.find("wk2k0_cpu_strided") != std::string::npos);
    CHECK(jit_bytes.find("wk2k0_cpu_strided") == std::string::npos);
    CHECK(jit_bytes.find("wk2k0_cpu_dense") != std::string::npos);
}

TEST_CASE("a module whose CPU preamble holds code is compiled as one unit") {
    // Every unit would define the preamble's function again (a duplicate
    // symbol at link) and its static variable once per unit.
    TempDir cache("compile_units_preamble");
    TempDir work("compile_units_preamble_src");
    const fs::path file = work.path / "many.py";
    write_file_atomically(file, many_kernels());
    Host host(weft::test::cached_host_options(cache.path));
    ModuleLoadOptions options;
    options.build_options = ModuleBuildOptions{};
    options.build_options->extra_cpu_preamble =
        "static int weft_test_calls = 0;\nint weft_test_count() { return ++weft_test_calls; }\n";
    const CompiledModule m = host.load_module(file, options);
    CHECK(host.cache_counters().unit_compiles == 0);
    CHECK_FALSE(backend::is_object_bundle(read_input_file(m.artifact_path(), 64 << 20, "artifact")));
    check_kernels(m);
}

namespace {

const char *edit_base = R"(import warp as wp

SCALE = wp.constant(2.0)
OFFSET = wp.constant(1.0)


@wp.struct
class Pair:
    a: float
    b: float


@wp.func
def shared(x: float):
    return x * SCALE


@wp.func
def lonely(x: float):
    return x + 1.0


@wp.kernel
def uses_shared(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = shared(x[i])


@wp.kernel
def also_shared(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = shared(x[i]) + 1.0


@wp.kernel
def uses_lonely(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = lonely(x[i])


@wp.kernel
def uses_offset(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] + OFFSET


@wp.kernel
def plain(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] * 3.0
)";

std::string replaced(std::string text, const std::string &from, const std::string &to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

/// out[0] of `kernel` at x = 1.
float run_at_one(const CompiledModule &m, const std::string &kernel) {
    const Type f32 = Type::scalar(Scalar::Float32);
    Array x = Array::from_vector(f32, std::vector<float>{1});
    Array out = Array::zeros(f32, {1});
    m.kernel(kernel).launch({1}, {x, out});
    return out.to_vector<float>()[0];
}

} // namespace

TEST_CASE("an edit recompiles the compile units whose code it changed, and only those") {
    TempDir cache("compile_units_edit");
    TempDir work("compile_units_edit_src");
    const fs::path file = work.path / "edits.py";
    const fs::path header = work.path / "dependency.h";
    write_file_atomically(header, "// a build dependency: its digest is in every unit's key\n");
    const std::vector<std::string> kernels{"uses_shared", "also_shared", "uses_lonely", "uses_offset", "plain"};
    const std::set<std::string> all(kernels.begin(), kernels.end());
    Host host(weft::test::cached_host_options(cache.path));
    ModuleLoadOptions options;
    options.build_options = ModuleBuildOptions{};
    options.build_options->extra_build_dependencies = {header.string()};
    std::set<fs::path> seen;
    // Loads `text`, returns the kernels of the units it compiled, and checks
    // that the module's counters agree with the cache.
    const auto load = [&](const std::string &text) {
        write_file_atomically(file, text);
        const CacheCounters before = host.cache_counters();
        const CompiledModule m = host.load_module(file, options);
        const std::set<std::string> added = units_added(cache.path, "edits", kernels, seen);
        const CacheCounters after = host.cache_counters();
        CHECK(after.unit_compiles - before.unit_compiles == added.size());
        CHECK(after.unit_hits - before.unit_hits == (after.compiles > before.compiles ? 5 - added.size() : 0));
        return std::make_pair(m, added);
    };

    auto [base, first] = load(edit_base);
    CHECK(first == all);
    CHECK(run_at_one(base, "uses_shared") == 2.0f);

    SECTION("a kernel's body, with lines added that move every kernel after it") {
        auto [m, rebuilt] = load(replaced(edit_base, "    out[i] = shared(x[i])\n", "    y = x[i] * 10.0\n\n\n    out[i] = shared(y)\n"));
        CHECK(rebuilt == std::set<std::string>{"uses_shared"});
        CHECK(run_at_one(m, "uses_shared") == 20.0f);
        CHECK(run_at_one(m, "plain") == 3.0f);
    }
    SECTION("a function every kernel that reaches it") {
        auto [m, rebuilt] = load(replaced(edit_base, "    return x * SCALE\n", "    return x * SCALE * 4.0\n"));
        CHECK(rebuilt == std::set<std::string>{"uses_shared", "also_shared"});
        CHECK(run_at_one(m, "also_shared") == 9.0f);
        CHECK(run_at_one(m, "uses_lonely") == 2.0f);
    }
    SECTION("a constant: the kernels whose code names it, through functions too") {
        auto [m, rebuilt] = load(replaced(edit_base, "OFFSET = wp.constant(1.0)", "OFFSET = wp.constant(5.0)"));
        CHECK(rebuilt == std::set<std::string>{"uses_offset"});
        CHECK(run_at_one(m, "uses_offset") == 6.0f);
        auto [m2, rebuilt2] = load(replaced(edit_base, "SCALE = wp.constant(2.0)", "SCALE = wp.constant(7.0)"));
        CHECK(rebuilt2 == std::set<std::string>{"uses_shared", "also_shared"});
        CHECK(run_at_one(m2, "uses_shared") == 7.0f);
    }
    SECTION("a struct: every unit (structs are declarations every unit holds)") {
        auto [m, rebuilt] = load(replaced(edit_base, "    b: float\n", "    b: float\n    c: int\n"));
        CHECK(rebuilt == all);
    }
    SECTION("a module option: every unit") {
        auto [m, rebuilt] = load(replaced(edit_base, "import warp as wp\n", "import warp as wp\nwp.set_module_options({\"fast_math\": True})\n"));
        CHECK(rebuilt == all);
    }
    SECTION("a build dependency (as a plugin's headers are): every unit") {
        write_file_atomically(header, "// edited\n");
        auto [m, rebuilt] = load(edit_base);
        CHECK(rebuilt == all);
        CHECK(run_at_one(m, "plain") == 3.0f);
    }
    SECTION("a comment that moves every line: a new module hash, no unit compiled") {
        const CacheCounters before = host.cache_counters();
        auto [m, rebuilt] = load("# a new first line\n" + std::string(edit_base));
        CHECK(rebuilt.empty());
        CHECK(m.hash() != base.hash());
        CHECK(host.cache_counters().compiles == before.compiles + 1);
        CHECK(host.cache_counters().unit_hits == before.unit_hits + 5);
        CHECK(run_at_one(m, "uses_offset") == 2.0f);
    }
    SECTION("a kernel added, one removed: no other unit") {
        std::string text = replaced(edit_base, "@wp.kernel\ndef uses_lonely", "@wp.kernel\ndef added(x: wp.array(dtype=float), out: wp.array(dtype=float)):\n    out[wp.tid()] = 4.0\n\n\n@wp.kernel\ndef uses_lonely");
        text = text.substr(0, text.find("@wp.kernel\ndef plain"));
        const std::vector<std::string> now{"uses_shared", "also_shared", "added", "uses_lonely", "uses_offset"};
        write_file_atomically(file, text);
        const CompiledModule m = host.load_module(file, options);
        CHECK(units_added(cache.path, "edits", now, seen) == std::set<std::string>{"added", "uses_shared"});
        CHECK(run_at_one(m, "added") == 4.0f);
    }
}

TEST_CASE("a module of more kernels than max_units groups them by name, and an edit recompiles one group") {
    TempDir cache("compile_units_groups");
    TempDir work("compile_units_groups_src");
    const fs::path file = work.path / "wide.py";
    const std::size_t n = codegen::max_units + 8;
    const auto source = [&](int changed) {
        std::string s = "import warp as wp\n";
        for (std::size_t k = 0; k < n; ++k)
            s += "\n\n@wp.kernel\ndef w" + std::to_string(k) + "(out: wp.array(dtype=float)):\n    out[wp.tid()] = " +
                 std::to_string(static_cast<int>(k) == changed ? 1000 + k : k) + ".0\n";
        return s;
    };
    Host host(weft::test::cached_host_options(cache.path));
    write_file_atomically(file, source(-1));
    const CompiledModule m = host.load_module(file);
    const std::uint64_t units = host.cache_counters().unit_compiles;
    CHECK(units <= codegen::max_units);
    CHECK(units >= codegen::max_units / 2); // the names spread over the units
    const Type f32 = Type::scalar(Scalar::Float32);
    for (std::size_t k = 0; k < n; k += 7) {
        Array out = Array::zeros(f32, {1});
        m.kernel("w" + std::to_string(k)).launch({1}, {out});
        CHECK(out.to_vector<float>() == std::vector<float>{static_cast<float>(k)});
    }
    // One kernel's body edited recompiles the one unit its name hashes to (its
    // signature, and with it the first unit's digest of them, is unchanged).
    write_file_atomically(file, source(5));
    const CompiledModule edited = host.load_module(file);
    CHECK(host.cache_counters().unit_compiles - units == 1);
    Array out = Array::zeros(f32, {1});
    edited.kernel("w5").launch({1}, {out});
    CHECK(out.to_vector<float>() == std::vector<float>{1005.0f});
}

TEST_CASE("a unit that fails to compile keeps the others: after the fix only it compiles") {
    TempDir cache("compile_units_failure");
    TempDir work("compile_units_failure_src");
    const fs::path file = work.path / "snippets.py";
    const auto source = [](const std::string &body) {
        return "import warp as wp\n\n\n@wp.func_native(\"" + body +
               "\")\ndef twice(x: float) -> float:\n    ...\n\n\n"
               "@wp.kernel\ndef uses_native(out: wp.array(dtype=float)):\n    out[0] = twice(3.0)\n\n\n"
               "@wp.kernel\ndef plain(out: wp.array(dtype=float)):\n    out[0] = 7.0\n";
    };
    Host host(weft::test::cached_host_options(cache.path));
    write_file_atomically(file, source("return x +;"));
    const std::string message = weft::test::message_of<UserError>([&] { (void)host.load_module(file); });
    // The snippet's error, at its line in the .py file.
    CHECK_THAT(message, Catch::Contains("snippets.py:4:11: error: expected expression"));
    CHECK(host.cache_counters().unit_compiles == 1); // plain's, kept
    write_file_atomically(file, source("return x + x;"));
    const CompiledModule m = host.load_module(file);
    CHECK(host.cache_counters().unit_compiles == 2); // uses_native's alone
    const Type f32 = Type::scalar(Scalar::Float32);
    Array out = Array::zeros(f32, {1});
    m.kernel("uses_native").launch({1}, {out});
    CHECK(out.to_vector<float>() == std::vector<float>{6.0f});
    m.kernel("plain").launch({1}, {out});
    CHECK(out.to_vector<float>() == std::vector<float>{7.0f});
}
