// @wp.kernel(module="unique"): each such kernel is a module of its own, with
// its own options, hash, compile and cache entry, while the file's loaded
// module still offers every kernel by name (Warp's unique modules).
#include "test_support.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/cache/cache.hpp"
#include "weft/host/host.hpp"
#include "weft/support/build_identity.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

using namespace weft;
using weft::test::message_of;
using weft::test::TempDir;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

HostOptions options_for(const TempDir &cache) { return weft::test::cached_host_options(cache.path); }

std::vector<float> run(const Kernel &k, std::vector<float> values) {
    Array a = Array::from_vector(f32, values);
    k.launch({static_cast<std::int64_t>(values.size())}, {a});
    return a.to_vector<float>();
}

std::string read(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// Two unique kernels of the same code, and one of the file's module.
const char *twins = R"(import warp as wp


@wp.kernel(module="unique")
def left(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


@wp.kernel(module="unique")
def right(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


@wp.kernel
def plain(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] + 1.0
)";

} // namespace

TEST_CASE("unique modules: kernels of equal code get their own modules, hashes and cache entries, and a new host loads them warm") {
    TempDir cache("unique_twins");
    std::string hash_a, hash_b, hash_plain, combined;
    {
        Host host(options_for(cache));
        const CompiledModule m = host.load_module_source("twins", twins);
        CHECK(m.name() == "twins");
        std::vector<std::string> names = m.kernel_names();
        std::sort(names.begin(), names.end());
        CHECK(names == std::vector<std::string>{"left", "plain", "right"});
        const Kernel a = m.kernel("left"), b = m.kernel("right"), p = m.kernel("plain");
        CHECK(a.module() == "twins.left");
        CHECK(b.module() == "twins.right");
        CHECK(p.module() == "twins");
        hash_a = a.module_hash();
        hash_b = b.module_hash();
        hash_plain = p.module_hash();
        combined = m.hash();
        CHECK(hash_a.size() == 64);
        CHECK(hash_a != hash_b); // the name is part of the module's identity
        CHECK(hash_a != hash_plain);
        CHECK(combined != hash_a);
        CHECK(combined != hash_plain);
        CHECK(fs::is_directory(host.cache().entry_directory("twins.left", hash_a)));
        CHECK(fs::is_directory(host.cache().entry_directory("twins.right", hash_b)));
        CHECK(fs::is_directory(host.cache().entry_directory("twins", hash_plain)));
        CHECK(host.cache_counters().compiles == 3);
        CHECK(run(a, {1, 2}) == std::vector<float>{2, 4});
        CHECK(run(b, {3, 4}) == std::vector<float>{6, 8});
        CHECK(run(p, {3, 4}) == std::vector<float>{4, 5});
        // Loading it again gives the same module.
        CHECK(host.load_module_source("twins", twins) == m);
        CHECK(host.cache_counters().compiles == 3);
    }
    Host fresh(options_for(cache));
    const CompiledModule m = fresh.load_module_source("twins", twins);
    CHECK(m.from_cache());
    CHECK(m.hash() == combined);
    CHECK(m.kernel("left").module_hash() == hash_a);
    CHECK(m.kernel("right").module_hash() == hash_b);
    CHECK(m.kernel("plain").module_hash() == hash_plain);
    const CacheCounters c = fresh.cache_counters();
    CHECK(c.compiles == 0);
    if (!build_identity().empty()) CHECK(c.warm_hits == 3); // no front end: the content-key record names all three
    CHECK(run(m.kernel("right"), {5}) == std::vector<float>{10});
    CHECK(run(m.kernel("plain"), {5}) == std::vector<float>{6});
}

TEST_CASE("unique modules: mode=debug is the unique kernel's alone, and the file's options do not reach it (as in Warp)") {
    TempDir cache("unique_debug");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("dbg", R"(import warp as wp


@wp.kernel(module="unique", module_options={"mode": "debug"})
def checked(a: wp.array(dtype=float)):
    i = wp.tid()
    assert a[i] > 10.0
    a[i] = a[i] + 1.0


@wp.kernel
def unchecked(a: wp.array(dtype=float)):
    i = wp.tid()
    assert a[i] > 10.0
    a[i] = a[i] + 1.0


@wp.kernel(module="unique", module_options={"mode": "debug"})
def shift(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i + 1] = 1.0
)");
    // The file's module is a release build: its assert is not checked.
    CHECK(run(m.kernel("unchecked"), {1, 2}) == std::vector<float>{2, 3});
    Array a = Array::from_vector(f32, std::vector<float>{1, 2});
    CHECK_THAT(message_of<LaunchError>([&] { m.kernel("checked").launch({2}, {a}); }),
               Catch::Contains("kernel 'checked' (module 'dbg.checked')") && Catch::Contains("2 expect_* checks failed"));
    // Its generated text names the file, as the file's module does: the messages point at dbg.py.
    const fs::path generated =
        host.cache().entry_directory("dbg.checked", m.kernel("checked").module_hash()) / "module.src";
    CHECK_THAT(read(generated), Catch::Contains("\"dbg.py\"") && !Catch::Contains("dbg.checked.py"));
    Array b = Array::zeros(f32, {4});
    CHECK_THAT(message_of<LaunchError>([&] { m.kernel("shift").launch({4}, {b}); }),
               Catch::Contains("array 'a' index [4] is out of bounds for shape [4]"));

    // wp.set_module_options is the file module's: the unique kernel keeps the loader's (release) mode.
    const CompiledModule f = host.load_module_source("dbg_file", R"(import warp as wp
wp.set_module_options({"mode": "debug"})


@wp.kernel(module="unique")
def own(a: wp.array(dtype=float)):
    i = wp.tid()
    assert a[i] > 10.0
    a[i] = a[i] + 1.0


@wp.kernel
def filed(a: wp.array(dtype=float)):
    i = wp.tid()
    assert a[i] > 10.0
    a[i] = a[i] + 1.0
)");
    CHECK(run(f.kernel("own"), {1}) == std::vector<float>{2});
    Array c = Array::from_vector(f32, std::vector<float>{1});
    CHECK_THAT(message_of<LaunchError>([&] { f.kernel("filed").launch({1}, {c}); }),
               Catch::Contains("kernel 'filed' (module 'dbg_file')") && Catch::Contains("1 expect_* check failed"));
}

TEST_CASE("unique modules: optimization_level and fast_math change the unique module's hash alone") {
    TempDir cache("unique_options");
    Host host(options_for(cache));
    const auto source = [](const std::string &options) {
        return "import warp as wp\n\n\n@wp.kernel(module=\"unique\", module_options=" + options + R"()
def scaled(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 3.0


@wp.kernel
def plain(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] - 1.0
)";
    };
    const CompiledModule none = host.load_module_source("opts", source("{}"));
    const std::string plain_hash = none.kernel("plain").module_hash(), scaled_hash = none.kernel("scaled").module_hash();
    CHECK(host.cache_counters().compiles == 2);
    const CompiledModule level = host.load_module_source("opts", source(R"({"optimization_level": 1})"));
    CHECK(host.cache_counters().compiles == 3); // the file's module comes from the cache
    CHECK(level.kernel("plain").module_hash() == plain_hash);
    CHECK(level.kernel("scaled").module_hash() != scaled_hash);
    const CompiledModule fast = host.load_module_source("opts", source(R"({"fast_math": True})"));
    CHECK(host.cache_counters().compiles == 4);
    CHECK(fast.kernel("plain").module_hash() == plain_hash);
    CHECK(fast.kernel("scaled").module_hash() != scaled_hash);
    CHECK(fast.kernel("scaled").module_hash() != level.kernel("scaled").module_hash());
    CHECK(run(level.kernel("scaled"), {2}) == std::vector<float>{6});
    CHECK(run(fast.kernel("scaled"), {2}) == std::vector<float>{6});
    CHECK(run(fast.kernel("plain"), {2}) == std::vector<float>{1});
}

TEST_CASE("unique modules: a unique kernel calls the file's function, takes its struct and differentiates") {
    TempDir cache("unique_grad");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("grad", R"(import warp as wp


@wp.struct
class Coeffs:
    scale: float
    offset: float


@wp.func
def cube(x: float, c: Coeffs):
    return c.scale * x * x * x + c.offset


@wp.kernel(module="unique")
def energy(x: wp.array(dtype=float), c: Coeffs, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = cube(x[i], c)


@wp.kernel
def offsets(c: Coeffs, y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = c.offset
)");
    // Only the unique kernel reaches cube: the file's module compiles without it.
    CHECK(host.cache_counters().compiles == 2);
    const Kernel energy = m.kernel("energy");
    CHECK(energy.module() == "grad.energy");
    const Type coeffs = energy.params()[1].type;
    REQUIRE(coeffs.size() == 8);
    const float c[2] = {2.0f, 1.0f};
    const float zero[2] = {0.0f, 0.0f};
    Array x = Array::from_vector(f32, std::vector<float>{1, 2});
    Array y = Array::zeros(f32, {2});
    energy.launch({2}, {x, KernelArg::value(coeffs, c, sizeof c), y});
    CHECK(y.to_vector<float>() == std::vector<float>{3, 17});
    // dy/dx = 3 * scale * x^2: the unique module's own backward pass.
    Array adj_x = Array::zeros(f32, {2});
    Array adj_y = Array::from_vector(f32, std::vector<float>{1, 1});
    energy.launch_adjoint({2}, {x, KernelArg::value(coeffs, c, sizeof c), y},
                          {adj_x, KernelArg::value(coeffs, zero, sizeof zero), adj_y});
    CHECK(adj_x.to_vector<float>() == std::vector<float>{6, 24});
    CHECK(energy.backward().module() == "grad.energy");
    Array o = Array::zeros(f32, {2});
    m.kernel("offsets").launch({2}, {KernelArg::value(m.kernel("offsets").params()[0].type, c, sizeof c), o});
    CHECK(o.to_vector<float>() == std::vector<float>{1, 1});
}

TEST_CASE("unique modules: a file of unique kernels only compiles no module of its own") {
    TempDir cache("unique_only");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("lonely", R"(import warp as wp


@wp.func
def twice(x: float):
    return x * 2.0


@wp.kernel(module="unique")
def only(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = twice(a[i])
)");
    CHECK(host.cache_counters().compiles == 1);
    CHECK(m.name() == "lonely");
    CHECK(m.kernel_names() == std::vector<std::string>{"only"});
    CHECK(m.kernel("only").module() == "lonely.only");
    CHECK(m.hash() == m.kernel("only").module_hash());
    CHECK(run(m.kernel("only"), {1.5f}) == std::vector<float>{3});
    // Unloading the file unloads its unique modules with it.
    CHECK(host.unload_module("lonely"));
    CHECK_FALSE(host.loaded_module("lonely").has_value());
}

TEST_CASE("unique modules: AOT builds write one artifact per module, for the CPU and through NVRTC") {
    TempDir dir("unique_aot");
    const fs::path file = dir.path / "twins.py";
    {
        std::ofstream out(file);
        out << twins;
    }
    Host host(options_for(dir));
    const std::vector<fs::path> cpu = host.compile_aot(file, {Target::cpu()}, {}, dir.path / "out");
    REQUIRE(cpu.size() == 3);
    CHECK(cpu[0].filename() == "twins.cpu.o");
    CHECK(cpu[1].filename() == "twins.left.cpu.o");
    CHECK(cpu[2].filename() == "twins.right.cpu.o");
    if (!backend::nvrtc_available()) return; // built without a CUDA toolkit
    const std::vector<fs::path> ptx = host.compile_aot(file, {Target::cuda_ptx(90)}, {}, dir.path / "out");
    REQUIRE(ptx.size() == 3);
    CHECK(ptx[1].filename() == "twins.left.cuda-compute_90-ptx.ptx");
    // Each unit holds its own kernel's entry only.
    const std::string plain = read(ptx[0]), a = read(ptx[1]), b = read(ptx[2]);
    CHECK_THAT(plain, Catch::Contains(".entry wk5plain_cuda(") && !Catch::Contains("wk4left"));
    CHECK_THAT(a, Catch::Contains(".entry wk4left_cuda(") && !Catch::Contains("wk5right") &&
                      !Catch::Contains("wk5plain"));
    CHECK_THAT(b, Catch::Contains(".entry wk5right_cuda(") && !Catch::Contains("wk4left"));
}

TEST_CASE("unique modules: the instances of a generic unique kernel share its module") {
    TempDir cache("unique_generic");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("gen", R"(import warp as wp
from typing import Any


@wp.kernel(module="unique")
def twice(y: wp.array(dtype=Any), x: wp.array(dtype=Any)):
    i = wp.tid()
    y[i] = x[i] + x[i]


wp.overload(twice, [wp.array(dtype=wp.float32), wp.array(dtype=wp.float32)])
wp.overload(twice, [wp.array(dtype=wp.float64), wp.array(dtype=wp.float64)])
)");
    CHECK(host.cache_counters().compiles == 1);
    REQUIRE(m.kernels().size() == 2);
    CHECK(m.kernels()[0].module() == "gen.twice");
    CHECK(m.kernels()[1].module() == "gen.twice");
    const Type f64 = Type::scalar(Scalar::Float64);
    Array x = Array::from_vector(f64, std::vector<double>{1.5, -2});
    Array y = Array::zeros(f64, {2});
    m.kernel("twice").launch({2}, {y, x}); // the float64 instance, picked by the arguments
    CHECK(y.to_vector<double>() == std::vector<double>{3, -4});
}
