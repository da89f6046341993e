// The runtime headers for generated code, compiled directly by the host
// compiler: concrete values of the core builtins, layouts, atomics under
// concurrent threads, print and expect output.
#include "weft/rt/runtime.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <vector>

WEFT_DEFINE_RUNTIME_GLOBALS

namespace w = weft;
using Catch::Matchers::WithinAbs;

namespace {

template <typename V> bool near_all(const V &a, const V &b, double tolerance) {
    for (int i = 0; i < w::rt::comp<V>::n; ++i)
        if (std::fabs(double(w::rt::at(a, i)) - double(w::rt::at(b, i))) > tolerance) return false;
    return true;
}

/// A view of the floats from `data` on: `shape`, byte `strides`.
w::array_t<float> float_view(float *data, std::initializer_list<int> shape, std::initializer_list<long long> strides) {
    w::array_t<float> a{};
    a.data = data;
    a.ndim = static_cast<int>(shape.size());
    int d = 0;
    for (int s : shape) a.shape[d++] = s;
    d = 0;
    for (long long s : strides) a.strides[d++] = s;
    return a;
}

/// Everything f writes to stdout (printf included).
std::string capture_stdout(const std::function<void()> &f) {
    std::fflush(stdout);
    std::FILE *tmp = std::tmpfile();
    REQUIRE(tmp != nullptr);
    const int saved = dup(1);
    dup2(fileno(tmp), 1);
    f();
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    std::string out;
    std::rewind(tmp);
    char buf[256];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, tmp)) > 0;) out.append(buf, n);
    std::fclose(tmp);
    return out;
}

} // namespace

TEST_CASE("layouts match Warp and the host's array view contract") {
    STATIC_REQUIRE(sizeof(w::vec3) == 12);
    STATIC_REQUIRE(alignof(w::vec3) == 4);
    STATIC_REQUIRE(sizeof(w::vec4d) == 32);
    STATIC_REQUIRE(sizeof(w::vec3h) == 6);
    STATIC_REQUIRE(alignof(w::vec3h) == 2);
    STATIC_REQUIRE(sizeof(w::mat33) == 36);
    STATIC_REQUIRE(alignof(w::mat33) == 4);
    STATIC_REQUIRE(sizeof(w::mat44d) == 128);
    STATIC_REQUIRE(sizeof(w::mat23) == 24);
    STATIC_REQUIRE(sizeof(w::quat) == 16);
    STATIC_REQUIRE(alignof(w::quat) == 4);
    STATIC_REQUIRE(sizeof(w::float16) == 2);
    STATIC_REQUIRE(sizeof(w::bfloat16) == 2 && alignof(w::bfloat16) == 2);
    STATIC_REQUIRE(sizeof(w::array_t<w::vec3>) == 64);
    STATIC_REQUIRE(alignof(w::array_t<w::vec3>) == 8);
    STATIC_REQUIRE(offsetof(w::array_t<float>, data) == 0);
    STATIC_REQUIRE(offsetof(w::array_t<float>, shape) == 8);
    STATIC_REQUIRE(offsetof(w::array_t<float>, strides) == 24);
    STATIC_REQUIRE(offsetof(w::array_t<float>, ndim) == 56);
    STATIC_REQUIRE(std::is_trivially_copyable_v<w::mat33>);
    STATIC_REQUIRE(std::is_trivially_copyable_v<w::quath>);
    STATIC_REQUIRE(std::is_standard_layout_v<w::vec3>);
    STATIC_REQUIRE(std::is_same_v<w::vec3f, w::vec3>);
    STATIC_REQUIRE(std::is_same_v<w::int64, long long>);
}

TEST_CASE("deferred adds: which arrays get a private copy, what it starts from, and what its flush applies") {
    float mem[64] = {};
    const auto view = [&](std::initializer_list<int> shape, std::initializer_list<long long> strides) {
        return float_view(mem, shape, strides);
    };
    w::rt::deferred_table table{};
    const w::array_t<float> grid = view({3, 5}, {20, 4}); // 15 floats
    // On, with a chunk of at least four times the elements: a copy of the
    // 60 bytes, every element -0.0 (the additive identity, bit for bit).
    w::weft_rt_deferred_begin(&table, true);
    w::weft_rt_deferred_private(&table, &grid, sizeof(float), 60, true);
    REQUIRE(table.copy != nullptr);
    CHECK(table.from == reinterpret_cast<unsigned long long>(mem));
    CHECK(table.bytes == 60);
    for (int k = 0; k < 15; ++k) {
        const float v = static_cast<const float *>(table.copy)[k];
        CHECK(v == 0.0f);
        CHECK(std::signbit(v));
    }
    w::weft_rt_deferred_flush_f32(&table, nullptr, 0.0f); // nothing added: nothing applied, the copy freed
    CHECK(table.copy == nullptr);
    for (float v : mem) CHECK(!std::signbit(v));
    // No copy: a chunk of fewer than four times the elements, a table that is
    // off (the array shares memory with another), a view whose elements are
    // not a whole number of elements apart, or one wider than 256 KiB.
    w::weft_rt_deferred_begin(&table, true);
    w::weft_rt_deferred_private(&table, &grid, sizeof(float), 59, true);
    CHECK(table.copy == nullptr);
    w::weft_rt_deferred_begin(&table, false);
    w::weft_rt_deferred_private(&table, &grid, sizeof(float), 1000, true);
    CHECK(table.copy == nullptr);
    w::weft_rt_deferred_begin(&table, true);
    const w::array_t<float> odd = view({3, 2}, {6, 4});
    w::weft_rt_deferred_private(&table, &odd, sizeof(float), 1000, true);
    CHECK(table.copy == nullptr);
    const w::array_t<float> wide = view({2, 2}, {300 * 1024, 4}); // spans 300 KiB; never dereferenced
    w::weft_rt_deferred_private(&table, &wide, sizeof(float), 1 << 30, true);
    CHECK(table.copy == nullptr);
    // An outer stride that is never used (one row) does not matter.
    const w::array_t<float> one_row = view({1, 4}, {6, 4});
    w::weft_rt_deferred_private(&table, &one_row, sizeof(float), 16, true);
    CHECK(table.copy != nullptr);
    w::weft_rt_deferred_flush_f32(&table, nullptr, 0.0f);

    // Through deferred_adds: scattered adds land in the copy, an index outside
    // the array (negative: Warp's wrap) in the table, and the flush applies both.
    w::rt::deferred_adds<float> adds;
    adds.begin(true, &table);
    adds.privatize(grid, 1000);
    REQUIRE(adds.copy != nullptr);
    adds.scatter<true>(grid, 1.5f, 1, 2);
    adds.scatter<true>(grid, 1.5f, 1, 2);
    adds.scatter<true>(grid, 4.0f, 2, -1); // (2, 4)
    CHECK(mem[1 * 5 + 2] == 0.0f);        // nothing applied before the flush
    adds.flush();
    CHECK(mem[1 * 5 + 2] == 3.0f);
    CHECK(mem[2 * 5 + 4] == 4.0f);
    CHECK(table.copy == nullptr);
}

TEST_CASE("disjoint: whether two array views share a byte of their elements") {
    float mem[64] = {};
    const auto view = [&](int first, std::initializer_list<int> shape, std::initializer_list<long long> strides) {
        return float_view(mem + first, shape, strides);
    };
    const auto rows = [&](int first) { return view(first, {2, 4}, {16, 4}); }; // 8 floats: mem[first, first + 8)
    CHECK(w::disjoint(rows(0), rows(8)));
    CHECK(w::disjoint(rows(8), rows(0)));
    CHECK_FALSE(w::disjoint(rows(0), rows(7))); // the last element of one is the first of the other
    CHECK_FALSE(w::disjoint(rows(0), rows(0)));
    CHECK_FALSE(w::disjoint(rows(4), rows(0)));
    // Interleaved rows share no element, but their spans cross: not disjoint.
    CHECK_FALSE(w::disjoint(view(0, {2, 4}, {32, 4}), view(4, {2, 4}, {32, 4})));
    // A negative stride spans backwards from data: mem[8, 16) here.
    const w::array_t<float> reversed = view(15, {8}, {-4});
    CHECK(w::disjoint(reversed, rows(0)));
    CHECK(w::disjoint(reversed, rows(16)));
    CHECK_FALSE(w::disjoint(reversed, rows(1)));
    CHECK_FALSE(w::disjoint(reversed, view(15, {1}, {4})));
    // No elements, or no data: nothing to overlap.
    CHECK(w::disjoint(view(0, {0, 4}, {16, 4}), rows(0)));
    w::array_t<float> none = rows(0);
    none.data = nullptr;
    CHECK(w::disjoint(rows(0), none));
    // Element sizes differ: a vec3 at mem[4] covers mem[4, 7).
    w::array_t<w::vec3> v{};
    v.data = reinterpret_cast<w::vec3 *>(mem + 4);
    v.ndim = 1;
    v.shape[0] = 1;
    v.strides[0] = 12;
    CHECK(w::disjoint(v, view(7, {1}, {4})));
    CHECK_FALSE(w::disjoint(v, view(6, {1}, {4})));
    CHECK(w::disjoint(v, view(0, {4}, {4})));
}

TEST_CASE("integer builtins keep their operand type and wrap") {
    STATIC_REQUIRE(std::is_same_v<decltype(w::add(w::int8(1), w::int8(2))), w::int8>);
    STATIC_REQUIRE(std::is_same_v<decltype(w::mul(w::uint16(1), w::uint16(2))), w::uint16>);
    STATIC_REQUIRE(std::is_same_v<decltype(w::lt(w::int8(1), w::int8(2))), bool>);
    CHECK(w::add(w::int8(100), w::int8(100)) == w::int8(-56));
    CHECK(w::sub(w::int8(-128), w::int8(1)) == w::int8(127));
    CHECK(w::mul(w::uint8(16), w::uint8(16)) == w::uint8(0));
    CHECK(w::mul(w::uint16(65535), w::uint16(65535)) == w::uint16(1));
    CHECK(w::sub(w::uint16(0), w::uint16(1)) == w::uint16(65535));
    CHECK(w::neg(std::numeric_limits<w::int32>::min()) == std::numeric_limits<w::int32>::min());
    CHECK(w::add(std::numeric_limits<w::int64>::max(), w::int64(1)) == std::numeric_limits<w::int64>::min());
    CHECK(w::abs(w::int8(-128)) == w::int8(-128));
    CHECK(w::abs(w::int16(-7)) == 7);
    CHECK(w::sign(w::int32(-9)) == -1);
    CHECK(w::sign(w::uint32(9)) == 1);
    CHECK(w::clamp(w::int32(5), 0, 3) == 3);
    CHECK(w::lshift(w::int8(1), w::int8(7)) == w::int8(-128));
    CHECK(w::lshift(w::int8(1), w::int8(8)) == w::int8(0));
    CHECK(w::rshift(w::int8(-128), w::int8(10)) == w::int8(-1));
    CHECK(w::rshift(w::uint32(0x80000000u), w::uint32(31)) == 1u);
    CHECK(w::invert(w::uint8(0)) == w::uint8(255));
    CHECK(w::bit_xor(w::int16(0x0ff0), w::int16(0x00ff)) == w::int16(0x0f0f));
}

TEST_CASE("floordiv floors and mod keeps the sign of a, as Warp, for integers and floats") {
    CHECK(w::floordiv(-7, 2) == -4);
    CHECK(w::floordiv(7, -2) == -4);
    CHECK(w::floordiv(7, 2) == 3);
    CHECK(w::div(-7, 2) == -3); // div truncates
    // Warp's % is C's (warp-lang 1.19: -7 % 3 == -1, 7 % -3 == 1), beside its flooring //.
    CHECK(w::mod(-7, 3) == -1);
    CHECK(w::mod(7, -3) == 1);
    CHECK(w::mod(-6, 3) == 0);
    CHECK(w::mod(w::int8(-128), w::int8(3)) == -2);
    CHECK(w::floordiv(w::int8(-128), w::int8(-1)) == w::int8(-128)); // 128 wraps
    CHECK(w::mod(w::uint32(7), w::uint32(3)) == 1u);
    CHECK(w::floordiv(w::int64(-1), w::int64(1000000000000LL)) == -1);

    CHECK(w::floordiv(-7.0, 2.0) == -4.0);
    CHECK(w::floordiv(-7.0f, 2.0f) == -4.0f);
    CHECK(w::floordiv(7.0, 0.1) == 69.0); // as Python: 7.0 // 0.1 == 69.0
    CHECK(w::mod(-7.0, 3.0) == -1.0);     // fmod
    CHECK(w::mod(7.5, -2.0) == 1.5);
    CHECK(w::mod(-7.5, 2.0) == -1.5);
    CHECK(w::mod(5.0, 0.1) == std::fmod(5.0, 0.1));
    CHECK(w::mod(-7.0f, 3.0f) == -1.0f);
    CHECK(float(w::mod(w::float16(-7.0f), w::float16(3.0f))) == -1.0f);
    CHECK(float(w::floordiv(w::float16(-7.0f), w::float16(2.0f))) == -4.0f);
}

TEST_CASE("integer division by zero gives 0 and INT_MIN / -1 does not trap") {
    CHECK(w::div(5, 0) == 0);
    CHECK(w::floordiv(w::int64(5), w::int64(0)) == 0);
    CHECK(w::mod(w::uint8(5), w::uint8(0)) == 0);
    CHECK(w::mod(w::int32(-5), w::int32(0)) == 0);
    const w::int32 lo = std::numeric_limits<w::int32>::min();
    CHECK(w::div(lo, -1) == lo);
    CHECK(w::floordiv(lo, -1) == lo);
    CHECK(w::mod(lo, -1) == 0);
    CHECK(std::isinf(w::div(1.0f, 0.0f)));
}

TEST_CASE("float math builtins") {
    CHECK(w::sqrt(4.0f) == 2.0f);
    CHECK(w::sqrt(2.0) == std::sqrt(2.0));
    CHECK(float(w::sqrt(w::float16(4.0f))) == 2.0f);
    CHECK(w::round(2.5f) == 3.0f); // halfway away from zero
    CHECK(w::trunc(-2.7) == -2.0);
    CHECK_THAT(w::atan2(1.0, 0.0), WithinAbs(1.5707963267948966, 1e-15));
    CHECK(w::pow(2.0f, 10.0f) == 1024.0f);
    CHECK(w::isnan(std::nan("")));
    CHECK_FALSE(w::isfinite(std::numeric_limits<float>::infinity()));
    CHECK(w::isfinite(w::float16(65504.0f)));
    CHECK(w::abs(-0.0f) == 0.0f);
    CHECK_FALSE(std::signbit(w::abs(-0.0)));
    CHECK(w::sign(-2.5) == -1.0);
    CHECK(w::sign(0.0f) == 1.0f); // Warp: -1 when a < 0, else 1
    CHECK(w::sign(-0.0) == 1.0);
    CHECK(w::sign(std::nan("")) == 1.0);
    CHECK(w::sign(w::int32(0)) == 1);
    CHECK(w::sign(w::uint32(0)) == 1u);
    CHECK(w::min(1.5, -2.0) == -2.0);
    CHECK(w::max(w::float16(1.5f), w::float16(-2.0f)).bits == w::float16(1.5f).bits);
}

TEST_CASE("float16 converts like IEEE binary16 and casts to and from every scalar") {
    CHECK(float(w::float16(1.5f)) == 1.5f);
    CHECK(float(w::float16(-2.0f)) == -2.0f);
    CHECK(float(w::float16(65504.0f)) == 65504.0f);
    CHECK(float(w::float16(0.1f)) == 0.0999755859375f);
    CHECK(w::float16(1.0f).bits == 0x3c00);
    CHECK(w::float16(65504.0f).bits == 0x7bff);
    CHECK(w::float16(65519.0f).bits == 0x7bff);
    CHECK(w::float16(65520.0f).bits == 0x7c00); // rounds to infinity
    CHECK(w::float16(-0.0f).bits == 0x8000);
    CHECK(w::float16(5.9604644775390625e-8f).bits == 0x0001); // smallest subnormal
    CHECK(w::float16(2.98023223876953125e-8f).bits == 0x0000); // half of it: ties to even
    CHECK(float(w::float16::from_bits(0x0001)) == 5.9604644775390625e-8f);
    CHECK(float(w::float16::from_bits(0x03ff)) == 6.0975551605224609375e-5f);
    CHECK(std::isnan(float(w::float16(std::nanf("")))));
    CHECK(std::isinf(float(w::float16(1e10f))));
    CHECK(w::float16(1.0009765625f).bits == 0x3c01);
    CHECK(w::float16(1.00048828125f).bits == 0x3c00); // halfway: to even
    for (unsigned b = 0; b < 0x7c00; ++b) { // every finite half round-trips through float
        const w::float16 h = w::float16::from_bits(static_cast<w::uint16>(b));
        if (w::float16(float(h)).bits != b) FAIL("bits " << b);
    }

    CHECK(static_cast<w::int32>(w::float16(2.75f)) == 2);
    CHECK(static_cast<w::uint8>(w::float16(200.0f)) == 200);
    CHECK(static_cast<bool>(w::float16(0.5f)));
    CHECK_FALSE(static_cast<bool>(w::float16(0.0f)));
    CHECK(static_cast<w::float64>(w::float16(-3.5f)) == -3.5);
    CHECK(float(static_cast<w::float16>(w::int8(-5))) == -5.0f);
    CHECK(float(static_cast<w::float16>(w::uint64(2048))) == 2048.0f);
    CHECK(float(static_cast<w::float16>(0.25)) == 0.25f);
    CHECK(float(static_cast<w::float16>(true)) == 1.0f);
    CHECK(float(w::add(w::float16(1.5f), w::float16(2.25f))) == 3.75f);
    CHECK(w::lt(w::float16(1.0f), w::float16(2.0f)));
}

TEST_CASE("bfloat16 rounds bit for bit as Warp's and casts to and from every scalar") {
    const auto from_float_bits = [](w::uint32 b) { return w::bfloat16(__builtin_bit_cast(float, b)).bits; };
    // Expected bits from warp-lang 1.19's wp_float_to_bfloat16_bits.
    CHECK(from_float_bits(0x3f800000u) == 0x3f80);
    CHECK(from_float_bits(0x3f808000u) == 0x3f80); // halfway: to even
    CHECK(from_float_bits(0x3f818000u) == 0x3f82); // halfway: to even
    CHECK(from_float_bits(0x3f80c000u) == 0x3f81);
    CHECK(from_float_bits(0xbf808001u) == 0xbf81);
    CHECK(from_float_bits(0x3f7fffffu) == 0x3f80);
    CHECK(from_float_bits(0x3dcccccdu) == 0x3dcd); // 0.1
    CHECK(from_float_bits(0x7f7f7fffu) == 0x7f7f);
    CHECK(from_float_bits(0x7f7f8000u) == 0x7f80); // rounds to infinity
    CHECK(from_float_bits(0x7f7fffffu) == 0x7f80);
    CHECK(from_float_bits(0x7f800000u) == 0x7f80);
    CHECK(from_float_bits(0xff800000u) == 0xff80);
    CHECK(from_float_bits(0x80000000u) == 0x8000);
    CHECK(from_float_bits(0x00000001u) == 0x0000); // float32 subnormals round like normals
    CHECK(from_float_bits(0x00018000u) == 0x0002);
    CHECK(from_float_bits(0xffc00000u) == 0xffc0);
    // NaNs truncate; one whose kept payload would be zero gets the quiet bit (else it would read as infinity).
    CHECK(from_float_bits(0x7f800001u) == 0x7fc0);
    CHECK(from_float_bits(0x7f810000u) == 0x7f81);
    CHECK(std::isnan(float(w::bfloat16(std::nanf("")))));
    for (unsigned b = 0; b < 0x10000; ++b) { // every bfloat16 round-trips through float, NaNs included
        const w::bfloat16 h = w::bfloat16::from_bits(static_cast<w::uint16>(b));
        if (w::bfloat16(float(h)).bits != b) FAIL("bits " << b);
    }
    STATIC_REQUIRE(sizeof(w::bfloat16) == 2);
    STATIC_REQUIRE(w::bfloat16(1.5f).bits == 0x3fc0); // constexpr, as float16

    CHECK(static_cast<w::int32>(w::bfloat16(2.75f)) == 2);
    CHECK(static_cast<w::uint8>(w::bfloat16(200.0f)) == 200);
    CHECK(static_cast<bool>(w::bfloat16(0.5f)));
    CHECK_FALSE(static_cast<bool>(w::bfloat16(0.0f)));
    CHECK(static_cast<w::float64>(w::bfloat16(-3.5f)) == -3.5);
    CHECK(float(static_cast<w::bfloat16>(w::int8(-5))) == -5.0f);
    CHECK(float(static_cast<w::bfloat16>(w::uint64(1) << 40)) == 1099511627776.0f);
    CHECK(float(static_cast<w::bfloat16>(true)) == 1.0f);
    CHECK(float(static_cast<w::float16>(w::bfloat16(0.5f))) == 0.5f);
    CHECK(float(static_cast<w::bfloat16>(w::float16(0.1f))) == 0.10009765625f);
    // Arithmetic runs in float32 and rounds once: 1 + 2^-8 is a tie, to even.
    CHECK(w::add(w::bfloat16(1.0f), w::bfloat16(0.00390625f)).bits == 0x3f80);
    CHECK(float(w::mul(w::bfloat16(1.5f), w::bfloat16(2.25f))) == 3.375f);
    CHECK(float(w::sqrt(w::bfloat16(4.0f))) == 2.0f);
    CHECK(float(w::mod(w::bfloat16(-7.0f), w::bfloat16(3.0f))) == -1.0f);
    CHECK(w::lt(w::bfloat16(1.0f), w::bfloat16(2.0f)));
    CHECK(w::max(w::bfloat16(1.5f), w::bfloat16(-2.0f)).bits == w::bfloat16(1.5f).bits);
    CHECK(w::isfinite(w::bfloat16(3.0e38f)));
    CHECK(float(w::dot(w::vec_t<2, w::bfloat16>(w::bfloat16(3.0f), w::bfloat16(4.0f)),
                       w::vec_t<2, w::bfloat16>(w::bfloat16(3.0f), w::bfloat16(4.0f)))) == 25.0f);
}

TEST_CASE("vector builtins") {
    const w::vec3 a(1.0f, 2.0f, 3.0f), b(4.0f, 5.0f, 6.0f);
    CHECK(w::eq(w::cross(a, b), w::vec3(-3.0f, 6.0f, -3.0f)));
    CHECK(w::dot(a, b) == 32.0f);
    CHECK(w::eq(w::add(a, b), w::vec3(5.0f, 7.0f, 9.0f)));
    CHECK(w::eq(w::mul(a, 2.0f), w::vec3(2.0f, 4.0f, 6.0f)));
    CHECK(w::eq(w::mul(2.0f, a), w::vec3(2.0f, 4.0f, 6.0f)));
    CHECK(w::eq(w::div(b, 2.0f), w::vec3(2.0f, 2.5f, 3.0f)));
    CHECK(w::eq(w::cw_mul(a, b), w::vec3(4.0f, 10.0f, 18.0f)));
    CHECK(w::eq(w::min(a, w::vec3(2.0f)), w::vec3(1.0f, 2.0f, 2.0f)));
    CHECK(w::ne(a, b));
    CHECK_FALSE(w::ne(a, a));
    CHECK(w::length(w::vec3(3.0f, 4.0f, 0.0f)) == 5.0f);
    CHECK(w::length_sq(w::vec2d(3.0, 4.0)) == 25.0);
    CHECK(w::eq(w::normalize(w::vec3(3.0f, 4.0f, 0.0f)), w::vec3(0.6f, 0.8f, 0.0f)));
    CHECK(w::eq(w::normalize(w::vec3()), w::vec3()));
    CHECK(w::eq(w::normalize(w::vec4d()), w::vec4d()));
    CHECK(w::dot(w::vec2i(2, 3), w::vec2i(4, 5)) == 23);
    CHECK(w::eq(w::neg(w::vec2i(1, -2)), w::vec2i(-1, 2)));
    CHECK(w::eq(w::abs(w::vec2(-1.0f, 2.0f)), w::vec2(1.0f, 2.0f)));
    CHECK(float(w::length(w::vec2h(w::float16(3.0f), w::float16(4.0f)))) == 5.0f);
    CHECK(w::eq(w::cross(w::vec3d(1, 0, 0), w::vec3d(0, 1, 0)), w::vec3d(0, 0, 1)));
    // Casts between vector types convert per component.
    CHECK(w::eq(static_cast<w::vec3i>(w::vec3(1.5f, -2.5f, 3.0f)), w::vec3i(1, -2, 3)));
    CHECK(w::eq(static_cast<w::vec3>(w::vec3h(w::vec3(0.5f, 1.5f, 2.5f))), w::vec3(0.5f, 1.5f, 2.5f)));
    CHECK(w::len(a) == 3);
    CHECK(a[1] == 2.0f);
}

TEST_CASE("matrix builtins") {
    const w::mat33 m(1.0f, 2.0f, 3.0f, 0.0f, 1.0f, 4.0f, 5.0f, 6.0f, 0.0f);
    CHECK(w::determinant(m) == 1.0f);
    CHECK(w::determinant(w::mat22d(4.0, 7.0, 2.0, 6.0)) == 10.0);
    const w::mat44 m4(1.0f, 0.0f, 2.0f, -1.0f, 3.0f, 0.0f, 0.0f, 5.0f, 2.0f, 1.0f, 4.0f, -3.0f, 1.0f, 0.0f, 5.0f, 0.0f);
    CHECK(w::determinant(m4) == 30.0f);
    CHECK(m[1][2] == 4.0f);
    CHECK(w::eq(m[2], w::vec3(5.0f, 6.0f, 0.0f)));
    CHECK(w::eq(w::transpose(m), w::mat33(1.0f, 0.0f, 5.0f, 2.0f, 1.0f, 6.0f, 3.0f, 4.0f, 0.0f)));
    CHECK(w::trace(m) == 2.0f);
    CHECK(w::eq(w::mul(m, w::vec3(1.0f, 1.0f, 1.0f)), w::vec3(6.0f, 5.0f, 11.0f)));
    CHECK(w::eq(w::mul(w::vec3(1.0f, 1.0f, 1.0f), m), w::vec3(6.0f, 9.0f, 7.0f)));
    CHECK(w::eq(w::mul(m, w::identity<3, float>()), m));
    const w::mat22 p(1.0f, 2.0f, 3.0f, 4.0f), q(5.0f, 6.0f, 7.0f, 8.0f);
    CHECK(w::eq(w::mul(p, q), w::mat22(19.0f, 22.0f, 43.0f, 50.0f)));
    CHECK(w::eq(w::outer(w::vec2(1.0f, 2.0f), w::vec2(3.0f, 4.0f)), w::mat22(3.0f, 4.0f, 6.0f, 8.0f)));
    CHECK(w::eq(w::mul(p, 2.0f), w::mat22(2.0f, 4.0f, 6.0f, 8.0f)));
    CHECK(w::eq(w::div(p, 2.0f), w::mat22(0.5f, 1.0f, 1.5f, 2.0f)));
    CHECK(w::eq(w::add(p, q), w::mat22(w::vec2(6.0f, 8.0f), w::vec2(10.0f, 12.0f))));
    CHECK(w::eq(w::neg(p), w::mat22(-1.0f, -2.0f, -3.0f, -4.0f)));
    CHECK(w::eq(static_cast<w::mat22d>(p), w::mat22d(1.0, 2.0, 3.0, 4.0)));
    CHECK(w::eq(w::mat22(7.0f), w::mat22(7.0f, 7.0f, 7.0f, 7.0f)));
    CHECK(w::len(m4) == 4);
}

TEST_CASE("quaternion builtins") {
    const w::quat q = w::quat_from_axis_angle(w::vec3(0.0f, 0.0f, 1.0f), 1.5707963267948966f);
    CHECK(near_all(w::quat_rotate(q, w::vec3(1.0f, 0.0f, 0.0f)), w::vec3(0.0f, 1.0f, 0.0f), 1e-6));
    const w::quatd qd = w::quat_from_axis_angle(w::vec3d(0.0, 0.0, 1.0), 1.5707963267948966);
    CHECK(near_all(w::quat_rotate(qd, w::vec3d(1.0, 0.0, 0.0)), w::vec3d(0.0, 1.0, 0.0), 1e-15));
    CHECK(near_all(w::mul(q, w::quat_inverse(q)), w::quat_identity<float>(), 1e-6));
    CHECK(near_all(w::mul(q, q), w::quat(0.0f, 0.0f, 1.0f, 0.0f), 1e-6)); // 180 degrees about z
    CHECK(w::eq(w::quat(), w::quat(0.0f, 0.0f, 0.0f, 0.0f)));
    CHECK(w::eq(w::normalize(w::quat()), w::quat_identity<float>()));
    CHECK(w::length(w::quat(0.0f, 3.0f, 0.0f, 4.0f)) == 5.0f);
    CHECK(w::eq(w::normalize(w::quat(0.0f, 3.0f, 0.0f, 4.0f)), w::quat(0.0f, 0.6f, 0.0f, 0.8f)));
    CHECK(w::eq(w::quat_inverse(w::quat(1.0f, 2.0f, 3.0f, 4.0f)), w::quat(-1.0f, -2.0f, -3.0f, 4.0f)));
    CHECK(w::eq(w::mul(w::quat(1.0f, 2.0f, 3.0f, 4.0f), 2.0f), w::quat(2.0f, 4.0f, 6.0f, 8.0f)));
    CHECK(w::len(q) == 4);
    CHECK(q[3] == Approx(0.70710678f));
}

TEST_CASE("select and where") {
    CHECK(w::select(false, 1, 2) == 1); // Warp's order: a when cond is false
    CHECK(w::select(true, 1, 2) == 2);
    CHECK(w::where(true, 1, 2) == 1);
    CHECK(w::where(0, 1.5f, 2.5f) == 2.5f);
    CHECK(w::eq(w::select(w::float16(1.0f), w::vec2(), w::vec2(1.0f)), w::vec2(1.0f)));
}

TEST_CASE("array_t indexes with byte strides") {
    float buf[4 * 6];
    for (int i = 0; i < 24; ++i) buf[i] = float(i);
    // A 4 x 3 view of every other column: strides in bytes.
    w::array_t<float> a{buf, {4, 3, 0, 0}, {6 * 4, 2 * 4, 0, 0}, 2};
    CHECK(w::len(a) == 4);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j) CHECK(w::index(a, i, j) == float(i * 6 + 2 * j));
    w::index(a, 3, 2) = -1.0f;
    CHECK(buf[3 * 6 + 4] == -1.0f);
    // 1-D with a negative stride, 3-D and 4-D views of the same buffer.
    w::array_t<float> rev{buf + 23, {24, 0, 0, 0}, {-4, 0, 0, 0}, 1};
    CHECK(w::index(rev, 2) == 21.0f);
    w::array_t<float> a3{buf, {2, 3, 4, 0}, {48, 16, 4, 0}, 3};
    CHECK(w::index(a3, 1, 2, 3) == 23.0f);
    w::array_t<float> a4{buf, {2, 3, 2, 2}, {48, 16, 8, 4}, 4};
    CHECK(w::index(a4, 1, 1, 1, 1) == float(12 + 4 + 2 + 1));
    // Vector elements.
    w::vec3 vbuf[2] = {w::vec3(1.0f), w::vec3(2.0f)};
    w::array_t<w::vec3> av{vbuf, {2, 0, 0, 0}, {12, 0, 0, 0}, 1};
    CHECK(w::eq(w::index(av, 1), w::vec3(2.0f)));
}

TEST_CASE("atomics return the old value and are exact under concurrent threads") {
    float f = 0.0f;
    double d = 0.0;
    w::uint16 u16 = 0;
    w::int64 i64 = 0;
    w::float16 h = w::float16(0.0f);
    w::bfloat16 bh = w::bfloat16(0.0f), bmax = w::bfloat16(-1.0f);
    w::vec3 v;
    w::int32 hi = std::numeric_limits<w::int32>::min();
    float lo = std::numeric_limits<float>::infinity();
    w::array_t<float> af{&f, {1, 0, 0, 0}, {4, 0, 0, 0}, 1};
    w::array_t<double> ad{&d, {1, 1, 0, 0}, {8, 8, 0, 0}, 2};
    w::array_t<w::uint16> au{&u16, {1, 1, 1, 0}, {2, 2, 2, 0}, 3};
    w::array_t<w::int64> ai{&i64, {1, 1, 1, 1}, {8, 8, 8, 8}, 4};
    w::array_t<w::float16> ah{&h, {1, 0, 0, 0}, {2, 0, 0, 0}, 1};
    w::array_t<w::bfloat16> abh{&bh, {1, 0, 0, 0}, {2, 0, 0, 0}, 1};
    w::array_t<w::bfloat16> abmax{&bmax, {1, 0, 0, 0}, {2, 0, 0, 0}, 1};
    w::array_t<w::vec3> av{&v, {1, 0, 0, 0}, {12, 0, 0, 0}, 1};
    w::array_t<w::int32> amax{&hi, {1, 0, 0, 0}, {4, 0, 0, 0}, 1};
    w::array_t<float> amin{&lo, {1, 0, 0, 0}, {4, 0, 0, 0}, 1};

    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int n = 0; n < 10000; ++n) {
                w::atomic_add(af, 0, 1.0f);
                w::atomic_add(ad, 0, 0, 0.5);
                w::atomic_add(au, 0, 0, 0, w::uint16(1));
                w::atomic_sub(ai, 0, 0, 0, 0, w::int64(3));
                w::atomic_add(av, 0, w::vec3(1.0f, 2.0f, 0.5f));
                w::atomic_max(amax, 0, t * 10000 + n);
                w::atomic_min(amin, 0, float(t * 10000 + n));
                if (n < 500) w::atomic_add(ah, 0, w::float16(1.0f));
                if (n < 32) w::atomic_add(abh, 0, w::bfloat16(1.0f)); // integers to 256 are exact in bfloat16
                w::atomic_max(abmax, 0, w::bfloat16(float(t * 10000 + n)));
            }
        });
    for (std::thread &th : threads) th.join();
    CHECK(f == 40000.0f);
    CHECK(d == 20000.0);
    CHECK(u16 == 40000);
    CHECK(i64 == -120000);
    CHECK(w::eq(v, w::vec3(40000.0f, 80000.0f, 20000.0f)));
    CHECK(hi == 39999);
    CHECK(lo == 0.0f);
    CHECK(float(h) == 2000.0f);
    CHECK(float(bh) == 128.0f);
    CHECK(float(bmax) == float(w::bfloat16(39999.0f)));

    float g = 5.0f;
    w::array_t<float> ag{&g, {1, 0, 0, 0}, {4, 0, 0, 0}, 1};
    CHECK(w::atomic_add(ag, 0, 2.0f) == 5.0f);
    CHECK(w::atomic_sub(ag, 0, 1.0f) == 7.0f);
    CHECK(w::atomic_min(ag, 0, 10.0f) == 6.0f);
    CHECK(w::atomic_max(ag, 0, 10.0f) == 6.0f);
    CHECK(g == 10.0f);
    w::int8 small[4] = {1, 2, 3, 4};
    w::array_t<w::int8> as{small, {4, 0, 0, 0}, {1, 0, 0, 0}, 1};
    CHECK(w::atomic_add(as, 2, w::int8(127)) == 3);
    CHECK(small[2] == -126); // wraps
    CHECK(small[1] == 2);
    CHECK(small[3] == 4);
    STATIC_REQUIRE(std::is_same_v<decltype(w::atomic_add(as, 0, 1)), w::int8>);
}

TEST_CASE("print writes values separated by spaces and a newline") {
    const std::string out = capture_stdout([] {
        w::print("x =", w::int8(-3), w::uint64(18446744073709551615ULL), true, 1.5f, w::float16(0.25f), 0.1,
                 w::bfloat16(-1.25f));
        w::print(w::vec3(1.0f, 2.0f, 3.5f), w::mat22(1.0f, 2.0f, 3.0f, 4.0f), w::quat_identity<double>(), w::vec2i(-1, 7));
        w::print();
    });
    CHECK(out == "x = -3 18446744073709551615 True 1.5 0.25 0.1 -1.25\n"
                 "[1, 2, 3.5] [[1, 2], [3, 4]] [0, 0, 0, 1] [-1, 7]\n"
                 "\n");
}

TEST_CASE("print and expect lines of concurrent threads never interleave") {
    // Each line is several printf calls; without the line lock another
    // thread's values land inside it.
    constexpr int threads = 8, lines = 6000;
    const std::string out = capture_stdout([] {
        std::vector<std::thread> pool;
        for (int t = 0; t < threads; ++t)
            pool.emplace_back([t] {
                for (int i = 0; i < lines; ++i) {
                    if (i % 2) w::print(w::int32(t), w::int32(t), w::vec3(float(t)), w::int32(t));
                    else w::expect_eq(w::int32(t), w::int32(t + 100), "k", "f.py", t);
                }
            });
        for (std::thread &th : pool) th.join();
    });
    std::vector<int> counts(threads, 0);
    std::size_t bad = 0, start = 0;
    std::string first_bad;
    for (std::size_t end; (end = out.find('\n', start)) != std::string::npos; start = end + 1) {
        const std::string line = out.substr(start, end - start);
        bool ok = false;
        for (int t = 0; t < threads && !ok; ++t) {
            const std::string v = std::to_string(t);
            ok = line == v + " " + v + " [" + v + ", " + v + ", " + v + "] " + v ||
                 line == "expect_eq failed in kernel 'k' at f.py:" + v + ": " + v + " != " + std::to_string(t + 100);
            if (ok) ++counts[static_cast<std::size_t>(t)];
        }
        if (!ok && bad++ == 0) first_bad = line;
    }
    INFO("first broken line: " << first_bad);
    CHECK(bad == 0);
    for (int c : counts) CHECK(c == lines);
    weft_expect_failures = 0;
}

TEST_CASE("expect_* report the kernel, the position and both values, and count failures") {
    const int before = weft_expect_failures;
    const std::string out = capture_stdout([] {
        w::expect_eq(1, 1, "k", "a.py", 1);
        w::expect_eq(w::int64(1), w::int64(2), "saxpy", "kernels/a.py", 12);
        w::expect_neq(w::vec2(1.0f, 2.0f), w::vec2(1.0f, 2.0f), "k2", "b.py", 3);
        w::expect_neq(w::vec2(1.0f, 2.0f), w::vec2(1.0f, 2.5f), "k2", "b.py", 4);
        w::expect_near(1.0f, 1.0000001f, 1e-6f, "k3", "c.py", 5);
        w::expect_near(w::vec2(1.0f, 2.0f), w::vec2(1.0f, 2.1f), 1e-3f, "k3", "c.py", 6);
        w::expect_near(0.1, std::nan(""), 1.0f, "k3", "c.py", 7);
        w::expect_eq(w::mat22(), w::mat22(1.0f), "k4", "d.py", 8);
    });
    CHECK(weft_expect_failures - before == 5);
    CHECK(out == "expect_eq failed in kernel 'saxpy' at kernels/a.py:12: 1 != 2\n"
                 "expect_neq failed in kernel 'k2' at b.py:3: [1, 2] == [1, 2]\n"
                 "expect_near failed in kernel 'k3' at c.py:6: [1, 2] != [1, 2.0999999] (tolerance 0.001)\n"
                 "expect_near failed in kernel 'k3' at c.py:7: 0.10000000000000001 != nan (tolerance 1)\n"
                 "expect_eq failed in kernel 'k4' at d.py:8: [[0, 0], [0, 0]] != [[1, 1], [1, 1]]\n");
}
