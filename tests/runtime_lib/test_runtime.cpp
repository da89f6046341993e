// The runtime layer library: host arrays, kernel arguments and their packing,
// the thread pool, and CPU launches of entry points written by hand against
// the runtime headers (as generated code is), compiled by the host compiler.
#include "weft/rt/runtime.h"

#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/runtime/thread_pool.hpp"
#include "weft/support/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

WEFT_DEFINE_RUNTIME_GLOBALS

namespace w = weft;

// ---------------------------------------------------------------------------
// Entry points with the generated CPU signature.

/// saxpy(x: array(float32), y: array(float32), a: float32, out: array(float32)): out[i] = a * x[i] + y[i]
extern "C" void weft_test_saxpy(const w::launch_t *, void *const *args, long long begin, long long end) {
    const auto &x = *static_cast<const w::array_t<w::float32> *>(args[0]);
    const auto &y = *static_cast<const w::array_t<w::float32> *>(args[1]);
    const w::float32 a = *static_cast<const w::float32 *>(args[2]);
    const auto &out = *static_cast<const w::array_t<w::float32> *>(args[3]);
    for (long long i = begin; i < end; ++i) {
        const w::int32 t = static_cast<w::int32>(i);
        w::index(out, t) = w::add(w::mul(a, w::index(x, t)), w::index(y, t));
    }
}

/// churn(out: array(float32)): a few float operations per element whose result depends on the order of operations.
extern "C" void weft_test_churn(const w::launch_t *, void *const *args, long long begin, long long end) {
    const auto &out = *static_cast<const w::array_t<w::float32> *>(args[0]);
    for (long long i = begin; i < end; ++i) {
        w::float32 v = static_cast<w::float32>(i) * 0.37f;
        for (int k = 0; k < 16; ++k) v = w::add(w::mul(v, 0.999f), w::div(0.1f, w::add(1.0f, w::mul(v, v))));
        w::index(out, static_cast<w::int32>(i)) = v;
    }
}

/// count(n: array(int32), f: array(float32), hist: array(int64)): atomics from every thread.
extern "C" void weft_test_count(const w::launch_t *, void *const *args, long long begin, long long end) {
    const auto &n = *static_cast<const w::array_t<w::int32> *>(args[0]);
    const auto &f = *static_cast<const w::array_t<w::float32> *>(args[1]);
    const auto &hist = *static_cast<const w::array_t<w::int64> *>(args[2]);
    for (long long i = begin; i < end; ++i) {
        w::atomic_add(n, 0, 1);
        w::atomic_add(f, 0, 1.0f);
        w::atomic_add(hist, static_cast<w::int32>(i % 10), w::int64(1));
    }
}

/// fill2d(out: array(int32, ndim=2)): out[i, j] = 1000 * i + j, (i, j) decoded row-major from the linear index.
extern "C" void weft_test_fill2d(const w::launch_t *launch, void *const *args, long long begin, long long end) {
    const auto &out = *static_cast<const w::array_t<w::int32> *>(args[0]);
    const long long cols = launch->shape[1];
    for (long long idx = begin; idx < end; ++idx) {
        const w::int32 i = static_cast<w::int32>(idx / cols), j = static_cast<w::int32>(idx % cols);
        w::index(out, i, j) = 1000 * i + j;
    }
}

/// boom(): throws at linear index 54321.
extern "C" void weft_test_boom(const w::launch_t *, void *const *, long long begin, long long end) {
    for (long long i = begin; i < end; ++i)
        if (i == 54321) throw std::runtime_error("boom at " + std::to_string(i));
}

std::atomic<long long> g_calls{0};
std::atomic<long long> g_indices{0};
w::launch_t g_seen{};
std::mutex g_seen_mutex;

/// Counts calls and indices, and keeps the launch_t it saw.
extern "C" void weft_test_tally(const w::launch_t *launch, void *const *, long long begin, long long end) {
    g_calls += 1;
    g_indices += end - begin;
    std::lock_guard<std::mutex> lock(g_seen_mutex);
    g_seen = *launch;
}

namespace {

const w::Type f32 = w::Type::scalar(w::Scalar::Float32);
const w::Type f64 = w::Type::scalar(w::Scalar::Float64);
const w::Type i32 = w::Type::scalar(w::Scalar::Int32);
const w::Type i64 = w::Type::scalar(w::Scalar::Int64);

w::Type arr(const w::Type &dtype, int ndim = 1) { return w::Type::array(dtype, ndim); }

std::vector<w::KernelParam> saxpy_params() {
    return {{"x", arr(f32)}, {"y", arr(f32)}, {"a", f32}, {"out", arr(f32)}};
}

/// The host-side twin of warp_test::Padded {uint8 tag; uint32 value;} with its 3 padding bytes named.
struct PaddedHost {
    std::uint8_t tag;
    std::uint8_t pad[3];
    std::uint32_t value;
};
static_assert(sizeof(PaddedHost) == 8);

w::Type padded_type() { return w::Type::native("warp_test::Padded", "nt0123456789abcdef", 8, 4); }

std::vector<float> run_churn(unsigned threads, std::int64_t n) {
    w::ThreadPool pool(threads, 1);
    w::Array out = w::Array::zeros(f32, {n});
    const w::PackedArgs packed = w::pack_args("churn", {{"out", arr(f32)}}, {out});
    w::launch_cpu(weft_test_churn, {n}, packed, pool);
    return out.to_vector<float>();
}

} // namespace

// ---------------------------------------------------------------------------
// Arrays

TEST_CASE("float32 arrays round-trip through zeros, from_host and copy_to_host") {
    const w::Array z = w::Array::zeros(f32, {5});
    CHECK(z.ndim() == 1);
    CHECK(z.size() == 5);
    CHECK(z.shape() == std::vector<std::int64_t>{5});
    CHECK(z.strides() == std::vector<std::int64_t>{4});
    CHECK(z.to_vector<float>() == std::vector<float>(5, 0.0f));
    CHECK(reinterpret_cast<std::uintptr_t>(z.data()) % 64 == 0);

    const std::vector<float> v = {1.5f, -2.0f, 3.25f, 1e30f, -0.0f};
    const w::Array a = w::Array::from_vector(f32, v);
    CHECK(a.dtype() == f32);
    CHECK(a.nbytes() == 20);
    std::vector<float> back(5);
    a.copy_to_host(back.data(), back.size() * sizeof(float));
    CHECK(std::memcmp(back.data(), v.data(), 20) == 0);

    const w::Array b = w::Array::from_host(f32, {2, 2}, v.data(), 16);
    CHECK(b.strides() == std::vector<std::int64_t>{8, 4});
    CHECK(b.to_vector<float>() == std::vector<float>{1.5f, -2.0f, 3.25f, 1e30f});

    // Copies share storage; writes through one are seen by the other.
    w::Array c = a;
    const float nine[5] = {9, 9, 9, 9, 9};
    c.copy_from_host(nine, sizeof nine);
    CHECK(a.to_vector<float>() == std::vector<float>(5, 9.0f));
}

TEST_CASE("array errors name the numbers involved") {
    const std::vector<float> v(4, 1.0f);
    CHECK_THROWS_WITH(w::Array::from_host(f32, {4}, v.data(), 12),
                      "Array::from_host: shape [4] of float32 is 4 elements, 16 bytes, but 12 bytes were given");
    CHECK_THROWS_WITH(w::Array::from_host(f32, {2, 3}, v.data(), 16),
                      "Array::from_host: shape [2, 3] of float32 is 6 elements, 24 bytes, but 16 bytes were given");
    CHECK_THROWS_WITH(w::Array::from_vector(f64, v),
                      "Array::from_vector: the host elements are float32, the dtype is float64 (use the dtype's own C++ type)");
    CHECK_THROWS_WITH(w::Array::from_vector(f32, v).to_vector<double>(),
                      "Array::to_vector: the host elements are float64, the dtype is float32 (use the dtype's own C++ type)");
    struct Bytes3 {
        unsigned char b[3];
    };
    CHECK_THROWS_WITH(w::Array::from_vector(f32, std::vector<Bytes3>(2)),
                      "Array::from_vector: the host element type has 3 bytes, dtype float32 has 4");
    CHECK_THROWS_WITH(w::Array::zeros(f32, {1, 1, 1, 1, 1}),
                      "Array::zeros: an array has 1 to 4 dimensions, got 5");
    CHECK_THROWS_WITH(w::Array::zeros(f32, {}), "Array::zeros: an array has 1 to 4 dimensions, got 0");
    CHECK_THROWS_WITH(w::Array::zeros(f32, {3, -1}), "Array::zeros: dimension 1 of shape [3, -1] is negative");
    CHECK_THROWS_WITH(w::Array::zeros(f32, {std::int64_t(1) << 31}),
                      "Array::zeros: dimension 0 of shape [2147483648] is more than 2147483647 (array shapes are int32)");
    CHECK_THROWS_WITH(w::Array::zeros(arr(f32), {2}), "Array::zeros: array(dtype=float32) is not an array dtype");
    float out[3];
    CHECK_THROWS_WITH(w::Array::from_vector(f32, v).copy_to_host(out, sizeof out),
                      "Array::copy_to_host: the array (array(dtype=float32), shape [4]) has 16 bytes, the destination 12");
    CHECK_THROWS_AS(w::Array::from_vector(f32, v).copy_to_host(out, sizeof out), w::UserError);
}

TEST_CASE("empty arrays have a shape and no elements") {
    const w::Array e = w::Array::zeros(f32, {3, 0});
    CHECK(e.size() == 0);
    CHECK(e.nbytes() == 0);
    CHECK(e.to_vector<float>().empty());
    CHECK(e.data() != nullptr);
}

TEST_CASE("vec3 arrays keep their components") {
    const w::Type vec3 = w::Type::vector(w::Scalar::Float32, 3);
    const std::vector<w::vec3> v = {w::vec3(1.0f, 2.0f, 3.0f), w::vec3(-4.0f, 5.5f, 6.0f)};
    const w::Array a = w::Array::from_vector(vec3, v);
    CHECK(a.nbytes() == 24);
    CHECK(a.strides() == std::vector<std::int64_t>{12});
    const std::vector<w::vec3> back = a.to_vector<w::vec3>();
    REQUIRE(back.size() == 2);
    CHECK(std::memcmp(back.data(), v.data(), 24) == 0);
    const w::Array z = w::Array::zeros(vec3, {3});
    for (const w::vec3 &e : z.to_vector<w::vec3>()) CHECK(w::eq(e, w::vec3()));
}

TEST_CASE("a 2-D strided view reads and writes every other column") {
    std::vector<std::int32_t> v(12);
    for (int k = 0; k < 12; ++k) v[static_cast<std::size_t>(k)] = k;
    w::Array base = w::Array::from_host(i32, {3, 4}, v.data(), 48);
    CHECK(base.strides() == std::vector<std::int64_t>{16, 4});
    CHECK(base.is_contiguous());

    w::Array even = base.view({3, 2}, {16, 8});
    CHECK_FALSE(even.is_contiguous());
    CHECK(even.size() == 6);
    CHECK(even.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 2, 4, 6, 8, 10});
    const w::Array odd = base.view({3, 2}, {16, 8}, 4);
    CHECK(odd.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 3, 5, 7, 9, 11});
    // A view of a view: its offset is relative to the view's element 0.
    CHECK(odd.view({2}, {16}, 16).to_vector<std::int32_t>() == std::vector<std::int32_t>{5, 9});
    // Reversed rows (negative stride).
    CHECK(base.view({3}, {-16}, 32).to_vector<std::int32_t>() == std::vector<std::int32_t>{8, 4, 0});

    const std::int32_t minus[6] = {-1, -2, -3, -4, -5, -6};
    even.copy_from_host(minus, sizeof minus);
    CHECK(base.to_vector<std::int32_t>() == std::vector<std::int32_t>{-1, 1, -2, 3, -3, 5, -4, 7, -5, 9, -6, 11});

    CHECK_THROWS_WITH(base.view({3, 3}, {16, 8}),
                      "Array::view: shape [3, 3], byte strides [16, 8], byte offset 0: its elements reach outside "
                      "the array's storage of 48 bytes");
    CHECK_THROWS_WITH(base.view({3}, {-16}),
                      "Array::view: shape [3], byte strides [-16], byte offset 0: its elements reach outside the "
                      "array's storage of 48 bytes");
    CHECK_THROWS_WITH(base.view({2}, {4}, 2),
                      "Array::view: shape [2], byte strides [4], byte offset 2: element 0 is not aligned to 4 bytes "
                      "for int32");
    CHECK_THROWS_WITH(base.view({2}, {6}),
                      "Array::view: shape [2], byte strides [6], byte offset 0: stride 6 is not a multiple of "
                      "int32's alignment 4");
    CHECK_THROWS_WITH(base.view({2, 2}, {4}),
                      "Array::view: shape [2, 2] has 2 dimensions but 1 strides were given");
    CHECK_THROWS_WITH(base.view({1}, {4}, 48),
                      "Array::view: shape [1], byte strides [4], byte offset 48: its elements reach outside the "
                      "array's storage of 48 bytes");
    CHECK(base.view({0}, {4}, 48).size() == 0);
}

TEST_CASE("a padded native type keeps its padding bytes exactly") {
    const w::Type padded = padded_type();
    CHECK(padded.size() == 8);
    std::vector<PaddedHost> v(3);
    for (std::size_t k = 0; k < v.size(); ++k) {
        std::memset(&v[k], 0xAB, sizeof(PaddedHost));
        v[k].tag = 7;
        v[k].value = 13 + static_cast<std::uint32_t>(k);
    }
    const w::Array a = w::Array::from_host(padded, {3}, v.data(), 24);
    std::vector<unsigned char> raw(24);
    a.copy_to_host(raw.data(), raw.size());
    CHECK(std::memcmp(raw.data(), v.data(), 24) == 0);
    CHECK(raw[0] == 7);
    CHECK((raw[1] == 0xAB && raw[2] == 0xAB && raw[3] == 0xAB));
    CHECK(std::memcmp(a.to_vector<PaddedHost>().data(), v.data(), 24) == 0);
    // Through a strided view (elements 0 and 2), too.
    const std::vector<PaddedHost> ends = a.view({2}, {16}).to_vector<PaddedHost>();
    CHECK(std::memcmp(&ends[0], &v[0], 8) == 0);
    CHECK(std::memcmp(&ends[1], &v[2], 8) == 0);

    // A value of the type, packed as an argument: byte-exact too.
    const w::PackedArgs packed =
        w::pack_args("p", {{"p", padded}, {"a", arr(padded)}}, {w::KernelArg::of(padded, v[1]), a});
    CHECK(std::memcmp(packed.arg(0), &v[1], 8) == 0);
    CHECK(reinterpret_cast<std::uintptr_t>(packed.arg(0)) % 4 == 0);
}

// ---------------------------------------------------------------------------
// Arguments and packing

TEST_CASE("scalar arguments have exact types") {
    CHECK(w::KernelArg(1.0f).type() == f32);
    CHECK(w::KernelArg(1.0).type() == f64);
    CHECK(w::KernelArg(1).type() == i32);
    CHECK(w::KernelArg(std::int64_t(1)).type() == i64);
    CHECK(w::KernelArg(1LL).type() == i64);
    CHECK(w::KernelArg(1u).type() == w::Type::scalar(w::Scalar::UInt32));
    CHECK(w::KernelArg(std::uint64_t(1)).type() == w::Type::scalar(w::Scalar::UInt64));
    CHECK(w::KernelArg(1ULL).type() == w::Type::scalar(w::Scalar::UInt64));
    CHECK(w::KernelArg(true).type() == w::Type::scalar(w::Scalar::Bool));
    CHECK(w::KernelArg(true).bytes() == std::vector<std::byte>{std::byte{1}});
    const w::KernelArg neg(-2);
    std::int32_t back = 0;
    std::memcpy(&back, neg.bytes().data(), 4);
    CHECK(back == -2);
    CHECK_FALSE(neg.is_array());
    CHECK_THROWS_WITH(neg.array(), "KernelArg::array: the argument is a value of type int32");

    const w::Type vec3 = w::Type::vector(w::Scalar::Float32, 3);
    CHECK(w::KernelArg::of(vec3, w::vec3(1.0f, 2.0f, 3.0f)).bytes().size() == 12);
    CHECK_THROWS_WITH(w::KernelArg::of(vec3, 1.0), "KernelArg::value: vec3 has 12 bytes, got 8");
    CHECK_THROWS_WITH(w::KernelArg::value(arr(f32), nullptr, 64),
                      "KernelArg::value: array(dtype=float32) is an array type; pass a weft::Array");
    const w::KernelArg array_arg(w::Array::zeros(f32, {2, 3}));
    CHECK(array_arg.is_array());
    CHECK(array_arg.type() == arr(f32, 2));
}

TEST_CASE("pack_args reports wrong arguments exactly") {
    const w::Array x = w::Array::zeros(f32, {4});
    const w::Array d2 = w::Array::zeros(f64, {2, 2});
    const w::Array f2 = w::Array::zeros(f32, {2, 2});
    CHECK_THROWS_WITH(w::pack_args("k", {{"x", arr(f32)}, {"y", arr(f32)}, {"a", f32}}, {x, x}),
                      "kernel 'k' takes 3 arguments (x, y, a), got 2");
    CHECK_THROWS_WITH(w::pack_args("k", {{"x", arr(f32)}}, {}), "kernel 'k' takes 1 argument (x), got 0");
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {d2, x, 2.0f, x}),
                      "kernel 'saxpy', parameter 'x': expected array(dtype=float32), got array(dtype=float64, ndim=2)");
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {x, f2, 2.0f, x}),
                      "kernel 'saxpy', parameter 'y': expected array(dtype=float32), got array(dtype=float32, ndim=2)");
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {x, x, 2, x}),
                      "kernel 'saxpy', parameter 'a': expected float32, got int32 (values convert only between "
                      "integer types, when they fit)");
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {x, x, 2.0, x}),
                      "kernel 'saxpy', parameter 'a': expected float32, got float64 (values convert only between "
                      "integer types, when they fit)");
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {x, x, x, x}),
                      "kernel 'saxpy', parameter 'a': expected float32, got array(dtype=float32)");
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {x, x, 2.0f, 1.0f}),
                      "kernel 'saxpy', parameter 'out': expected array(dtype=float32), got float32");
    // Integers convert when the value fits, and only then.
    const w::PackedArgs widened = w::pack_args("n", {{"n", i64}}, {-3});
    std::int64_t n = 0;
    std::memcpy(&n, widened.arg(0), sizeof n);
    CHECK(n == -3);
    CHECK_THROWS_WITH(w::pack_args("n", {{"n", w::Type::scalar(w::Scalar::UInt32)}}, {-3}),
                      "kernel 'n', parameter 'n': expected uint32, got int32 whose value does not fit (no conversion "
                      "loses a value)");
    CHECK_THROWS_AS(w::pack_args("n", {{"n", w::Type::scalar(w::Scalar::UInt8)}}, {256}), w::UserError);
}

TEST_CASE("pack_args lays out array views and aligned values") {
    const w::Array x = w::Array::zeros(f32, {3, 5});
    const w::Array col = x.view({3}, {20}, 8);
    const auto s = w::StructLayout::make("S", {{"a", w::Type::scalar(w::Scalar::UInt8), 0}, {"b", f64, 0}});
    const w::Type st = w::Type::structure(s);
    REQUIRE(st.size() == 16);
    unsigned char sbytes[16];
    for (int k = 0; k < 16; ++k) sbytes[k] = static_cast<unsigned char>(k + 1);
    // A native type with the same code under another name is the same type.
    const w::Type padded_alias = w::Type::native("other::Name", "nt0123456789abcdef", 8, 4);
    const PaddedHost p{7, {0xAB, 0xAB, 0xAB}, 13};

    w::PackedArgs packed = w::pack_args(
        "layout", {{"flag", w::Type::scalar(w::Scalar::Bool)}, {"x", arr(f32, 2)}, {"c", arr(f32)}, {"s", st},
                   {"n", w::Type::scalar(w::Scalar::UInt8)}, {"p", padded_type()}},
        {true, x, col, w::KernelArg::value(st, sbytes, 16),
         w::KernelArg::of(w::Type::scalar(w::Scalar::UInt8), std::uint8_t(200)), w::KernelArg::of(padded_alias, p)});
    REQUIRE(packed.size() == 6);
    CHECK(*static_cast<const bool *>(packed.arg(0)) == true);

    const auto &vx = *static_cast<const w::array_t<w::float32> *>(packed.arg(1));
    CHECK(reinterpret_cast<std::uintptr_t>(packed.arg(1)) % 8 == 0);
    CHECK(vx.data == x.data());
    CHECK((vx.shape[0] == 3 && vx.shape[1] == 5 && vx.shape[2] == 0 && vx.shape[3] == 0));
    CHECK((vx.strides[0] == 20 && vx.strides[1] == 4 && vx.strides[2] == 0 && vx.strides[3] == 0));
    CHECK(vx.ndim == 2);

    const auto &vc = *static_cast<const w::array_t<w::float32> *>(packed.arg(2));
    CHECK(static_cast<void *>(vc.data) == static_cast<char *>(x.data()) + 8);
    CHECK((vc.shape[0] == 3 && vc.strides[0] == 20 && vc.ndim == 1));

    CHECK(reinterpret_cast<std::uintptr_t>(packed.arg(3)) % 8 == 0);
    CHECK(std::memcmp(packed.arg(3), sbytes, 16) == 0);
    CHECK(*static_cast<const std::uint8_t *>(packed.arg(4)) == 200);
    CHECK(std::memcmp(packed.arg(5), &p, 8) == 0);
    CHECK(packed.pointers()[5] == packed.arg(5));

    // Moving keeps the pointers valid.
    const w::PackedArgs moved = std::move(packed);
    CHECK(static_cast<const w::array_t<w::float32> *>(moved.arg(1))->data == x.data());
}

TEST_CASE("packed arguments keep their arrays alive") {
    w::PackedArgs packed = [] {
        const w::Array temp = w::Array::from_vector(f32, std::vector<float>{4.0f, 5.0f});
        return w::pack_args("k", {{"a", arr(f32)}}, {temp});
    }();
    const auto &view = *static_cast<const w::array_t<w::float32> *>(packed.arg(0));
    CHECK(view.data[0] == 4.0f);
    CHECK(view.data[1] == 5.0f);
}

// ---------------------------------------------------------------------------
// Thread pool

TEST_CASE("parallel_for covers the range once in contiguous chunks") {
    for (unsigned threads : {1u, 2u, 7u}) {
        w::ThreadPool pool(threads, 1);
        CHECK(pool.threads() == threads);
        std::mutex m;
        std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
        pool.parallel_for(1000, [&](std::int64_t b, std::int64_t e) {
            std::lock_guard<std::mutex> lock(m);
            ranges.emplace_back(b, e);
        });
        std::sort(ranges.begin(), ranges.end());
        REQUIRE_FALSE(ranges.empty());
        CHECK(ranges.size() <= 4 * threads);
        CHECK(ranges.front().first == 0);
        CHECK(ranges.back().second == 1000);
        for (std::size_t k = 0; k < ranges.size(); ++k) {
            CHECK(ranges[k].first < ranges[k].second);
            if (k) CHECK(ranges[k].first == ranges[k - 1].second);
        }
        if (threads == 1) CHECK(ranges.size() == 1);
    }
}

TEST_CASE("small ranges run inline on the caller") {
    w::ThreadPool pool(4);
    CHECK(pool.inline_threshold() == w::ThreadPool::default_inline_threshold);
    int calls = 0;
    std::thread::id who;
    pool.parallel_for(100, [&](std::int64_t b, std::int64_t e) {
        ++calls;
        who = std::this_thread::get_id();
        CHECK(b == 0);
        CHECK(e == 100);
    });
    CHECK(calls == 1);
    CHECK(who == std::this_thread::get_id());
    pool.parallel_for(0, [&](std::int64_t, std::int64_t) { ++calls; });
    pool.parallel_for(-5, [&](std::int64_t, std::int64_t) { ++calls; });
    CHECK(calls == 1);
    CHECK(w::ThreadPool().threads() >= 1);
}

TEST_CASE("parallel_for rethrows the first exception after the chunks finish") {
    w::ThreadPool pool(7, 1);
    std::atomic<int> running{0};
    CHECK_THROWS_WITH(pool.parallel_for(10000,
                                        [&](std::int64_t b, std::int64_t e) {
                                            ++running;
                                            if (b <= 5000 && 5000 < e) throw std::runtime_error("chunk failed");
                                            --running;
                                        }),
                      "chunk failed");
    CHECK(running == 1); // every other chunk that started also finished before the rethrow
    // The pool still works.
    std::atomic<std::int64_t> sum{0};
    pool.parallel_for(10000, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) sum += i;
    });
    CHECK(sum == 10000LL * 9999 / 2);
}

TEST_CASE("parallel_for is safe from several threads at once and when nested") {
    w::ThreadPool pool(4, 1);
    std::vector<std::thread> callers;
    std::atomic<int> bad{0};
    for (int t = 0; t < 4; ++t)
        callers.emplace_back([&, t] {
            for (int rep = 0; rep < 50; ++rep) {
                const std::int64_t n = 1000 + 97 * t + rep;
                std::atomic<std::int64_t> sum{0};
                pool.parallel_for(n, [&](std::int64_t b, std::int64_t e) {
                    for (std::int64_t i = b; i < e; ++i) sum += i;
                });
                if (sum != n * (n - 1) / 2) ++bad;
            }
        });
    for (std::thread &c : callers) c.join();
    CHECK(bad == 0);

    std::atomic<std::int64_t> total{0};
    pool.parallel_for(16, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t k = b; k < e; ++k)
            pool.parallel_for(1000, [&](std::int64_t ib, std::int64_t ie) { total += ie - ib; });
    });
    CHECK(total == 16000);
}

// ---------------------------------------------------------------------------
// CPU launches

TEST_CASE("launch_cpu runs saxpy exactly") {
    const std::int64_t n = 100000;
    std::vector<float> x(static_cast<std::size_t>(n)), y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = static_cast<float>(i);
        y[i] = 2.0f * static_cast<float>(i);
    }
    const w::Array ax = w::Array::from_vector(f32, x), ay = w::Array::from_vector(f32, y);
    const w::Array out = w::Array::zeros(f32, {n});
    w::ThreadPool pool(4);
    w::launch_cpu(weft_test_saxpy, {n}, w::pack_args("saxpy", saxpy_params(), {ax, ay, 0.5f, out}), pool);
    const std::vector<float> r = out.to_vector<float>();
    bool exact = true;
    for (std::size_t i = 0; i < r.size(); ++i) exact = exact && r[i] == 2.5f * static_cast<float>(i);
    CHECK(exact);
    CHECK(r[99999] == 249997.5f);
}

TEST_CASE("results do not depend on the thread count") {
    const std::int64_t n = 50000;
    const std::vector<float> one = run_churn(1, n);
    const std::vector<float> two = run_churn(2, n);
    const std::vector<float> seven = run_churn(7, n);
    CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(one.data(), seven.data(), one.size() * sizeof(float)) == 0);
    CHECK(one[0] != one[1]);
}

TEST_CASE("atomics are exact under threads") {
    for (unsigned threads : {1u, 7u}) {
        const w::Array counter = w::Array::zeros(i32, {1});
        const w::Array fcounter = w::Array::zeros(f32, {1});
        const w::Array hist = w::Array::zeros(i64, {10});
        w::ThreadPool pool(threads, 1);
        w::launch_cpu(weft_test_count, {1000000},
                      w::pack_args("count", {{"n", arr(i32)}, {"f", arr(f32)}, {"hist", arr(i64)}},
                                   {counter, fcounter, hist}),
                      pool);
        CHECK(counter.to_vector<std::int32_t>()[0] == 1000000);
        CHECK(fcounter.to_vector<float>()[0] == 1000000.0f);
        CHECK(hist.to_vector<std::int64_t>() == std::vector<std::int64_t>(10, 100000));
    }
}

TEST_CASE("a 2-D launch decodes (i, j) row-major") {
    const w::Array out = w::Array::zeros(i32, {37, 53});
    w::ThreadPool pool(7, 1);
    w::launch_cpu(weft_test_fill2d, {37, 53}, w::pack_args("fill2d", {{"out", arr(i32, 2)}}, {out}), pool);
    const std::vector<std::int32_t> r = out.to_vector<std::int32_t>();
    bool ok = true;
    for (int i = 0; i < 37; ++i)
        for (int j = 0; j < 53; ++j) ok = ok && r[static_cast<std::size_t>(i * 53 + j)] == 1000 * i + j;
    CHECK(ok);

    // Through a strided view: the even columns of a 37 x 106 array.
    const w::Array wide = w::Array::zeros(i32, {37, 106});
    const w::Array even = wide.view({37, 53}, {106 * 4, 8});
    w::launch_cpu(weft_test_fill2d, {37, 53}, w::pack_args("fill2d", {{"out", arr(i32, 2)}}, {even}), pool);
    const std::vector<std::int32_t> wr = wide.to_vector<std::int32_t>();
    ok = true;
    for (int i = 0; i < 37; ++i)
        for (int j = 0; j < 106; ++j)
            ok = ok && wr[static_cast<std::size_t>(i * 106 + j)] == (j % 2 == 0 ? 1000 * i + j / 2 : 0);
    CHECK(ok);
}

TEST_CASE("launch_cpu fills launch_t and runs every index once") {
    w::ThreadPool pool(3, 1);
    const w::PackedArgs none = w::pack_args("tally", {}, {});
    g_calls = 0;
    g_indices = 0;
    w::launch_cpu(weft_test_tally, {4, 5, 6}, none, pool);
    CHECK(g_indices == 120);
    CHECK(g_calls >= 1);
    CHECK(g_calls <= 12);
    CHECK(g_seen.ndim == 3);
    CHECK((g_seen.shape[0] == 4 && g_seen.shape[1] == 5 && g_seen.shape[2] == 6 && g_seen.shape[3] == 0));
    CHECK(g_seen.size == 120);
}

TEST_CASE("dimension 0 launches nothing") {
    w::ThreadPool pool(4, 1);
    const w::PackedArgs none = w::pack_args("tally", {}, {});
    g_calls = 0;
    w::launch_cpu(weft_test_tally, {0}, none, pool);
    w::launch_cpu(weft_test_tally, {5, 0}, none, pool);
    w::launch_cpu(weft_test_tally, {0, 3, 7, 2}, none, pool);
    CHECK(g_calls == 0);
}

TEST_CASE("launch_cpu validates the launch dimensions") {
    w::ThreadPool pool(2);
    const w::PackedArgs none = w::pack_args("tally", {}, {});
    CHECK_THROWS_WITH(w::launch_cpu(weft_test_tally, {}, none, pool),
                      "launch_cpu: a launch has 1 to 4 dimensions, got 0");
    CHECK_THROWS_WITH(w::launch_cpu(weft_test_tally, {1, 1, 1, 1, 1}, none, pool),
                      "launch_cpu: a launch has 1 to 4 dimensions, got 5");
    CHECK_THROWS_WITH(w::launch_cpu(weft_test_tally, {4, -1}, none, pool),
                      "launch_cpu: dimension 1 is -1; launch dimensions are 0 to 2147483647");
    CHECK_THROWS_WITH(w::launch_cpu(weft_test_tally, {std::int64_t(1) << 31}, none, pool),
                      "launch_cpu: dimension 0 is 2147483648; launch dimensions are 0 to 2147483647");
    const std::int64_t big = std::numeric_limits<std::int32_t>::max();
    CHECK_THROWS_WITH(w::launch_cpu(weft_test_tally, {big, big, big}, none, pool),
                      "launch_cpu: the launch's thread count overflows int64");
    CHECK_THROWS_WITH(w::launch_cpu(nullptr, {1}, none, pool), "launch_cpu: the entry point is null");
}

TEST_CASE("an exception thrown in a chunk reaches the caller") {
    w::ThreadPool pool(7);
    const w::PackedArgs none = w::pack_args("boom", {}, {});
    CHECK_THROWS_WITH(w::launch_cpu(weft_test_boom, {100000}, none, pool), "boom at 54321");
    w::ThreadPool inline_pool(1);
    CHECK_THROWS_WITH(w::launch_cpu(weft_test_boom, {100000}, none, inline_pool), "boom at 54321");
    // Ranges that miss the throwing index run normally afterwards.
    CHECK_NOTHROW(w::launch_cpu(weft_test_boom, {54321}, none, pool));
}

TEST_CASE("null and moved-from arrays are refused at launch, not read through a null pointer") {
    const w::Array x = w::Array::from_vector(f32, std::vector<float>{1, 2, 3, 4});
    const w::Array null = w::null_array_like(x);
    CHECK(null.is_null());
    CHECK_FALSE(x.is_null());
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {x, null, 2.0f, x}),
                      "kernel 'saxpy', parameter 'y': the array is a null array (null_array_like): shape [4] and no "
                      "elements for the kernel to read");
    // A backward kernel's gradient of an array without one is a null array, which its code skips.
    const std::vector<w::KernelParam> backward = {{"x", arr(f32)}, {"adj_x", arr(f32)}};
    CHECK(w::pack_args("k_backward", backward, {x, null}).size() == 2);
    CHECK_THROWS_WITH(w::pack_args("k_backward", backward, {null, x}),
                      Catch::StartsWith("kernel 'k_backward', parameter 'x': the array is a null array"));

    w::Array moved = w::Array::from_vector(f32, std::vector<float>{5, 6});
    const w::Array taken = std::move(moved);
    CHECK(taken.to_vector<float>() == std::vector<float>{5, 6});
    CHECK(moved.is_moved_from()); // NOLINT(bugprone-use-after-move): what the test is about
    CHECK(moved.size() == 0);
    CHECK(moved.to_vector<float>().empty()); // was a read through a null pointer
    CHECK_THROWS_WITH(w::pack_args("saxpy", saxpy_params(), {x, x, 2.0f, moved}),
                      "kernel 'saxpy', parameter 'out': the array was moved from (it has no shape and no elements)");
    w::Array assigned = w::Array::zeros(f32, {1});
    assigned = std::move(moved); // moving a moved-from array stays well defined
    CHECK(assigned.is_moved_from());

    // An indexed array's index arrays are read too.
    const w::Array index = w::Array::from_vector(w::Type::scalar(w::Scalar::Int32), std::vector<std::int32_t>{0, 2});
    const std::vector<w::KernelParam> gather = {{"a", w::Type::indexed_array(f32, 1)}};
    CHECK(w::pack_args("gather", gather, {w::IndexedArray{x, {index}}}).size() == 1);
    CHECK_THROWS_WITH(w::pack_args("gather", gather, {w::IndexedArray{x, {w::null_array_like(index)}}}),
                      "kernel 'gather', parameter 'a': the index array of dimension 0 is a null array "
                      "(null_array_like): no elements for the kernel to read");
}
