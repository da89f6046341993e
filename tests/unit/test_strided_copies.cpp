// A CPU kernel with a dense copy compiles its strided copy (for arrays with
// gaps in their last dimension) only when a launch first needs it: from the
// cache when it is there, else compiled from the module's source as loaded.
#include "test_support.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"

#include <catch2/catch.hpp>
#include <weft/rt/array.h>

#include <filesystem>
#include <fstream>

using namespace weft;
using weft::test::TempDir;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

HostOptions options_for(const TempDir &cache) { return weft::test::cached_host_options(cache.path); }

const char *two_kernels = R"(import warp as wp


@wp.kernel
def axpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel
def scale2d(m: wp.array2d(dtype=float), s: float):
    i, j = wp.tid()
    m[i, j] = m[i, j] * s + float(j)
)";

void write(const fs::path &p, const std::string &text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
}

/// Every other float of `values` (a view with an 8-byte stride) and the backing array.
struct EveryOther {
    Array base;
    Array view;
    explicit EveryOther(std::vector<float> values)
        : base(Array::from_vector(f32, values)),
          view(base.view({static_cast<std::int64_t>(values.size() / 2)}, {8})) {}
};

} // namespace

TEST_CASE("strided copies: a dense launch compiles nothing more, the first strided launch compiles that kernel's copy once") {
    TempDir cache("strided");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("two", two_kernels);
    CHECK(host.cache_counters().compiles == 1);
    const Kernel axpy = m.kernel("axpy");

    Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3, 4});
    Array y = Array::from_vector(f32, std::vector<float>{10, 20, 30, 40});
    axpy.launch({4}, {x, y, 2.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{12, 24, 36, 48});
    CHECK(host.cache_counters().compiles == 1);

    // x strided: the strided copy of axpy alone is compiled, then reused.
    EveryOther xs({1, -1, 2, -1, 3, -1, 4, -1});
    axpy.launch({4}, {xs.view, y, 1.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{13, 26, 39, 52});
    CHECK(host.cache_counters().compiles == 2);
    EveryOther ys({0, 5, 0, 5, 0, 5, 0, 5});
    axpy.launch({4}, {x, ys.view, 3.0f});
    CHECK(ys.base.to_vector<float>() == std::vector<float>{3, 5, 6, 5, 9, 5, 12, 5});
    CHECK(host.cache_counters().compiles == 2);
    axpy.launch({4}, {x, y, 1.0f}); // dense again: the dense copy
    CHECK(y.to_vector<float>() == std::vector<float>{14, 28, 42, 56});

    // The other kernel's strided copy is its own compile: a 2x3 view of a 2x6 array.
    Array wide = Array::from_vector(f32, std::vector<float>{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0});
    Array cols = wide.view({2, 3}, {24, 8});
    m.kernel("scale2d").launch({2, 3}, {cols, 10.0f});
    CHECK(wide.to_vector<float>() == std::vector<float>{10, 0, 21, 0, 32, 0, 40, 0, 51, 0, 62, 0});
    CHECK(host.cache_counters().compiles == 3);
}

TEST_CASE("strided copies: a new host takes a strided copy from the cache, and a warm load compiles none") {
    TempDir cache("strided");
    {
        Host host(options_for(cache));
        EveryOther xs({1, 0, 2, 0});
        Array y = Array::zeros(f32, {2});
        host.load_module_source("two", two_kernels).kernel("axpy").launch({2}, {xs.view, y, 1.0f});
        CHECK(y.to_vector<float>() == std::vector<float>{1, 2});
        CHECK(host.cache_counters().compiles == 2);
    }
    Host host(options_for(cache));
    const Kernel axpy = host.load_module_source("two", two_kernels).kernel("axpy");
    EveryOther xs({5, 0, 7, 0});
    Array y = Array::zeros(f32, {2});
    axpy.launch({2}, {xs.view, y, 2.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{10, 14});
    CHECK(host.cache_counters().compiles == 0);
}

TEST_CASE("strided copies: gradients through a strided view use the backward module's strided copy") {
    TempDir cache("strided");
    Host host(options_for(cache));
    const char *source = R"(import warp as wp


@wp.kernel
def square(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * x[i]
)";
    const Kernel square = host.load_module_source("sq", source).kernel("square");
    Array xb = Array::from_vector(f32, std::vector<float>{1, 0, 2, 0, 3, 0}, Device::cpu(), true);
    Array x = xb.view({3}, {8});
    Array y = Array::zeros(f32, {3}, Device::cpu(), true);
    Tape tape;
    {
        const Tape::Scope recording = tape.record();
        square.launch({3}, {x, y});
    }
    CHECK(y.to_vector<float>() == std::vector<float>{1, 4, 9});
    tape.backward(y);
    CHECK(xb.grad().to_vector<float>() == std::vector<float>{2, 0, 4, 0, 6, 0});
}

TEST_CASE("strided copies: the copy is compiled from the source as it was loaded, not as the file is now") {
    TempDir dir("strided");
    const fs::path file = dir.path / "kern.py";
    write(file, two_kernels);
    Host host(options_for(dir));
    const Kernel axpy = host.load_module(file).kernel("axpy");
    std::string changed = two_kernels;
    changed.replace(changed.find("a * x[i]"), 8, "a + x[i]");
    write(file, changed);
    EveryOther xs({1, 0, 2, 0});
    Array y = Array::zeros(f32, {2});
    axpy.launch({2}, {xs.view, y, 5.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{5, 10});
    CHECK(host.cache_counters().compiles == 2);
    Array x = Array::from_vector(f32, std::vector<float>{1, 2});
    axpy.launch({2}, {x, y, 3.0f});
    CHECK(y.to_vector<float>() == std::vector<float>{8, 16});
}

TEST_CASE("strided copies: an AOT object holds every copy and each kernel's full entry") {
    TempDir dir("strided");
    const fs::path file = dir.path / "two.py";
    write(file, two_kernels);
    Host host(options_for(dir));
    const std::vector<fs::path> out = host.compile_aot(file, {Target::cpu()}, {}, dir.path / "out");
    REQUIRE(out.size() == 1);
    std::ifstream in(out[0], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::unique_ptr<backend::JitModule> jit = backend::CpuJit::instance().load(std::move(bytes), "two-aot");
    for (const char *suffix : {"", "_dense", "_strided"})
        CHECK(jit->lookup(std::string("wk4axpy_cpu") + suffix) != nullptr);
    // The density test of a JIT launch is the host's, not generated code.
    CHECK_THROWS_WITH(jit->lookup("wk4axpy_cpu_dense_ok"), Catch::Contains("no symbol 'wk4axpy_cpu_dense_ok'"));
    // The full entry picks the copy itself: x strided, y dense, through plain C structures.
    using Entry = void(const weft::launch_t *, void *const *, long long, long long);
    const auto entry = jit->lookup_function<Entry>("wk4axpy_cpu");
    float xs[] = {1, 0, 2, 0, 3, 0};
    float ys[] = {1, 1, 1};
    weft::array_t<float> x{xs, {3, 0, 0, 0}, {8, 0, 0, 0}, 1};
    weft::array_t<float> y{ys, {3, 0, 0, 0}, {4, 0, 0, 0}, 1};
    float a = 2.0f;
    void *args[] = {&x, &y, &a};
    const weft::launch_t launch{1, {3, 0, 0, 0}, 1, 3};
    entry(&launch, args, 0, 3);
    CHECK(std::vector<float>(ys, ys + 3) == std::vector<float>{3, 5, 7});
    x.strides[0] = 4; // dense now: the dense copy
    entry(&launch, args, 0, 3);
    CHECK(std::vector<float>(ys, ys + 3) == std::vector<float>{5, 5, 11});
}
