// Where weft's kernel language must give Warp's answers. The expected values
// are what warp-lang 1.19 computes on the CPU for the same kernel text
// (tests/warp_semantics/warp_side.py prints them; CTest runs it as warp.semantics
// where warp-lang is installed).
#include "test_support.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/kernel/diagnostics.hpp"
#include "weft/kernel/frontend.hpp"
#include "weft/runtime/values.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

using weft::test::TempDir;

HostOptions options_for(const TempDir &cache) { return weft::test::cached_host_options(cache.path); }

const Type f32 = Type::scalar(Scalar::Float32);
const Type i32 = Type::scalar(Scalar::Int32);

/// The float32 words of a 1-D array of float32 composites (vectors, matrices,
/// quaternions, transforms), element after element.
std::vector<float> floats(const Array &a) {
    std::vector<float> v(static_cast<std::size_t>(a.shape()[0]) * a.dtype().size() / sizeof(float));
    a.copy_to_host(v.data(), v.size() * sizeof(float));
    return v;
}

/// Gradients against warp-lang's: the same chain rule, summed in another
/// order, so equal to within `margin`; NaN where warp-lang has NaN.
void check_near(const std::vector<float> &got, const std::vector<float> &want, double margin) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("element " << i);
        if (std::isnan(want[i])) CHECK(std::isnan(got[i]));
        else CHECK(got[i] == Approx(want[i]).margin(margin));
    }
}

// The kernel warp_side.py runs in warp-lang.
const fs::path operators = fs::path(WEFT_WARP_SEMANTICS_DIR) / "operators.py";

} // namespace

TEST_CASE("division, floor division, remainder and negative indices give Warp's values") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    for (const bool debug : {false, true}) {
        INFO((debug ? "debug" : "release") << " mode");
        ModuleLoadOptions options;
        options.debug = debug;
        options.name = debug ? "ops_debug" : "ops";
        const Kernel k = host.load_module(operators, options).kernel("ops");
        Array a = Array::from_vector(i32, std::vector<std::int32_t>{1, 2, 3, 4});
        Array out = Array::zeros(i32, {8});
        Array f = Array::zeros(f32, {6});
        k.launch({1}, {a, out, f});
        // warp-lang 1.19, CPU: C's truncating / and %, a flooring //, a[-1] the last element.
        CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{3, -4, -1, 1, 4, 1, -3, -4});
        CHECK(a.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 1002, 99, 4});
        // rint rounds halfway to even, round away from zero: rint(2.5) + 10 rint(-0.5), round(2.5) + 10 rint(-3.5).
        CHECK(f.to_vector<float>() == std::vector<float>{-1.5f, 1.5f, -4.0f, -3.5f, 2.0f, -37.0f});
    }
}

TEST_CASE("an array's ndim and Warp's named constants in both spellings are constants, as warp-lang gives them") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const Kernel k = host.load_module_source("named_constants", R"(import warp as wp

@wp.kernel
def k(a: wp.array2d(dtype=float), b: wp.array(dtype=int), out: wp.array(dtype=float)):
    out[0] = float(a.ndim) + float(b.ndim) * 10.0
    out[1] = wp.PI
    out[2] = wp.pi
    out[3] = wp.TAU
    out[4] = wp.E
    out[5] = wp.LN2
    out[6] = wp.HALF_PI
    out[7] = wp.INF
    out[8] = wp.log10e + wp.LOG2E
    out[9] = wp.ln10 - wp.PHI
)").kernel("k");
    Array out = Array::zeros(f32, {10});
    k.launch({1}, {Array::zeros(f32, {2, 3}), Array::zeros(i32, {4}), out});
    // What warp-lang 1.19 gives on the CPU for the same kernel.
    CHECK(out.to_vector<float>() == std::vector<float>{12.0f, 3.1415927410125732f, 3.1415927410125732f,
                                                       6.2831854820251465f, 2.7182817459106445f, 0.6931471824645996f,
                                                       1.5707963705062866f, INFINITY, 1.876989483833313f,
                                                       0.6845511198043823f});
}

TEST_CASE("atomic_or, atomic_xor, atomic_and and atomic_exch give warp-lang's values, in release and debug code") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "atomics_bitwise.py";
    for (const bool debug : {false, true}) {
        INFO((debug ? "debug" : "release") << " mode");
        ModuleLoadOptions options;
        options.debug = debug;
        options.name = debug ? "atomics_debug" : "atomics";
        const Kernel k = host.load_module(file, options).kernel("bits");
        Array flags = Array::zeros(Type::scalar(Scalar::UInt32), {4});
        Array words = Array::from_vector(Type::scalar(Scalar::Int64), std::vector<std::int64_t>{7});
        Array masks = Array::from_vector(std::vector<values::vec2i>{values::vec2i{{-1, -1}}});
        Array f = Array::from_vector(f32, std::vector<float>{1.25f});
        Array old = Array::zeros(f32, {3});
        k.launch({32}, {flags, words, masks, f, old});
        // warp-lang 1.19 on the CPU, the same kernel and inputs.
        CHECK(flags.to_vector<std::uint32_t>() ==
              std::vector<std::uint32_t>{286331153u, 572662306u, 1145324612u, 2290649224u});
        CHECK(words.to_vector<std::int64_t>() == std::vector<std::int64_t>{480961098311});
        CHECK(masks.to_vector<values::vec2i>() == std::vector<values::vec2i>{values::vec2i{{-2147483647 - 1, 2147483616}}});
        CHECK(old.to_vector<float>() == std::vector<float>{1.25f, 5.0f, -2.5f});
        CHECK(f.to_vector<float>() == std::vector<float>{-2.5f});
        // No gradient flows through them (as in Warp), and the backward pass builds.
        CHECK(k.backward().params().size() == 10);
    }
    // Warp's element types: bitwise atomics on integers only.
    const std::string bad = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("atomics_float", R"(import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    wp.atomic_xor(a, 0, 1.0)
)");
    });
    CHECK_THAT(bad, Catch::Contains("atomic_xor() works on arrays of [u]int32 or [u]int64 values (or vectors of them), got "
                                    "'float32'"));
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("atomic_cas gives warp-lang's values: a spin lock, one winner per cell, floats compared by value") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "atomic_cas.py";
    const Type i64 = Type::scalar(Scalar::Int64);
    for (const bool debug : {false, true}) {
        INFO((debug ? "debug" : "release") << " mode");
        ModuleLoadOptions options;
        options.debug = debug;
        options.name = debug ? "cas_debug" : "cas";
        const Kernel k = host.load_module(file, options).kernel("cas");
        Array lock = Array::zeros(i32, {1}), counter = Array::zeros(i32, {1}), wins = Array::zeros(i32, {1});
        Array cells = Array::from_vector(i64, std::vector<std::int64_t>{0, -1, 0, -1}).view({2, 2}, {16, 8});
        Array f = Array::from_vector(f32, std::vector<float>{1.5f});
        Array zero = Array::from_vector(f32, std::vector<float>{0.0f});
        Array old = Array::zeros(f32, {4});
        k.launch({64}, {lock, counter, cells, wins, f, zero, old});
        // warp-lang 1.19 on the CPU (one thread): 64, one winner per cell
        // (threads 0 and 1 there; here whichever even and odd thread came first).
        CHECK(counter.to_vector<std::int32_t>() == std::vector<std::int32_t>{64});
        CHECK(wins.to_vector<std::int32_t>() == std::vector<std::int32_t>{2});
        const std::vector<std::int64_t> c = cells.to_vector<std::int64_t>();
        CHECK(c[1] % 2 == 0);
        CHECK(c[3] % 2 == 1);
        CHECK(old.to_vector<float>() == std::vector<float>{1.5f, 2.5f, 2.5f, 0.0f});
        CHECK(f.to_vector<float>() == std::vector<float>{2.5f});
        CHECK(zero.to_vector<float>() == std::vector<float>{3.0f});
        CHECK_NOTHROW(k.backward()); // no gradient flows through it, and the backward pass builds
    }
    const std::string bad = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("cas_vector", R"(import warp as wp

@wp.kernel
def k(a: wp.array(dtype=wp.vec2i)):
    wp.atomic_cas(a, 0, wp.vec2i(1, 2), wp.vec2i(3, 4))
)");
    });
    CHECK_THAT(bad, Catch::Contains("atomic_cas() works on arrays of [u]int32, [u]int64, float32 or float64 scalars, "
                                    "got 'vec2i'"));
    const std::string count = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("cas_count", R"(import warp as wp

@wp.kernel
def k(a: wp.array(dtype=int)):
    wp.atomic_cas(a, 0, 1)
)");
    });
    CHECK_THAT(count, Catch::Contains("atomic_cas() on an array of 1 dimension takes 4 arguments (the array, 1 index, "
                                      "the compared value, the new value), got 3"));
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("inverse, inverse_approx and lower_bound give warp-lang's values, and inverse its gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module(fs::path(WEFT_WARP_SEMANTICS_DIR) / "inverse_search.py");
    const Type m22 = Type::matrix(Scalar::Float32, 2, 2), m33 = Type::matrix(Scalar::Float32, 3, 3),
               m44 = Type::matrix(Scalar::Float32, 4, 4);
    const auto matrices = [](const Type &t, const std::vector<float> &v) {
        return Array::from_host(t, {2}, v.data(), v.size() * sizeof(float), Device::cpu(), true);
    };
    // The second of each pair is singular (2x2, 3x3) or 2 I (4x4).
    Array a2 = matrices(m22, {2, 1, 1, 3, 1, 2, 2, 4});
    Array a3 = matrices(m33, {2, 0.5f, 0.25f, 1, 3, 0, 0.5f, -1, 4, 1, 2, 3, 2, 4, 6, 0, 1, 1});
    Array a4 = matrices(m44, {4, 1, 0, 0.5f, 1, 3, 0.25f, 0, 0, 0.25f, 2, 1, 0.5f, 0, 1, 5,
                              2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2});
    Array o2 = Array::zeros(m22, {2}, Device::cpu(), true), o3 = Array::zeros(m33, {2}, Device::cpu(), true),
          o4 = Array::zeros(m44, {2}, Device::cpu(), true);
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        m.kernel("inverses").launch({2}, {a2, a3, a4, o2, o3, o4, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU, bit for bit.
    CHECK(floats(o2) == std::vector<float>{0x1.3333340000000p-1f, -0x1.99999a0000000p-3f, -0x1.99999a0000000p-3f, 0x1.99999a0000000p-2f, 0.0f, 0.0f, 0.0f, 0.0f});
    CHECK(floats(o3) == std::vector<float>{0x1.1f70480000000p-1f, -0x1.af286c0000000p-4f, -0x1.1f70480000000p-5f, -0x1.7f40600000000p-3f, 0x1.79435e0000000p-2f, 0x1.7f40600000000p-7f, -0x1.df10780000000p-4f, 0x1.af286c0000000p-4f, 0x1.077c420000000p-2f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f});
    CHECK(floats(o4) == std::vector<float>{0x1.1c9ece0000000p-2f, -0x1.85451e0000000p-4f, 0x1.d541c80000000p-6f, -0x1.129f3a0000000p-5f, -0x1.85451e0000000p-4f, 0x1.7a9ae40000000p-2f, -0x1.cfecac0000000p-5f, 0x1.55471e0000000p-6f, 0x1.d541c80000000p-6f, -0x1.cfecac0000000p-5f, 0x1.2149480000000p-1f, -0x1.da96e40000000p-4f, -0x1.129f3a0000000p-5f, 0x1.55471e0000000p-6f, -0x1.da96e40000000p-4f, 0x1.cfecac0000000p-3f, 0x1.0000000000000p-1f, 0.0f, 0.0f, 0.0f, 0.0f, 0x1.0000000000000p-1f, 0.0f, 0.0f, 0.0f, 0.0f, 0x1.0000000000000p-1f, 0.0f, 0.0f, 0.0f, 0.0f, 0x1.0000000000000p-1f});
    CHECK(loss.to_vector<float>() == std::vector<float>{0x1.c302040000000p-1f});
    const std::vector<float> g3 = floats(a3.grad()), g4 = floats(a4.grad()), w3 = {-0x1.43941a0000000p-2f, 0x1.0fbffe0000000p-4f, 0x1.327d360000000p-3f, 0x1.2e91240000000p-4f, 0x1.56e8c00000000p-7f, -0x1.86d0ce0000000p-3f, -0x1.ae51460000000p-8f, 0x1.6847600000000p-4f, 0x1.15e9d20000000p-6f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}, w4 = {0x1.3ab0700000000p-8f, 0x1.d74e0e0000000p-7f, -0x1.c5bdc00000000p-10f, -0x1.19050e0000000p-13f, 0x1.81fc480000000p-7f, -0x1.0fdb1e0000000p-4f, 0x1.43817c0000000p-7f, -0x1.9d32e60000000p-9f, 0x1.e38ece0000000p-6f, -0x1.1c5a240000000p-11f, 0x1.c1936c0000000p-10f, -0x1.afcdcc0000000p-9f, -0x1.fbae940000000p-5f, 0x1.21a0c20000000p-6f, -0x1.828a740000000p-8f, 0x1.e3742a0000000p-8f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, -0x1.0000000000000p-3f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, -0x1.0000000000000p-2f, 0.0f, 0.0f, 0.0f};
    REQUIRE(g3.size() == w3.size());
    REQUIRE(g4.size() == w4.size());
    for (std::size_t i = 0; i < g3.size(); ++i) CHECK(g3[i] == Approx(w3[i]).margin(1e-6));
    for (std::size_t i = 0; i < g4.size(); ++i) CHECK(g4[i] == Approx(w4[i]).margin(1e-6));

    Array values = Array::from_vector(f32, std::vector<float>{0.5f, 1, 1, 2, 3.5f});
    Array ints = Array::from_vector(Type::scalar(Scalar::Int64), std::vector<std::int64_t>{0, 3, 3, 9, 12, 20});
    Array keys = Array::from_vector(f32, std::vector<float>{-1, 0.5f, 1, 1.5f, 3.5f, 9});
    Array found = Array::zeros(Type::scalar(Scalar::Int32), {18});
    m.kernel("search").launch({6}, {values, ints, keys, found});
    // Past the last element: the last index, as Warp's search (never the end).
    CHECK(found.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 0, 1, 3, 4, 4, 1, 1, 1, 3, 3, 3, 0, 1, 3, 3, 4, 5});
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(fs::path(WEFT_WARP_SEMANTICS_DIR) / "inverse_search.py",
                               {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("intersect_tri_tri answers as warp-lang does on 600 triangle pairs, coplanar and touching ones included") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "tri_tri.py";
    const Kernel k = host.load_module(file).kernel("pairs");
    Array hits = Array::zeros(Type::scalar(Scalar::Int32), {600}), hits_d = Array::zeros(Type::scalar(Scalar::Int32), {600});
    k.launch({600}, {hits, hits_d});
    const auto text = [](const Array &a) {
        std::string s;
        for (std::int32_t v : a.to_vector<std::int32_t>()) s += char('0' + v);
        return s;
    };
    // warp-lang 1.19 on the CPU: float32 (which differs from float64 on a few near-degenerate pairs), then float64.
    CHECK(text(hits) == std::string(
        "110110110110110110110110110010110000111011110111110110010010110011101100100110111110111111100110"
        "111110010111110000111110110110110010111000011110010110010110101110110110110011110110110010010110"
        "010010110110010110010110010010110000110110110110110010010110110111110010110110110111011100110110"
        "110010110110110110000110110111110010100000110000000011110110000000110010110110110111110110010110"
        "110110110110110010001010010011110110010100110110100110111111111111111110110110100110111011010110"
        "000010110110101010010110111110100111110110011110111110010010101011110100111011010111010110111000"
        "100110110110100100010110"));
    CHECK(text(hits_d) == std::string(
        "110110110110100110110110110010110010111011110111110110010010100011101110110110101110111111110110"
        "111100010111110000111110110110110010111010011110010110010110101110110110110011110110110010010110"
        "010010110110010110010110010010110010110110110110110010010100110101100010110110110111011100110110"
        "110010110110110110010110110111100010100000110000010011110110000000110010110110100111100110000110"
        "100110110110110010011010010011110110010110110110110100111101111111111110110100110110111011000110"
        "010010110110111010010110111110110101110110011110111110010010111011110110111011010111000110111010"
        "100110110110110110010110"));
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("quat_from_matrix gives warp-lang's values on every branch, and its gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "quat_from_matrix.py";
    const Kernel k = host.load_module(file).kernel("from_matrix");
    const Type m33 = Type::matrix(Scalar::Float32, 3, 3), m44 = Type::matrix(Scalar::Float32, 4, 4);
    const std::vector<float> rotations = {0x1.da785c0000000p-1f, -0x1.342cd60000000p-2f, 0x1.ccf0a40000000p-3f, 0x1.4b453c0000000p-2f, 0x1.e321820000000p-1f, -0x1.1fb9ac0000000p-4f, -0x1.87a7740000000p-3f, 0x1.1a6f360000000p-3f, 0x1.f190c00000000p-1f, 0x1.cff2380000000p-1f, 0x1.20cbbe0000000p-3f, 0x1.9856e40000000p-2f, 0x1.e010c60000000p-3f, -0x1.e785120000000p-1f, -0x1.9149b60000000p-3f, 0x1.6885a20000000p-2f, 0x1.1587b60000000p-2f, -0x1.cab0000000000p-1f, -0x1.f19d180000000p-1f, 0x1.1fd4ce0000000p-3f, 0x1.82b6c60000000p-3f, 0x1.c52b680000000p-3f, 0x1.a35ffa0000000p-1f, 0x1.0efc780000000p-1f, -0x1.48d3d00000000p-4f, 0x1.1cc3b00000000p-1f, -0x1.a783780000000p-1f, -0x1.bc89060000000p-1f, -0x1.28e0da0000000p-2f, 0x1.9c4d4c0000000p-2f, 0x1.74a4bc0000000p-2f, -0x1.d8f27c0000000p-1f, 0x1.e9d7cc0000000p-4f, 0x1.59598a0000000p-2f, 0x1.005d780000000p-2f, 0x1.d0a5920000000p-1f, -0x1.ed64ca0000000p-3f, 0x1.2295540000000p+0f, 0x1.3929de0000000p-2f, 0x1.3929de0000000p-2f, -0x1.ed64ca0000000p-3f, 0x1.2295540000000p+0f, 0x1.2295540000000p+0f, 0x1.3929de0000000p-2f, -0x1.ed64ca0000000p-3f}; // rotations of every branch, the last scaled by 1.2
    std::vector<float> blocks;
    for (int i = 0; i < 5; ++i)
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c)
                blocks.push_back(r < 3 && c < 3 ? rotations[static_cast<std::size_t>(9 * i + 3 * r + c)]
                                                : r == 0 && c == 3 ? 5.0f : r == 3 && c == 1 ? 7.0f : r == c ? 1.0f : 0.0f);
    Array a3 = Array::from_host(m33, {5}, rotations.data(), rotations.size() * sizeof(float), Device::cpu(), true);
    Array a4 = Array::from_host(m44, {5}, blocks.data(), blocks.size() * sizeof(float), Device::cpu(), true);
    Array q = Array::zeros(Type::quaternion(Scalar::Float32), {5}, Device::cpu(), true);
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({5}, {a3, a4, q, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU: the quaternions bit for bit, the gradients (another chain rule) to rounding.
    CHECK(floats(q) == std::vector<float>{0x1.b2f7a80000000p-5f, 0x1.b2f7a80000000p-4f, 0x1.4639be0000000p-3f, 0x1.f5cb4a0000000p-1f, 0x1.f005120000000p-1f, 0x1.8cd0da0000000p-4f, 0x1.8cd0dc0000000p-3f, 0x1.ed944e0000000p-4f, 0x1.858f600000000p-4f, 0x1.e6f3340000000p-1f, 0x1.242b860000000p-2f, 0x1.21bd580000000p-4f, 0x1.89e99c0000000p-3f, 0x1.89e99c0000000p-4f, 0x1.ec64000000000p-1f, 0x1.5c17bc0000000p-3f, 0x1.f7129a0000000p-2f, 0x1.2413aa0000000p-1f, 0x1.2413aa0000000p-1f, -0x1.5030560000000p-2f});
    const std::vector<float> g3 = floats(a3.grad()), g4 = floats(a4.grad()), w3 = {0x1.dc34c60000000p-5f, 0x1.8d96120000000p-1f, 0x1.015b220000000p-1f, -0x1.8d96120000000p-1f, 0x1.dc34c60000000p-5f, -0x1.015b220000000p-2f, -0x1.015b220000000p-1f, 0x1.015b220000000p-2f, 0x1.dc34c60000000p-5f, 0x1.9011a20000000p-4f, 0x1.0009360000000p-1f, -0x1.9ccb540000000p-1f, 0x1.0009360000000p-1f, -0x1.9011a20000000p-4f, -0x1.bec8ac0000000p-4f, -0x1.9ccb540000000p-1f, 0x1.bec8ac0000000p-4f, -0x1.9011a20000000p-4f, -0x1.da3a880000000p-3f, 0x1.de18060000000p-3f, 0x1.c0b91e0000000p-4f, 0x1.de18060000000p-3f, 0x1.da3a880000000p-3f, -0x1.c0f0100000000p-1f, -0x1.c0b91e0000000p-4f, -0x1.c0f0100000000p-1f, -0x1.da3a880000000p-3f, 0x1.6877880000000p-3f, -0x1.e4c3ee0000000p-3f, 0x1.85dd960000000p-2f, 0x1.e4c3ee0000000p-3f, 0x1.6877880000000p-3f, 0x1.291cde0000000p-1f, 0x1.85dd960000000p-2f, 0x1.291cde0000000p-1f, -0x1.6877880000000p-3f, 0x1.c5de8e0000000p-2f, 0x1.b18ae20000000p-1f, -0x1.21fc0e0000000p+0f, 0x1.b18ae20000000p-1f, -0x1.c5de8e0000000p-2f, -0x1.54a1360000000p-3f, -0x1.21fc0e0000000p+0f, 0x1.54a1360000000p-3f, -0x1.c5de8e0000000p-2f}, w4 = {-0x1.7e70540000000p-6f, -0x1.348d420000000p-5f, 0x1.9b67020000000p-6f, 0.0f, 0x1.348d420000000p-5f, -0x1.7e70540000000p-6f, -0x1.1210240000000p-2f, 0.0f, -0x1.9b67020000000p-6f, 0x1.1210240000000p-2f, -0x1.7e70540000000p-6f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0x1.78b0c80000000p-5f, -0x1.5b75380000000p-6f, -0x1.5b753a0000000p-5f, 0.0f, -0x1.5b75380000000p-6f, -0x1.78b0c80000000p-5f, 0x1.2342540000000p-2f, 0.0f, -0x1.5b753a0000000p-5f, -0x1.2342540000000p-2f, -0x1.78b0c80000000p-5f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0x1.8f481c0000000p-8f, 0x1.0c8ba60000000p-2f, -0x1.0da2260000000p-2f, 0.0f, 0x1.0c8ba60000000p-2f, -0x1.8f481c0000000p-8f, -0x1.df235e0000000p-10f, 0.0f, 0x1.0da2260000000p-2f, -0x1.df235e0000000p-10f, 0x1.8f481c0000000p-8f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0x1.6e8f000000000p-8f, 0x1.0b35180000000p-2f, 0x1.090cb60000000p-2f, 0.0f, -0x1.0b35180000000p-2f, 0x1.6e8f000000000p-8f, -0x1.253f360000000p-11f, 0.0f, 0x1.090cb60000000p-2f, -0x1.253f360000000p-11f, -0x1.6e8f000000000p-8f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0x1.e4562c0000000p-3f, -0x1.7b17380000000p-3f, -0x1.7b17380000000p-3f, 0.0f, -0x1.7b17380000000p-3f, -0x1.e4562c0000000p-3f, 0x1.28518e0000000p-2f, 0.0f, -0x1.7b17380000000p-3f, -0x1.28518e0000000p-2f, -0x1.e4562c0000000p-3f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    REQUIRE(g3.size() == w3.size());
    REQUIRE(g4.size() == w4.size());
    for (std::size_t i = 0; i < g3.size(); ++i) CHECK(g3[i] == Approx(w3[i]).margin(2e-6));
    for (std::size_t i = 0; i < g4.size(); ++i) CHECK(g4[i] == Approx(w4[i]).margin(2e-6));
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("matrix_from_cols and matrix_from_rows with their gradients, and vec3ui / vec2l, give warp-lang's values") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "composites_round2.py";
    const Kernel k = host.load_module(file).kernel("build");
    const std::vector<float> av{1, 2, 3, -0.5f, 0.25f, 4};
    Array a = Array::from_host(Type::vector(Scalar::Float32, 3), {2}, av.data(), av.size() * 4, Device::cpu(), true);
    Array m = Array::zeros(Type::matrix(Scalar::Float32, 3, 3), {2}, Device::cpu(), true);
    const std::vector<std::uint32_t> uv{1, 2, 3, 4000000000u, 0, 1};
    Array u = Array::from_host(Type::vector(Scalar::UInt32, 3), {2}, uv.data(), uv.size() * 4);
    Array l = Array::zeros(Type::vector(Scalar::Int64, 2), {2});
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    CHECK(u.dtype().name() == "vec3ui"); // Warp's name for it
    CHECK(l.dtype().name() == "vec2l");
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({2}, {a, m, u, l, loss});
    }
    tape.backward(loss);
    const auto read = [](const Array &x, std::size_t n, auto zero) {
        std::vector<decltype(zero)> v(n);
        x.copy_to_host(v.data(), n * sizeof(zero));
        return v;
    };
    // warp-lang 1.19 on the CPU.
    CHECK(read(m, 18, 0.0f) == std::vector<float>{4, 10, 12, 2, 8, 6, 3, 12, 9, -1.25f, -0.375f, 10, -0.125f, 0.5625f,
                                                  1, -2, 9, 16});
    CHECK(read(u, 6, std::uint32_t(0)) == std::vector<std::uint32_t>{1, 9, 4000000003u, 4000000001u, 7, 4000000001u});
    CHECK(read(l, 4, std::int64_t(0)) == std::vector<std::int64_t>{0, -5, 10000000000LL, -5});
    CHECK(loss.to_vector<float>() == std::vector<float>{34.1875f});
    CHECK(read(a.grad(), 6, 0.0f) == std::vector<float>{7, 7, 6, 2.25f, 2, 8});
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("transform_set_translation / _rotation store into a local with gradients as warp-lang's, and the copy forms") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "transform_setters.py";
    const Kernel k = host.load_module(file).kernel("setters");
    const Type tf = Type::transform(Scalar::Float32);
    const std::vector<float> tv{1, 2, 3, 0, 0.6f, 0, 0.8f, -1, 0.5f, 0, 0.28f, 0, 0, 0.96f};
    const std::vector<float> pv{0.5f, -1, 2, 1, 1, 1};
    Array t = Array::from_host(tf, {2}, tv.data(), tv.size() * 4, Device::cpu(), true);
    Array p = Array::from_host(Type::vector(Scalar::Float32, 3), {2}, pv.data(), pv.size() * 4, Device::cpu(), true);
    Array out = Array::zeros(tf, {4}, Device::cpu(), true);
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({2}, {t, p, out, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU: the values bit for bit.
    CHECK(floats(out) == std::vector<float>{1.0f, -2.0f, 4.0f, 0.0f, 0x1.3333340000000p-1f, 0.0f, 0x1.99999a0000000p-1f, 1.0f, -2.0f, 4.0f, 0.0f, 0x1.ccccce0000000p+0f, 0.0f, 0x1.3333340000000p+1f, 2.0f, 2.0f, 2.0f, 0x1.1eb8520000000p-2f, 0.0f, 0.0f, 0x1.eb851e0000000p-1f, 2.0f, 2.0f, 2.0f, 0x1.ae147c0000000p-1f, 0.0f, 0.0f, 0x1.70a3d60000000p+1f});
    CHECK(loss.to_vector<float>()[0] == Approx(-6.284004211425781).epsilon(1e-6));
    // p's gradient is warp-lang's; t's is the loss's central differences:
    // warp-lang 1.19 also sends the gradient of the overwritten translation
    // and rotation into t (twice (1, 2, -1) here), which weft does not.
    const std::vector<float> gt = floats(t.grad()), gp = floats(p.grad()), wp = {0x1.528f5c0000000p+4f, 38.0f, -0x1.f0a3d80000000p+1f, 0x1.2ffffe0000000p+4f, 0x1.e56d5a0000000p+4f, -0x1.b43fe40000000p+4f};
    for (std::size_t i = 0; i < gp.size(); ++i) CHECK(gp[i] == Approx(wp[i]).margin(2e-5));
    const auto loss_at = [&](std::vector<float> v) {
        Array tt = Array::from_host(tf, {2}, v.data(), v.size() * 4), o = Array::zeros(tf, {4}), l = Array::zeros(f32, {1});
        k.launch({2}, {tt, p, o, l});
        return double(l.to_vector<float>()[0]);
    };
    for (std::size_t i = 0; i < tv.size(); ++i) {
        std::vector<float> up = tv, down = tv;
        up[i] += 0.01f;
        down[i] -= 0.01f;
        CHECK(gt[i] == Approx((loss_at(up) - loss_at(down)) / 0.02).margin(2e-2));
    }
    CHECK(std::vector<float>(gt.begin(), gt.begin() + 3) == std::vector<float>{1, 2, -1});

    // The copy forms (Warp types their results generically, so that they cannot
    // be stored: weft's are transforms), with their gradients.
    const CompiledModule copies = host.load_module_source("setter_copies", R"(import warp as wp

@wp.kernel
def copies(t: wp.array(dtype=wp.transform), out: wp.array(dtype=wp.transform)):
    i = wp.tid()
    out[i] = wp.transform_set_rotation_copy(wp.transform_set_translation_copy(t[i], wp.vec3(4.0, 5.0, 6.0)), t[i].q * 2.0)
)");
    Array t2 = Array::from_host(tf, {2}, tv.data(), tv.size() * 4, Device::cpu(), true);
    Array out2 = Array::zeros(tf, {2}, Device::cpu(), true);
    Tape tape2;
    {
        Tape::Scope scope(tape2);
        copies.kernel("copies").launch({2}, {t2, out2});
    }
    CHECK(floats(out2) == std::vector<float>{4, 5, 6, 0, 1.2f, 0, 1.6f, 4, 5, 6, 0.56f, 0, 0, 1.92f});
    std::vector<float> seed(14, 1.0f);
    Array seed_array = Array::from_host(tf, {2}, seed.data(), seed.size() * 4);
    tape2.backward({{out2, seed_array}});
    // d out / d t: nothing through the replaced translation, 2 through the rotation.
    CHECK(floats(t2.grad()) == std::vector<float>{0, 0, 0, 2, 2, 2, 2, 0, 0, 0, 2, 2, 2, 2});
}

TEST_CASE("an integer literal too wide for int32 is refused, saying what warp-lang would have made of it") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const std::string message = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("wide_literal", R"(import warp as wp

@wp.kernel
def k(x: wp.array(dtype=int)):
    x[0] = x[0] * 2654435761
)");
    });
    CHECK_THAT(message, Catch::Contains("wide_literal.py:5:12") &&
                            Catch::Contains("the literal 2654435761 does not fit int32; warp-lang wraps it to "
                                            "-1640531535: write that value, or compute in a type that holds it"));
    // Written as warp-lang computes it, it runs with warp-lang's result (3 * -1640531535 wraps to -626627309).
    const Kernel k = host.load_module_source("wrapped_literal", R"(import warp as wp

@wp.kernel
def k(x: wp.array(dtype=int)):
    x[0] = x[0] * -1640531535
)").kernel("k");
    Array x = Array::from_vector(Type::scalar(Scalar::Int32), std::vector<std::int32_t>{3});
    k.launch({1}, {x});
    CHECK(x.to_vector<std::int32_t>() == std::vector<std::int32_t>{-626627309});
}

TEST_CASE("quat_to_axis_angle in both of Warp's forms gives warp-lang's values and gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "axis_angle.py";
    const Kernel k = host.load_module(file).kernel("axis_angle");
    const std::vector<float> qv = {0x1.775ef40000000p-4f, 0x1.775ef40000000p-3f, 0x1.1987360000000p-2f, 0x1.e0f5760000000p-1f, -0x1.a81c660000000p-1f, 0x1.a81c660000000p-2f, 0x1.a81c660000000p-3f, 0x1.42e3de0000000p-2f, 0x1.99999a0000000p-4f, -0x1.99999a0000000p-3f, 0x1.3333340000000p-2f, -0x1.cccccc0000000p-1f}; // two unit quaternions and one with w < 0, not unit
    Array q = Array::from_host(Type::quaternion(Scalar::Float32), {3}, qv.data(), qv.size() * 4, Device::cpu(), true);
    Array axes = Array::zeros(Type::vector(Scalar::Float32, 3), {3}, Device::cpu(), true);
    Array angles = Array::zeros(f32, {3}, Device::cpu(), true), loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({3}, {q, axes, angles, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU: values bit for bit, the gradient (another chain rule) to rounding.
    CHECK(floats(axes) == std::vector<float>{0x1.11acf00000000p-2f, 0x1.11acf00000000p-1f, 0x1.9a83660000000p-1f, -0x1.bee9060000000p-1f, 0x1.bee9060000000p-2f, 0x1.bee9060000000p-3f, -0x1.11acec0000000p-2f, 0x1.11acec0000000p-1f, -0x1.9a83640000000p-1f});
    CHECK(angles.to_vector<float>() == std::vector<float>{0x1.6666640000000p-1f, 0x1.4000000000000p+1f, 0x1.9375040000000p-1f});
    CHECK(loss.to_vector<float>()[0] == Approx(11.941961288452148).epsilon(1e-6));
    const std::vector<float> g = floats(q.grad()), w = {0x1.6b0a940000000p+2f, 0x1.0db8140000000p+3f, -0x1.ebe4d00000000p-2f, -0x1.0758740000000p+1f, -0x1.99eaaa0000000p+0f, 0x1.30ccf80000000p+1f, -0x1.3faee60000000p+1f, -0x1.6c68fe0000000p+2f, -0x1.87fe680000000p+1f, -0x1.e4973c0000000p+0f, 0x1.b64ad60000000p+2f, 0x1.2e7bc80000000p+1f};
    REQUIRE(g.size() == w.size());
    for (std::size_t i = 0; i < g.size(); ++i) CHECK(g[i] == Approx(w[i]).margin(1e-4));
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("Warp's warp.math helpers (wp.quat_to_rpy, wp.transform_compose, ...) give warp-lang's values and gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "warp_math.py";
    const CompiledModule module = host.load_module(file);
    const Kernel k = module.kernel("warp_math");
    const std::vector<float> qv = {0x1.a43da20000000p-4f, 0x1.a43da20000000p-3f, 0x1.3b2e3a0000000p-2f, 0x1.d8c5540000000p-1f, -0x1.6c944e0000000p-1f, 0x1.6c944e0000000p-2f, 0x1.e61b120000000p-4f, 0x1.2fd0ec0000000p-1f}; // two unit quaternions
    const std::vector<float> vv = {0.3f, -1.2f, 0.7f, 2.0f, 0.5f, -0.25f};
    const std::vector<float> tv = {1.0f, 2.0f, -0.5f, 0.0f, 0.6f, 0.0f, 0.8f, -1.5f, 0.25f, 3.0f, 0.36f, 0.48f, 0.0f, 0.8f};
    Array q = Array::from_host(Type::quaternion(Scalar::Float32), {2}, qv.data(), qv.size() * 4, Device::cpu(), true);
    Array v = Array::from_host(Type::vector(Scalar::Float32, 3), {2}, vv.data(), vv.size() * 4, Device::cpu(), true);
    Array t = Array::from_host(Type::transform(Scalar::Float32), {2}, tv.data(), tv.size() * 4, Device::cpu(), true);
    Array scalars = Array::zeros(f32, {12}, Device::cpu(), true);
    Array vecs = Array::zeros(Type::vector(Scalar::Float32, 3), {8}, Device::cpu(), true);
    Array quats = Array::zeros(Type::quaternion(Scalar::Float32), {4}, Device::cpu(), true);
    Array mats = Array::zeros(Type::matrix(Scalar::Float32, 4, 4), {4}, Device::cpu(), true);
    Array twists = Array::zeros(Type::vector(Scalar::Float32, 6), {4}, Device::cpu(), true);
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({2}, {q, v, t, scalars, vecs, quats, mats, twists, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU (tests/warp_semantics/warp_math.py): values bit for bit.
    CHECK(floats(scalars) == std::vector<float>{0x1.19999a0000000p+1f, 0x1.6bd8280000000p+0f, 0x1.d7b0500000000p-1f, 0x1.3a0e8c0000000p+1f, 0x1.4978fc0000000p-1f, 0x1.4978fc0000000p-1f, 0x1.6000000000000p+1f, 0x1.09cfdc0000000p+1f, 0x1.939fb80000000p+0f, 0x1.710ac00000000p+1f, 0x1.94441e0000000p-2f, 0x1.94441e0000000p-2f});
    CHECK(floats(vecs) == std::vector<float>{0x1.618c280000000p-3f, -0x1.618c280000000p-1f, 0x1.9c78d80000000p-2f, 0x1.5b6f880000000p-2f, 0x1.48ffe00000000p-2f, 0x1.65e3480000000p-1f, 0x1.20a6900000000p-4f, 0x1.d4ef580000000p-2f, 0x1.410f6a0000000p-1f, 0x1.59999c0000000p+1f, 0x1.ccccd00000000p-2f, -0x1.0ccccc0000000p+1f, 0x1.bc460a0000000p-1f, 0x1.bc460a0000000p-3f, -0x1.bc460a0000000p-4f, -0x1.e8bc140000000p+0f, 0x1.4415d40000000p-1f, -0x1.e2c6640000000p-2f, -0x1.d9e16c0000000p+0f, 0x1.0678600000000p-2f, 0x1.77c1660000000p-1f, -0x1.0000000000000p-1f, 0x1.a000000000000p+2f, 0x1.8000000000000p+1f});
    CHECK(floats(quats) == std::vector<float>{0x0.0p+0f, 0x0.0p+0f, 0x1.43d1360000000p-2f, 0x1.e5b9ce0000000p-1f, 0x1.3aacc20000000p-2f, -0x1.edbbde0000000p-2f, 0x1.6fb5a60000000p-2f, 0x1.79ae640000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x1.91a5540000000p-3f, 0x1.f60eaa0000000p-1f, 0x1.a6b7240000000p-1f, 0x1.fb98900000000p-6f, -0x1.1659c60000000p-2f, 0x1.f94f1c0000000p-2f});
    CHECK(floats(mats) == std::vector<float>{0x1.73dfa60000000p-1f, -0x1.0d79440000000p+0f, 0x1.5389700000000p+0f, 0x1.3333340000000p-2f, 0x1.3896e80000000p-1f, 0x1.9435e00000000p+0f, -0x1.840ac40000000p-3f, -0x1.3333340000000p+0f, -0x1.435e500000000p-2f, 0x1.435e520000000p-1f, 0x1.5794340000000p+1f, 0x1.6666660000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f, 0x1.1eb8580000000p-2f, 0x0.0p+0f, 0x1.eb85200000000p-1f, 0x1.0000000000000p+0f, 0x0.0p+0f, 0x1.0000020000000p+0f, 0x0.0p+0f, 0x1.0000000000000p+1f, -0x1.eb85200000000p-1f, 0x0.0p+0f, 0x1.1eb8580000000p-2f, -0x1.0000000000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f, 0x1.6fc64e0000000p-1f, -0x1.4bb7e20000000p+0f, 0x1.8568900000000p-1f, 0x1.0000000000000p+1f, -0x1.76fc640000000p-2f, -0x1.5a24100000000p-4f, 0x1.64f52e0000000p+1f, 0x1.0000000000000p-1f, -0x1.2edf8c0000000p-1f, -0x1.85688e0000000p+0f, -0x1.9b0ad00000000p-1f, -0x1.0000000000000p-2f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f, 0x1.1412080000000p-1f, 0x1.61e4f80000000p-2f, 0x1.89374c0000000p-1f, -0x1.8000000000000p+0f, 0x1.61e4f80000000p-2f, 0x1.7b4a260000000p-1f, -0x1.26e97a0000000p-1f, 0x1.0000000000000p-2f, -0x1.89374c0000000p-1f, 0x1.26e97a0000000p-1f, 0x1.1eb8580000000p-2f, 0x1.8000000000000p+1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f});
    CHECK(floats(twists) == std::vector<float>{0x1.947ae40000000p+1f, -0x1.0000020000000p+1f, -0x1.eb84e00000000p-4f, -0x1.451eb40000000p+1f, -0x1.35c2960000000p+0f, -0x1.270a400000000p+3f, 0x1.7c28f60000000p+0f, -0x1.ccccd00000000p-2f, 0x1.5d70a40000000p+1f, -0x1.4ccccc0000000p+0f, 0x1.0000020000000p-2f, -0x1.ccccd20000000p-1f, 0x1.1374bc0000000p+1f, -0x1.6e97900000000p+1f, -0x1.147ade0000000p+0f, 0x1.e1aa020000000p+2f, 0x1.83b6480000000p+2f, 0x1.8c8b460000000p+1f, -0x1.add2f80000000p+0f, -0x1.8f7cee0000000p+2f, -0x1.5b645a0000000p+1f, -0x1.978d4c0000000p-1f, 0x1.38d5000000000p+0f, -0x1.51eb8a0000000p-1f});
    CHECK(loss.to_vector<float>()[0] == Approx(0x1.1362640000000p+4).epsilon(1e-6));
    // Gradients: the same chain rule, summed in another order, to rounding.
    const std::vector<std::pair<const Array *, std::vector<float>>> grads = {
        {&q, {-0x1.644fae0000000p-1f, 0x1.da22780000000p+0f, 0x1.9126a40000000p+0f, -0x1.331b040000000p-2f, -0x1.7008e20000000p+2f, 0x1.0ccd200000000p+2f, 0x1.50efd00000000p+2f, 0x1.472dd20000000p+2f}}, {&v, {0x1.414d760000000p+1f, 0x1.dc0ff00000000p-1f, 0x1.01b5720000000p+2f, 0x1.1684b20000000p+1f, 0x1.75f6480000000p+1f, 0x1.0eeb400000000p+1f}}, {&t, {0x1.1eb84e0000000p+0f, 0x0.0p+0f, 0x1.947ae40000000p+1f, 0x1.d9999a0000000p+2f, -0x1.9999a00000000p-3f, -0x1.9999900000000p-3f, -0x1.6000020000000p+3f, 0x1.0a3d700000000p+1f, 0x0.0p+0f, 0x1.1374bc0000000p+1f, -0x1.ae14780000000p+1f, 0x1.10a3d60000000p+3f, 0x1.b47ae00000000p+3f, 0x1.eeb8540000000p+4f}}};
    for (const auto &[a, want] : grads) check_near(floats(a->grad()), want, 1e-4);
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("warp.math helpers: a module's own definition of the name wins, and a call that does not fit is reported at "
          "the call") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    // Warp's own tests define quat_from_euler themselves: theirs is the one called.
    const CompiledModule own = host.load_module_source("own_math", R"(import warp as wp

@wp.func
def quat_to_rpy(q: wp.quat) -> wp.vec3:
    return wp.vec3(q[3], 7.0, 0.0)

@wp.kernel
def k(a: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    a[i] = wp.quat_to_rpy(wp.quat(0.0, 0.0, 0.0, 1.0)) + wp.norm_l2(wp.vec2(3.0, 4.0)) * wp.vec3(0.0, 0.0, 1.0)
)");
    Array a = Array::zeros(Type::vector(Scalar::Float32, 3), {1});
    own.kernel("k").launch({1}, {a});
    CHECK(floats(a) == std::vector<float>{1.0f, 7.0f, 5.0f});
    const std::string bad = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("bad_math", R"(import warp as wp

@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.norm_l1(a[i])
    a[i] = wp.quat_to_rpy(wp.vec3(1.0, 2.0, 3.0))[0]
)");
    });
    CHECK_THAT(bad, Catch::Contains("bad_math.py:6:12: error: len() needs an array, vector or matrix, got 'float32'"));
    CHECK_THAT(bad, Catch::Contains("bad_math.py:7:12: error: no overload of function 'quat_to_rpy' matches the argument "
                                    "types (vec3); candidates:\n    quat_to_rpy(q: wp.quat)  (warp.math)"));
    // A module that calls none of them gets none of them.
    const kernel::FrontendResult none = kernel::check_module(
        kernel::SourceFile("plain.py", "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = 1.0\n"),
        host.registry());
    REQUIRE(none.ok());
    CHECK(none.module.functions.size() == 1); // the kernel
}

TEST_CASE("tuple return annotations, wp.vector / wp.matrix with inferred sizes and dtypes, and wp.static(f)(x) "
          "calls give warp-lang's values") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "language_round2.py";
    const Kernel k = host.load_module(file).kernel("round2");
    Array a = Array::from_vector(f32, std::vector<float>{0.5f, -1.25f, 3.0f});
    Array out = Array::zeros(f32, {3});
    Array vo = Array::zeros(Type::vector(Scalar::Float32, 3), {3});
    std::vector<float> m(12);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = float(i);
    Array mo = Array::from_host(Type::matrix(Scalar::Float32, 2, 2), {3}, m.data(), m.size() * 4, Device::cpu());
    Array io = Array::zeros(Type::vector(Scalar::Int32, 3), {3});
    k.launch({3}, {a, out, vo, mo, io});
    // warp-lang 1.19 on the CPU, bit for bit.
    CHECK(out.to_vector<float>() == std::vector<float>{0x1.c1535e0000000p+2f, 0x1.7cdd680000000p+0f, 0x1.cc3fb60000000p+3f});
    CHECK(floats(vo) == std::vector<float>{0x1.4000000000000p+1f, 0x1.2000000000000p+2f, 0x1.e000000000000p+2f, -0x1.6000000000000p+1f, 0x1.6000000000000p+1f, 0x1.7000000000000p+2f, 0x1.4000000000000p+3f, 0x1.c000000000000p+2f, 0x1.4000000000000p+3f});
    CHECK(floats(mo) == std::vector<float>{0x1.0000000000000p-1f, 0x1.0000000000000p+1f, 0x1.0000000000000p+2f, 0x1.8000000000000p+2f, 0x1.6000000000000p+1f, 0x1.8000000000000p+2f, 0x1.0000000000000p+3f, 0x1.4000000000000p+3f, 0x1.6000000000000p+3f, 0x1.4000000000000p+3f, 0x1.8000000000000p+3f, 0x1.c000000000000p+3f});
    std::vector<std::int32_t> ints(9);
    io.copy_to_host(ints.data(), ints.size() * 4);
    CHECK(ints == std::vector<std::int32_t>{0, 2, 3, 1, 2, 3, 2, 2, 3});
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
    // What Warp refuses, weft refuses, at the call.
    const auto refused = [&](const std::string &name, const std::string &line) {
        return weft::test::message_of<kernel::KernelSourceError>([&] {
            host.load_module_source(name, "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n" + line + "\n");
        });
    };
    CHECK_THAT(refused("mixed", "    v = wp.vector(a[i], 2, 3)"),
               Catch::Contains("mixed.py:6:9: error: all values given when constructing a vector must have the same type, "
                               "got 'float32' and 'int32'"));
    CHECK_THAT(refused("fill", "    v = wp.vector(a[i])"),
               Catch::Contains("the length of a vector cannot be inferred here: give it, wp.vector(..., length=3)"));
    CHECK_THAT(refused("noshape", "    m = wp.matrix(1.0, 2.0, 3.0, 4.0)"),
               Catch::Contains("the shape of a matrix cannot be inferred here: give it, wp.matrix(..., shape=(2, 2))"));
    CHECK_THAT(refused("static_value", "    a[i] = wp.static(a)(1.0)"),
               Catch::Contains("static_value.py:6:22: error: 'a' is a variable, not a function"));
    const std::string one = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("one_tuple", "import warp as wp\n\n@wp.func\ndef f(x: float) -> tuple[float]:\n    return x\n");
    });
    CHECK_THAT(one, Catch::Contains("a returned tuple has at least two elements: return the value itself (-> float32)"));
}

TEST_CASE("a func_native snippet sees the C math library's names (powf, fabsf, fmaf, erff ...) as Warp's do") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "snippet_libm.py";
    const Kernel k = host.load_module(file).kernel("snippet_libm");
    Array x = Array::from_vector(f32, std::vector<float>{0.5f, 1.25f, 3.0f, 7.5f});
    Array out = Array::zeros(f32, {4});
    k.launch({4}, {x, out});
    // warp-lang 1.19 on the CPU, bit for bit.
    CHECK(out.to_vector<float>() ==
          std::vector<float>{0x1.c189120000000p+3f, 0x1.aff0800000000p+4f, 0x1.1b202e0000000p+6f, 0x1.2b2acc0000000p+8f});
    if (backend::nvrtc_available()) // NVRTC declares them itself
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("wp.ref parameters written by tuple unpacking write through, and so do negative matrix indices passed as "
          "wp.ref arguments") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "ref_write_through.py";
    const Kernel k = host.load_module(file).kernel("ref_write_through");
    Array out = Array::zeros(f32, {6});
    Array mo = Array::zeros(Type::matrix(Scalar::Float32, 3, 3), {1});
    Array vo = Array::zeros(Type::vector(Scalar::Float32, 3), {1});
    k.launch({1}, {out, mo, vo});
    // warp-lang 1.19 on the CPU.
    CHECK(out.to_vector<float>() == std::vector<float>{2, 1, 3, 14, 3, 10});
    CHECK(floats(mo) == std::vector<float>{7, 0, 0, 0, 0, 0, 0, 3, 5});
    CHECK(floats(vo) == std::vector<float>{0, 0, 4});
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("wp.zeros in kernels and functions makes Warp's fixed-size arrays: indexed, sliced, passed on, zeroed each "
          "time") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "fixed_arrays.py";
    const CompiledModule module = host.load_module(file);
    const Kernel k = module.kernel("zeros_kernel");
    Array out = Array::zeros(i32, {16});
    Array f = Array::zeros(f32, {2});
    Array v = Array::zeros(Type::vector(Scalar::Float32, 3), {2});
    k.launch({2}, {out, f, v});
    // warp-lang 1.19 on the CPU.
    CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{6, 8, 6, 1, 23, 1, 1, 0, 6, 8, 6, 1, 23, 2, 2, 0});
    CHECK(f.to_vector<float>() == std::vector<float>{3.0f, 9.0f});
    CHECK(floats(v) == std::vector<float>{1, 2, 0, 1, 2, 1});
    // No backward pass through them yet: said when one is asked for.
    CHECK_THAT(weft::test::message_of<UserError>([&] { k.backward(); }),
               Catch::Contains("kernel 'zeros_kernel' makes a zeros() array (Warp's fixed-size array), here or in a "
                               "function it calls: weft has no backward pass through those yet"));
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
    const auto refused = [&](const std::string &name, const std::string &body) {
        return weft::test::message_of<kernel::KernelSourceError>(
            [&] { host.load_module_source(name, "import warp as wp\n\n" + body); });
    };
    CHECK_THAT(refused("zeros_runtime_shape", "@wp.kernel\ndef k(n: int):\n    a = wp.zeros(shape=(n,), dtype=int)\n"),
               Catch::Contains("zeros_runtime_shape.py:5:25: error: the shape of a zeros() array in a kernel is made of "
                               "positive integer constants"));
    CHECK_THAT(refused("zeros_returned", "@wp.func\ndef f() -> int:\n    a = wp.zeros(shape=2, dtype=int)\n    return a\n"),
               Catch::Contains("function 'f' makes a zeros() array, so it cannot return an array"));
    CHECK_THAT(refused("zeros_huge", "@wp.kernel\ndef k():\n    a = wp.zeros(shape=(256, 256), dtype=float)\n"),
               Catch::Contains("a zeros() array in a kernel holds at most 64 KiB"));
    CHECK_THAT(refused("zeros_no_dtype", "@wp.kernel\ndef k():\n    a = wp.zeros(shape=4)\n"),
               Catch::Contains("zeros() in a kernel needs shape= and dtype="));
}

TEST_CASE("module-level tuples are read inside wp.static, as Warp reads them, and enum members, .value and len(enum) too") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("static_tuples", R"(import enum
import warp as wp

T = (1.0, 2.5, 4.0)
SCALE = 3
N = len(T) * 2


class Color(enum.IntEnum):
    RED = 1
    BLUE = 4


@wp.kernel
def k(out: wp.array(dtype=float)):
    out[0] = wp.static(T[1]) + float(wp.static(len(T))) + float(wp.static(SCALE * 2)) + float(wp.static(Color.BLUE))
    out[1] = wp.static(T[-1]) + float(N)
    out[2] = float(wp.static(Color.BLUE.value)) + float(wp.static(len(Color))) + float(Color.RED.value)
)");
    Array out = Array::zeros(f32, {3});
    m.kernel("k").launch({1}, {out});
    CHECK(out.to_vector<float>() == std::vector<float>{15.5f, 10.0f, 7.0f}); // warp-lang 1.19: 15.5, 10, 7
    const std::string runtime = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("tuple_at_run_time", "import warp as wp\n\nT = (1.0, 2.0)\n\n@wp.kernel\n"
                                                     "def k(a: wp.array(dtype=float)):\n    a[0] = T[1]\n");
    });
    CHECK_THAT(runtime, Catch::Contains("tuple_at_run_time.py:7:12: error: 'T' is a module-level tuple: kernels read it "
                                        "inside wp.static(), as Warp does"));
    const std::string outside = weft::test::message_of<kernel::KernelSourceError>([&] {
        host.load_module_source("tuple_outside", "import warp as wp\n\nT = (1.0, 2.0)\n\n@wp.kernel\n"
                                                 "def k(a: wp.array(dtype=float)):\n    a[0] = wp.static(T[2])\n");
    });
    CHECK_THAT(outside, Catch::Contains("index 2 is outside the tuple 'T' of 2 elements"));
}

TEST_CASE("closest_point_edge_edge gives warp-lang's values and its analytic gradient on every branch") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "edge_edge.py";
    const Kernel k = host.load_module(file).kernel("edge_edge");
    const Type v3 = Type::vector(Scalar::Float32, 3);
    // Skew, crossing, parallel, t clamped below and above, a point (degenerate), s clamped, disjoint.
    const std::vector<std::vector<float>> ends = {
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0.3f, -0.2f, 0.9f, 0, 0, 0, 2, 0, 0},
        {1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 2, 0, 0, 1.7f, 0.4f, -0.3f, 1, 0, 0, 3, 0, 0},
        {0.5f, -1, 1, 1, 0, 0.2f, 0, 1, 0, 0, 0, 0, 3, 1, 0, -0.5f, 1.1f, 0.2f, 0.5f, 0, 0, 0, 1, 0},
        {0.5f, 1, 1, 0, 1, 0.2f, 1, 1, 0, 2, 0, 0, 4, 2, 0, 0.8f, -0.9f, 0.4f, 0.5f, 0, 0, 0.5f, 1, 0.5f}};
    std::vector<Array> in;
    for (const std::vector<float> &e : ends) in.push_back(Array::from_host(v3, {8}, e.data(), e.size() * 4, Device::cpu(), true));
    Array out = Array::zeros(v3, {8}, Device::cpu(), true), loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({8}, {in[0], in[1], in[2], in[3], out, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU: values bit for bit, gradients to rounding.
    CHECK(floats(out) == std::vector<float>{0x1.0000000000000p-1f, 0x1.0000000000000p-1f, 0x1.0000000000000p+0f, 0x1.0000000000000p-1f, 0x1.0000000000000p-1f, 0x1.99999a0000000p-3f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f, 0x0.0p+0f, 0x1.0000000000000p-1f, 0x1.6a09e60000000p+0f, 0x1.0000000000000p+0f, 0x0.0p+0f, 0x1.6a09e60000000p+0f, 0x1.9ba3ea0000000p-3f, 0x1.58957e0000000p-1f, 0x1.acfc520000000p-2f, 0x1.0000000000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f, 0x1.deeea20000000p+0f});
    CHECK(loss.to_vector<float>()[0] == Approx(0x1.f807100000000p+3).epsilon(1e-6));
    const std::vector<std::vector<float>> want = {{-0x1.0000000000000p-1f, -0x1.0000000000000p-3f, -0x1.0000000000000p+1f, -0x1.0000000000000p-3f, -0x1.8000000000000p-2f, -0x1.19999a0000000p+0f, -0x1.0000000000000p-1f, -0x1.0000000000000p+1f, 0x0.0p+0f, -0x1.0000000000000p-2f, 0x1.6a09e60000000p+0f, 0x1.6a09e60000000p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.ea26a00000000p-2f, 0x1.5552100000000p-1f, 0x1.8ebeb20000000p+0f, -0x1.0000000000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x1.9a83640000000p+0f, -0x1.11acee0000000p+0f, -0x1.11acee0000000p-1f}, {-0x1.0000000000000p-1f, -0x1.0000000000000p-3f, 0x0.0p+0f, -0x1.0000000000000p-3f, -0x1.8000000000000p-2f, -0x1.cccccc0000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x1.6a09e60000000p+0f, -0x1.6a09e60000000p+0f, 0x0.0p+0f, 0x1.b664e00000000p-5f, 0x1.d1c4140000000p-4f, 0x1.25ab860000000p-2f, -0x1.0000000000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f}, {0x1.0000000000000p-1f, 0x1.0000000000000p-3f, 0x1.c000000000000p-1f, 0x1.0000000000000p-3f, 0x1.8000000000000p-2f, 0x1.e666680000000p-1f, 0x1.0000000000000p-1f, 0x1.8000000000000p+0f, 0x0.0p+0f, 0x1.0000000000000p-3f, -0x1.2a09e60000000p-1f, -0x1.2a09e60000000p-1f, 0x1.6a09e60000000p+0f, 0x1.6a09e60000000p+0f, 0x0.0p+0f, -0x1.46bdd00000000p-3f, -0x1.f2a7ec0000000p-3f, -0x1.2925180000000p-1f, 0x1.0000000000000p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f}, {0x1.0000000000000p-1f, 0x1.0000000000000p-3f, 0x1.2000000000000p+0f, 0x1.0000000000000p-3f, 0x1.8000000000000p-2f, 0x1.0ccccc0000000p+0f, 0x0.0p+0f, 0x1.0000000000000p-1f, 0x0.0p+0f, 0x1.0000000000000p-3f, -0x1.aa09e60000000p-1f, -0x1.aa09e60000000p-1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x1.7d94540000000p-2f, -0x1.12e0960000000p-1f, -0x1.4397080000000p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x1.9a83640000000p+0f, 0x1.11acee0000000p+0f, 0x1.11acee0000000p-1f}};
    for (std::size_t a = 0; a < 4; ++a) check_near(floats(in[a].grad()), want[a], 1e-5);
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("matrix_from_cols and matrix_from_rows build non-square matrices, with warp-lang's values and gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "matrix_from_vectors.py";
    const Kernel k = host.load_module(file).kernel("mfc");
    const std::vector<float> a = {0.5f, -1.0f, 2.0f, 1.5f, 0.25f, -0.75f}, b = {0.3f, 1.2f, -2.0f, 0.7f};
    Array v3 = Array::from_host(Type::vector(Scalar::Float32, 3), {2}, a.data(), a.size() * 4, Device::cpu(), true);
    Array v2 = Array::from_host(Type::vector(Scalar::Float32, 2), {2}, b.data(), b.size() * 4, Device::cpu(), true);
    Array out = Array::zeros(f32, {8}, Device::cpu(), true), loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({2}, {v3, v2, out, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU.
    CHECK(out.to_vector<float>() == std::vector<float>{0x1.1000000000000p+4f, 0x0.0p+0f, 0x1.6ccccc0000000p+4f, 0x1.4ccccc0000000p+0f, 0x1.2000000000000p+1f, 0x0.0p+0f, 0x1.f9999a0000000p+3f, -0x1.0000000000000p+0f});
    CHECK(loss.to_vector<float>()[0] == Approx(0x1.138ccc0000000p+6).epsilon(1e-6));
    CHECK(floats(v3.grad()) == std::vector<float>{0x1.0e00000000000p+5f, -0x1.a000000000000p+3f, 0x1.9000000000000p+4f, 0x1.8f00000000000p+5f, 0x1.7000000000000p+2f, -0x1.2400000000000p+4f});
    CHECK(floats(v2.grad()) == std::vector<float>{0x0.0p+0f, 0x1.0000000000000p-1f, 0x0.0p+0f, 0x1.0000000000000p-1f});
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("a module's own type names shadow Warp's (vec3b of bools), and user vector types of Python dtypes work") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("user_vector_types", R"(import warp as wp

vec5 = wp.types.vector(length=5, dtype=float)
vec3b = wp.types.vector(length=3, dtype=bool)
vec2i_ = wp.types.vector(length=2, dtype=int)
mat23 = wp.types.matrix(shape=(2, 3), dtype=float)


@wp.func
def first(v: wp.types.vector(length=5, dtype=float)) -> float:
    return v[0]


@wp.kernel
def k(out: wp.array(dtype=float)):
    v = vec5(1.0, 2.0, 3.0, 4.0, 5.0)
    b = vec3b(True, False, True)
    n = vec2i_(3, 4)
    m = mat23(1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
    out[0] = first(v) + float(n[1]) + m[1, 2] + wp.where(b[2], 1.0, 0.0)
    out[1] = wp.length(v)
    out[2] = float(len(v))
    out[3] = wp.dot(v, v)
)");
    Array out = Array::zeros(f32, {4});
    m.kernel("k").launch({1}, {out});
    // warp-lang 1.19 on the CPU.
    CHECK(out.to_vector<float>() == std::vector<float>{12.0f, 0x1.daa2fep+2f, 5.0f, 55.0f});
}

TEST_CASE("nested structs built empty and filled field by field, in functions and kernels, carry exact gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const Kernel k = host.load_module_source("nested_struct_fill", R"(import warp as wp


@wp.struct
class Inner:
    w: float
    v: wp.vec3


@wp.struct
class Outer:
    a: float
    inner: Inner


@wp.func
def build(x: float) -> Outer:
    o = Outer()
    o.a = x * 2.0
    o.inner.w = x * x
    o.inner.v = wp.vec3(x, 1.0, -x)
    return o


@wp.kernel
def k(xs: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    o = build(xs[i])
    s = Outer()
    s.inner = o.inner
    s.inner.v[1] = o.a
    out[i] = s.inner.w + wp.dot(s.inner.v, o.inner.v) + o.a
)").kernel("k");
    Array xs = Array::from_vector(f32, std::vector<float>{0.5f, -1.5f}, Device::cpu(), true);
    Array out = Array::zeros(f32, {2}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({2}, {xs, out});
    }
    tape.backward({{out, Array::from_vector(f32, std::vector<float>{1.0f, 1.0f})}});
    // Values: warp-lang 1.19's. out = 3x^2 + 4x, so the gradient is 6x + 4 (finite differences agree);
    // warp-lang 1.19 gives 5 and -7: it loses what flows through the store s.inner.v[1] = o.a.
    CHECK(out.to_vector<float>() == std::vector<float>{2.75f, 0.75f});
    CHECK(xs.grad().to_vector<float>() == std::vector<float>{7.0f, -5.0f});
}

TEST_CASE("quat_rotate_inv gives warp-lang's values (float32 and float64) and gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "rotate_inv.py";
    const Kernel k = host.load_module(file).kernel("rotate_inv");
    const std::vector<float> qv = {0x1.a43da20000000p-4f, 0x1.a43da20000000p-3f, 0x1.3b2e3a0000000p-2f, 0x1.d8c5540000000p-1f, -0x1.6c944e0000000p-1f, 0x1.6c944e0000000p-2f, 0x1.e61b120000000p-4f, 0x1.2fd0ec0000000p-1f, 0x1.0000000000000p-1f, 0x1.0000000000000p-1f, -0x1.0000000000000p-1f, 0x1.0000000000000p-1f};
    const std::vector<float> pv = {1.0f, -2.0f, 0.5f, 0.25f, 3.0f, -1.5f, 2.0f, 0.0f, 1.0f};
    Array q = Array::from_host(Type::quaternion(Scalar::Float32), {3}, qv.data(), qv.size() * 4, Device::cpu(), true);
    Array p = Array::from_host(Type::vector(Scalar::Float32, 3), {3}, pv.data(), pv.size() * 4, Device::cpu(), true);
    Array out = Array::zeros(Type::vector(Scalar::Float32, 3), {3}, Device::cpu(), true);
    Array out64 = Array::zeros(Type::vector(Scalar::Float64, 3), {3});
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({3}, {q, p, out, out64, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU: values bit for bit, gradients to rounding.
    CHECK(floats(out) == std::vector<float>{-0x1.4e25c20000000p-1f, -0x1.f286b80000000p+0f, 0x1.040ac60000000p+0f, -0x1.039ac00000000p-5f, 0x1.b4481a0000000p-1f, 0x1.a073600000000p+1f, -0x1.0000000000000p+0f, 0x1.0000000000000p+1f, 0x0.0p+0f});
    std::vector<double> d(9);
    out64.copy_to_host(d.data(), d.size() * 8);
    CHECK(d == std::vector<double>{-0x1.4e25becb7c859p-1, -0x1.f286ba4d9e615p+0, 0x1.040ac6d9763f6p+0, -0x1.039b0c51a42c0p-5, 0x1.b44818c8b10e2p-1, 0x1.a07360947c6e3p+1, -0x1.0000000000000p+0, 0x1.0000000000000p+1, 0x0.0p+0});
    CHECK(loss.to_vector<float>()[0] == Approx(0x1.36c7be0000000p+4).epsilon(1e-6));
    const std::vector<std::pair<const Array *, std::vector<float>>> grads = {{&q, {0x1.13c8740000000p+2f, 0x1.89f9c60000000p+2f, 0x1.6294020000000p+2f, 0x1.77eb1e0000000p+5f, -0x1.7976a00000000p+4f, 0x1.2ff3220000000p+2f, 0x1.18e2000000000p+4f, 0x1.14f8b00000000p+4f, 0x1.0000000000000p+3f, 0x1.0000000000000p+2f, -0x1.8000000000000p+1f, 0x1.6000000000000p+3f}}, {&p, {0x1.0cccca0000000p+2f, -0x1.ccccc80000000p+1f, 0x1.0000040000000p-1f, 0x1.5b0ad20000000p+1f, 0x1.7193d40000000p+2f, -0x1.c736140000000p+1f, 0x1.8000000000000p+1f, -0x1.0000000000000p-1f, 0x0.0p+0f}}};
    for (const auto &[a, want] : grads) check_near(floats(a->grad()), want, 1e-4);
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("step, nonzero, smoothstep, frac, cbrt, erf, erfc, isinf and bit_count give warp-lang's values and gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "scalar_round2.py";
    const Kernel k = host.load_module(file).kernel("misc2");
    Array a = Array::from_vector(f32, std::vector<float>{0.1f, 0.5f, 0.75f, 1.2f, 1.7f, 2.5f}, Device::cpu(), true);
    Array ia = Array::from_vector(i32, std::vector<std::int32_t>{0, 1, 2, 3, -5, 1000});
    Array o = Array::zeros(f32, {24}), io = Array::zeros(i32, {6});
    Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({6}, {a, ia, o, io, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU: values bit for bit, gradients to rounding.
    CHECK(o.to_vector<float>() == std::vector<float>{0x1.0000000000000p+1f, 0x1.e3e76a0000000p+0f, 0x1.8a3d700000000p-1f, 0x1.0000000000000p+1f, 0x1.0d4fe00000000p+1f, 0x1.71a5dc0000000p+1f, 0x1.b333340000000p-1f, 0x1.0000000000000p+0f, 0x1.5a1cac0000000p+0f, 0x1.7ecbf40000000p+1f, 0x1.1999a00000000p-2f, 0x1.0000000000000p+0f, 0x1.dad7520000000p+0f, 0x1.6791200000000p+1f, 0x1.eb85200000000p-3f, 0x1.0000000000000p+0f, 0x1.0000000000000p+1f, 0x1.592a640000000p+1f, 0x1.70a3c00000000p-4f, 0x1.0000000000000p+1f, 0x1.0000000000000p+1f, 0x1.578a180000000p+1f, 0x1.0000000000000p-2f, 0x1.0000000000000p+0f});
    CHECK(io.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 9, 9, 13, 84, 17});
    CHECK(loss.to_vector<float>()[0] == Approx(0x1.0b36f80000000p+4).epsilon(1e-6));
    check_near(a.grad().to_vector<float>(), {0x1.aefe600000000p+1f, 0x1.9d74200000000p+1f, 0x1.b08bd00000000p+1f, 0x1.4a5b4e0000000p+1f, 0x1.70109c0000000p-2f, 0x1.7b87de0000000p-3f}, 1e-4);
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("argmax and argmin skip NaNs, and ddot, diag and get_diag give warp-lang's values and gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "vector_round2.py";
    const Kernel k = host.load_module(file).kernel("vecb");
    const Type v3 = Type::vector(Scalar::Float32, 3), m33 = Type::matrix(Scalar::Float32, 3, 3);
    const std::vector<float> vv = {0.5f, -1.0f, 2.0f, 3.0f, 3.0f, -4.0f, NAN, 1.0f, 0.25f};
    std::vector<float> mv(27);
    for (std::size_t i = 0; i < mv.size(); ++i) mv[i] = float(i) * 0.37f - 2.0f;
    const std::vector<std::int32_t> iv = {1, 5, 5, -2, 0, 0, 0, 0, -3, 7, -9, 7};
    Array v = Array::from_host(v3, {3}, vv.data(), vv.size() * 4, Device::cpu(), true);
    Array m = Array::from_host(m33, {3}, mv.data(), mv.size() * 4, Device::cpu(), true);
    Array vi = Array::from_host(Type::vector(Scalar::Int32, 4), {3}, iv.data(), iv.size() * 4, Device::cpu());
    Array o = Array::zeros(f32, {3}), idx = Array::zeros(Type::scalar(Scalar::UInt32), {12});
    Array dm = Array::zeros(m33, {3}), gd = Array::zeros(v3, {3}), loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({3}, {v, m, vi, o, idx, dm, gd, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU (NaN where it has NaN): values bit for bit, gradients to rounding.
    const auto same = [](const std::vector<float> &got, const std::vector<float> &want) {
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            INFO("element " << i);
            if (std::isnan(want[i])) CHECK(std::isnan(got[i]));
            else CHECK(got[i] == want[i]);
        }
    };
    same(o.to_vector<float>(), {0x1.b0e2180000000p+2f, 0x1.1732140000000p+5f, NAN});
    CHECK(idx.to_vector<std::uint32_t>() == std::vector<std::uint32_t>{2u, 1u, 1u, 3u, 0u, 2u, 0u, 0u, 1u, 2u, 1u, 2u});
    same(floats(dm), {0x1.0000000000000p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x1.0000000000000p+1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+2f, 0x1.8000000000000p+2f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.8000000000000p+2f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x1.0000000000000p+3f, NAN, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p-1f});
    same(floats(gd), {-0x1.0000000000000p+1f, -0x1.0a3d700000000p-1f, 0x1.eb85200000000p-1f, 0x1.547ae00000000p+0f, 0x1.67ae140000000p+1f, 0x1.128f5c0000000p+2f, 0x1.2a3d700000000p+2f, 0x1.88f5c40000000p+2f, 0x1.e7ae140000000p+2f});
    check_near(floats(m.grad()), {0x1.0000000000000p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x1.0000000000000p+1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+2f, 0x1.8000000000000p+2f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.8000000000000p+2f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x1.0000000000000p+3f, NAN, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p+1f, 0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, 0x1.0000000000000p-1f}, 1e-4);
    check_near(floats(v.grad()), {-0x1.0000000000000p+2f, -0x1.0a3d700000000p+0f, 0x1.eb85200000000p+0f, 0x1.547ae00000000p+1f, 0x1.67ae140000000p+2f, 0x1.128f5c0000000p+3f, 0x1.2a3d700000000p+3f, 0x1.88f5c40000000p+3f, 0x1.e7ae140000000p+3f}, 1e-4);
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("copysign (signed zeros included) and div_approx give warp-lang's values and gradients") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const fs::path file = fs::path(WEFT_WARP_SEMANTICS_DIR) / "copysign_div.py";
    const Kernel k = host.load_module(file).kernel("copysign_div");
    Array x = Array::from_vector(f32, std::vector<float>{1.5f, -2.0f, 0.0f, -0.0f, 3.25f}, Device::cpu(), true);
    Array y = Array::from_vector(f32, std::vector<float>{-1.0f, -0.5f, -0.0f, 2.0f, 0.0f}, Device::cpu(), true);
    Array out = Array::zeros(f32, {10}), loss = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({5}, {x, y, out, loss});
    }
    tape.backward(loss);
    // warp-lang 1.19 on the CPU, bit for bit (sign bits of zeros included).
    const std::vector<float> o = out.to_vector<float>(), want = {-0x1.8000000000000p+0f, 0x1.8000000000000p-1f, -0x1.0000000000000p+1f, -0x1.99999a0000000p-1f, -0x0.0p+0f, 0x0.0p+0f, 0x0.0p+0f, -0x0.0p+0f, 0x1.a000000000000p+1f, 0x1.1555560000000p+0f};
    CHECK(o == want);
    for (std::size_t i = 0; i < o.size(); ++i) CHECK(std::signbit(o[i]) == std::signbit(want[i]));
    CHECK(x.grad().to_vector<float>() == std::vector<float>{-0x1.8000000000000p-1f, 0x1.b851ec0000000p-1f, -0x1.8000000000000p+0f, -0x1.8000000000000p+0f, 0x1.1c71c80000000p+1f});
    check_near(y.grad().to_vector<float>(), {-0x1.2000000000000p-1f, -0x1.0624de0000000p-1f, 0x0.0p+0f, 0x0.0p+0f, -0x1.9097b60000000p-1f}, 1e-6);
    if (backend::nvrtc_available()) // NVRTC, no device needed
        CHECK(host.compile_aot(file, {Target::cuda_ptx(80), Target::cuda_cubin(80)}).size() == 2);
}

TEST_CASE("negative indices: 2-D reads and writes from the end, and debug mode still catches what is outside") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const char *source = R"(import warp as wp


@wp.kernel
def corner(m: wp.array2d(dtype=float), k: int):
    i = wp.tid()
    m[-1, -1 - i] = m[0, -k] + float(i)
)";
    Array m = Array::from_vector(f32, std::vector<float>{1, 2, 3, 4, 5, 6}).view({2, 3}, {12, 4});
    host.load_module_source("corner", source).kernel("corner").launch({3}, {m, 1});
    CHECK(m.to_vector<float>() == std::vector<float>{1, 2, 3, 5, 4, 3});
    ModuleLoadOptions debug;
    debug.debug = true;
    const Kernel checked = host.load_module_source("corner_debug", source, debug).kernel("corner");
    checked.launch({3}, {m, 3});
    CHECK(m.to_vector<float>() == std::vector<float>{1, 2, 3, 3, 2, 1});
    // -4 is before the start of a 3-wide row: a bounds failure, as 3 would be.
    CHECK_THAT(message_of<LaunchError>([&] { checked.launch({1}, {m, 4}); }),
               Catch::Contains("array 'm' index [0, -4] is out of bounds for shape [2, 3]"));
}

TEST_CASE("an empty @wp.struct is a one-byte value a kernel can take") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const char *source = R"(import warp as wp


@wp.struct
class Nothing:
    pass


@wp.kernel
def fill(tag: Nothing, out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i * 2
)";
    const Kernel k = host.load_module_source("empty_struct", source).kernel("fill");
    const Type nothing = k.params()[0].type;
    CHECK(nothing.size() == 1);
    const unsigned char byte = 0;
    Array out = Array::zeros(i32, {3});
    k.launch({3}, {KernelArg::value(nothing, &byte, 1), out});
    CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 2, 4});
}

TEST_CASE("assert checks in debug builds and is ignored in release builds, as in Warp") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const char *source = R"(import warp as wp


@wp.kernel
def guarded(a: wp.array(dtype=float), limit: float):
    i = wp.tid()
    assert a[i] < limit, "value over the limit"
    assert i >= 0
    a[i] = a[i] * 2.0
)";
    Array a = Array::from_vector(f32, std::vector<float>{1, 5, 2});
    const Kernel release = host.load_module_source("guarded", source).kernel("guarded");
    release.launch({3}, {a, 3.0f});
    CHECK(a.to_vector<float>() == std::vector<float>{2, 10, 4});

    ModuleLoadOptions options;
    options.debug = true;
    const Kernel debug = host.load_module_source("guarded_debug", source, options).kernel("guarded");
    debug.launch({3}, {a, 100.0f});
    CHECK(a.to_vector<float>() == std::vector<float>{4, 20, 8});
    // One element over the limit: the launch fails (the line names kernel, position and message).
    CHECK_THAT(message_of<LaunchError>([&] { debug.launch({3}, {a, 10.0f}); }), Catch::Contains("1 expect_* check failed"));
    CHECK(a.to_vector<float>() == std::vector<float>{8, 40, 16}); // the kernel ran on
    debug.launch({1}, {a, 100.0f});
    if (backend::nvrtc_available()) {
        const fs::path file = cache.path / "guarded.py";
        fs::create_directories(cache.path);
        std::ofstream(file) << source;
        CHECK(host.compile_aot(file, {Target::cuda_ptx(75)}, options).size() == 1);
    }
}

TEST_CASE("assert needs a bool condition and at most a string message") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const auto error_of = [&](const std::string &line) {
        return message_of<kernel::KernelSourceError>([&] {
            host.load_module_source("bad_assert", "import warp as wp\n\n@wp.kernel\ndef k(a: wp.array(dtype=int)):\n"
                                                  "    i = wp.tid()\n    " + line + "\n");
        });
    };
    CHECK_THAT(error_of("assert i"), Catch::Contains("6:12: error: assert needs a bool condition, got 'int32'"));
    CHECK_THAT(error_of("assert i > 0, 3"), Catch::Contains("assert takes a condition and an optional string message"));
}

TEST_CASE("comparisons of two scalar types convert as Warp's C++ does") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    // The corpus file warp.corpus also runs in warp-lang.
    const Kernel k = host.load_module(fs::path(WEFT_KERNEL_TEST_DIR) / "corpus" / "mixed_compare.py").kernel("mixed");
    Array out = Array::zeros(i32, {4});
    Array f64 = Array::from_vector(Type::scalar(Scalar::Float64), std::vector<double>{-3.0, -1.0, 0.5, 1.0});
    Array i64 = Array::from_vector(Type::scalar(Scalar::Int64), std::vector<std::int64_t>{-2, 0, 0, 5});
    Array u32 = Array::from_vector(Type::scalar(Scalar::UInt32), std::vector<std::uint32_t>{0, 1, 1, 0});
    Array f = Array::from_vector(f32, std::vector<float>{-3.0f, 0.0f, 0.0f, 0.0f});
    k.launch({4}, {out, f64, i64, u32, f});
    // warp-lang 1.19 on the CPU: int32 -1 < uint32 1 is false (unsigned wins, as in C++);
    // float32 0.0 > int32 -1 is true.
    CHECK(out.to_vector<std::int32_t>() == std::vector<std::int32_t>{1000, 10101, 1110, 101});
}

TEST_CASE("user vector and matrix types: constants, builtins at their shapes, matrix products") {
    TempDir cache("semantics");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module(fs::path(WEFT_KERNEL_TEST_DIR) / "corpus" / "user_types.py");
    Array out = Array::zeros(f32, {6});
    m.kernel("user_constants").launch({6}, {out});
    // STEPS = (1, ..., 6): STEPS[i] + |STEPS| + dot(STEPS, (1, ..., 1)) = i + 1 + sqrt(91) + 21.
    const std::vector<float> got = out.to_vector<float>();
    for (int i = 0; i < 6; ++i) CHECK(got[static_cast<std::size_t>(i)] == Approx(i + 1 + std::sqrt(91.0) + 21.0));

    const Kernel k = m.kernel("user_vectors");
    const Type vec6 = k.params()[0].type.element(), mat34 = k.params()[2].type.element();
    const Type vec5d = k.params()[4].type.element(), ivec7 = k.params()[5].type.element();
    CHECK(vec6.size() == 24);
    CHECK(mat34.size() == 48);
    std::vector<float> a(6, 1.0f), ms(12);
    for (int j = 0; j < 12; ++j) ms[static_cast<std::size_t>(j)] = static_cast<float>(j);
    std::vector<double> d(5, 1.5);
    std::vector<std::int32_t> ints{1, 0, 0, 0, 0, 0, 10};
    Array av = Array::from_host(vec6, {1}, a.data(), 24), mv = Array::from_host(mat34, {1}, ms.data(), 48);
    Array dv = Array::from_host(vec5d, {1}, d.data(), 40), iv = Array::from_host(ivec7, {1}, ints.data(), 28);
    Array o = Array::zeros(f32, {1}), prod = Array::zeros(Type::vector(Scalar::Float32, 3), {1});
    k.launch({1}, {av, o, mv, prod, dv, iv});
    // s = (a + u) * 0.5 with a = (1, ..., 1), u = (1, ..., 6); out = dot(s, u) + s[5] + |u|.
    double dot = 0;
    for (int j = 0; j < 6; ++j) dot += (1.0 + (j + 1)) * 0.5 * (j + 1);
    CHECK(o.to_vector<float>()[0] == Approx(dot + 3.5 + std::sqrt(91.0)));
    std::vector<float> p(3);
    prod.copy_to_host(p.data(), 12);
    // Rows (0 1 2 3), (4 5 6 7), (8 9 10 11) times (1, 2, 3, 4).
    CHECK(p == std::vector<float>{20.0f, 60.0f, 100.0f});
    mv.copy_to_host(ms.data(), 48);
    CHECK(ms[6] == 7.0f); // mm[1, 2] = 7.0 written back
    dv.copy_to_host(d.data(), 40);
    CHECK(d == std::vector<double>(5, 3.0));
    iv.copy_to_host(ints.data(), 28);
    CHECK(ints[6] == 11); // k[0] + k[6] + i
}
