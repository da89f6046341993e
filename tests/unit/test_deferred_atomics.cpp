// Deferred atomics (codegen/deferred_atomics.hpp): on the CPU, atomic adds to
// an array nothing else in the kernel touches are summed per worker and
// applied once per chunk. The results must be those of one atomic per
// element: exact for integers and for floats whose sums are exact, equal to
// the sequential sum on one thread, and unchanged when the array shares
// memory with another parameter (then nothing is deferred).
#include "test_support.hpp"

#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace weft;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);
const Type f64 = Type::scalar(Scalar::Float64);
const Type i32 = Type::scalar(Scalar::Int32);
const Type i64 = Type::scalar(Scalar::Int64);

const char *source = R"(import warp as wp


@wp.kernel
def total_of(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])


@wp.kernel
def count(x: wp.array(dtype=wp.int32), counts: wp.array(dtype=wp.int32), less: wp.array(dtype=wp.int64)):
    i = wp.tid()
    wp.atomic_add(counts, x[i], 1)
    wp.atomic_sub(less, 0, wp.int64(x[i]))


@wp.kernel
def row_totals(x: wp.array2d(dtype=wp.float64), sums: wp.array(dtype=wp.float64)):
    i, j = wp.tid()
    sums[i] += x[i, j]


@wp.kernel
def doubles(src: wp.array(dtype=float), acc: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(acc, 0, src[0])


@wp.kernel
def reads_back(x: wp.array(dtype=float), total: wp.array(dtype=float)):
    i = wp.tid()
    if total[0] < 1.0e30:
        wp.atomic_add(total, 0, x[i])


@wp.kernel
def uses_old(slots: wp.array(dtype=wp.int32), out: wp.array(dtype=wp.int32)):
    i = wp.tid()
    out[i] = wp.atomic_add(slots, 0, 1)


@wp.kernel
def signals(flag: wp.array(dtype=wp.int32), ack: wp.array(dtype=wp.int32)):
    wp.atomic_add(flag, 0, 1)
    while wp.atomic_add(ack, 0, 0) == 0:
        pass


@wp.kernel
def scatter_grid(x: wp.array(dtype=wp.int32), grid: wp.array2d(dtype=float), wide: wp.array(dtype=wp.uint64)):
    i = wp.tid()
    v = x[i]
    wp.atomic_add(grid, v % 3, v % 5 - 2, 1.0)
    wp.atomic_add(wide, v % 7, wp.uint64(v) * wp.uint64(3000000000000))


@wp.kernel
def by_slot(x: wp.array(dtype=float), out: wp.array(dtype=float), narrow: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    wp.atomic_add(out, i % 4, x[i])
    wp.atomic_add(narrow, i % 3, wp.uint32(4000000000))


@wp.kernel
def halves(x: wp.array(dtype=wp.float16), total: wp.array(dtype=wp.float16)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])
)";

/// The module above, loaded by a host with `threads` workers in a cache of its own.
struct Loaded {
    weft::test::TempDir cache{"deferred_atomics"};
    Host host;
    CompiledModule module;
    explicit Loaded(int threads)
        : host(options(cache, threads)), module(host.load_module_source("deferred_atomics", source)) {}

private:
    static HostOptions options(const weft::test::TempDir &dir, int threads) {
        HostOptions o = weft::test::cached_host_options(dir.path);
        o.threads = threads;
        return o;
    }
};

std::string generated(const CompiledModule &m) {
    std::ifstream in(m.generated_source_path());
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

TEST_CASE("deferred atomics: only arrays nothing but discarded atomic adds touch are deferred") {
    weft::test::TempDir cache("deferred_atomics");
    Host host(weft::test::cached_host_options(cache.path));
    const std::string code = generated(host.load_module_source("deferred_atomics_code", source));
    for (const char *k : {"total_of_deferred", "count_deferred", "row_totals_deferred", "doubles_deferred"}) {
        INFO(k);
        CHECK(code.find(k) != std::string::npos);
    }
    // Read in the kernel, its old value used, float16 (whose sums round), or a
    // kernel that may wait for another thread to see its add: one atomic per
    // element, as written.
    for (const char *k : {"reads_back_deferred", "uses_old_deferred", "halves_deferred", "signals_deferred"}) {
        INFO(k);
        CHECK(code.find(k) == std::string::npos);
    }
    // count defers both of its arrays, each in its own table.
    CHECK(code.find("weft::rt::deferred_adds<weft::int32> d1;") != std::string::npos);
    CHECK(code.find("weft::rt::deferred_adds<weft::int64> d2;") != std::string::npos);
    // Bins taken from the data or from the element's own index may change at
    // every element: those adds go to a private copy (scatter); a total, or
    // a row's sum on a 2-D launch, stays in a register (add).
    CHECK(code.find("->d1.scatter<weft_contig_>(p_counts, weft::int32(1), ") != std::string::npos);
    CHECK(code.find("weft_deferred_.d1.privatize(a1_, weft_end_ - weft_begin_);") != std::string::npos);
    CHECK(code.find("->d2.add(&weft::index(p_less, weft::int32(0))") != std::string::npos);
    CHECK(code.find("->d1.add(&weft::index(p_total, weft::int32(0))") != std::string::npos);
    CHECK(code.find("->d1.add(&weft::index(p_sums, v_i)") != std::string::npos);
    CHECK(code.find("->d1.scatter<weft_contig_>(p_out, ") != std::string::npos);
    CHECK(code.find("->d2.scatter<weft_contig_>(p_narrow, ") != std::string::npos);
    // Only arrays with a scattered add get a copy: count's counts, both of
    // scatter_grid's and by_slot's; not count's less, total_of, row_totals.
    std::size_t copies = 0;
    for (std::size_t at = 0; (at = code.find(".privatize(", at)) != std::string::npos; ++at) ++copies;
    CHECK(copies == 5);
}

TEST_CASE("deferred atomics: scattered adds through private copies are those of one atomic per element") {
    const Loaded loaded(4);
    const CompiledModule &m = loaded.module;

    // A 2-D scatter whose inner index is negative for a third of the
    // elements: Warp's rule wraps it (-2 -> 3 on 5 columns), which the
    // private copy leaves to the table; and uint64 sums that wrap.
    const int n = 120'001;
    std::vector<std::int32_t> xs(n);
    std::vector<float> expect_grid(15, 0.0f);
    std::vector<std::uint64_t> expect_wide(7, 0);
    for (int k = 0; k < n; ++k) {
        const std::int32_t v = (k * 7919) % 1000;
        xs[static_cast<std::size_t>(k)] = v;
        const int col = (v % 5 - 2 + 5) % 5;
        expect_grid[static_cast<std::size_t>((v % 3) * 5 + col)] += 1.0f;
        expect_wide[static_cast<std::size_t>(v % 7)] += static_cast<std::uint64_t>(v) * 3'000'000'000'000ull;
    }
    Array x = Array::from_vector(i32, xs), grid = Array::zeros(f32, {3, 5});
    Array wide = Array::zeros(Type::scalar(Scalar::UInt64), {7});
    m.kernel("scatter_grid").launch({n}, {x, grid, wide});
    CHECK(grid.to_vector<float>() == expect_grid);
    CHECK(wide.to_vector<std::uint64_t>() == expect_wide);

    // The same scatter into a view whose rows lie 2 MB apart: too wide for
    // a private copy (at most 256 KiB), so the table takes it.
    Array big = Array::zeros(f32, {300'000, 5});
    Array big_grid = big.view({3, 5}, {100'000 * 20, 4}, 0);
    m.kernel("scatter_grid").launch({n}, {x, big_grid, wide});
    CHECK(big_grid.to_vector<float>() == expect_grid);
    for (std::uint64_t &w : expect_wide) w *= 2;
    CHECK(wide.to_vector<std::uint64_t>() == expect_wide);

    // uint32 sums wrap: 4e9 added per element.
    const int slots_n = 1000;
    Array ones = Array::from_vector(f32, std::vector<float>(slots_n, 1.0f)), out = Array::zeros(f32, {4});
    Array narrow = Array::zeros(Type::scalar(Scalar::UInt32), {3});
    m.kernel("by_slot").launch({slots_n}, {ones, out, narrow});
    CHECK(out.to_vector<float>() == std::vector<float>{250.0f, 250.0f, 250.0f, 250.0f});
    std::vector<std::uint32_t> expect_narrow(3, 0);
    for (int k = 0; k < slots_n; ++k) expect_narrow[static_cast<std::size_t>(k % 3)] += 4'000'000'000u;
    CHECK(narrow.to_vector<std::uint32_t>() == expect_narrow);
}

TEST_CASE("deferred atomics: a private copy keeps the sign of zero and what no element adds to") {
    const Loaded loaded(1);
    const CompiledModule &m = loaded.module;
    // Adds of -0.0 only: -0.0 stays -0.0 and +0.0 stays +0.0, as one atomic
    // per element leaves them; a copy that started from +0.0 would turn the
    // first into +0.0. Slots beyond the fourth get no add and keep their
    // bits (a NaN included).
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Array zeros = Array::from_vector(f32, std::vector<float>(400, -0.0f));
    Array out = Array::from_vector(f32, std::vector<float>{-0.0f, 0.0f, -0.0f, 0.0f, -0.0f, 7.5f, nan, 0.0f});
    Array narrow = Array::zeros(Type::scalar(Scalar::UInt32), {3});
    m.kernel("by_slot").launch({400}, {zeros, out, narrow});
    const std::vector<float> got = out.to_vector<float>();
    REQUIRE(got.size() == 8);
    for (int s : {0, 2, 4}) CHECK(std::signbit(got[static_cast<std::size_t>(s)]));
    for (int s : {1, 3, 7}) CHECK_FALSE(std::signbit(got[static_cast<std::size_t>(s)]));
    for (int s : {0, 1, 2, 3, 4, 7}) CHECK(got[static_cast<std::size_t>(s)] == 0.0f);
    CHECK(got[5] == 7.5f);
    CHECK(std::isnan(got[6]));
    // Adds of +0.0 only turn -0.0 into +0.0, as one atomic per element does.
    Array plus = Array::from_vector(f32, std::vector<float>(400, 0.0f));
    Array minus = Array::from_vector(f32, std::vector<float>{-0.0f, -0.0f, -0.0f, -0.0f});
    m.kernel("by_slot").launch({400}, {plus, minus, narrow});
    for (float v : minus.to_vector<float>()) CHECK_FALSE(std::signbit(v));

    // On one thread a float histogram is the sequential sum per bin.
    const int n = 40'000;
    std::vector<float> xs(n), expect(4, 0.0f);
    for (int k = 0; k < n; ++k) {
        xs[static_cast<std::size_t>(k)] = 0.1f * static_cast<float>((k * 37) % 101) + 1.0e-3f;
        expect[static_cast<std::size_t>(k % 4)] += xs[static_cast<std::size_t>(k)];
    }
    Array x = Array::from_vector(f32, xs), sums = Array::zeros(f32, {4});
    m.kernel("by_slot").launch({n}, {x, sums, narrow});
    CHECK(sums.to_vector<float>() == expect);
}

TEST_CASE("deferred atomics: sums over several threads are those of one atomic per element") {
    const Loaded loaded(4); // chunks on several workers even on a small machine
    const CompiledModule &m = loaded.module;

    const int n = 200'003;
    std::vector<float> xs(n);
    double expect_total = 0;
    for (int k = 0; k < n; ++k) {
        xs[static_cast<std::size_t>(k)] = static_cast<float>(k % 7); // integer sums below 2^24: exact in any order
        expect_total += k % 7;
    }
    Array x = Array::from_vector(f32, xs), total = Array::zeros(f32, {1});
    m.kernel("total_of").launch({n}, {x, total});
    m.kernel("total_of").launch({n}, {x, total}); // adds to what is there
    CHECK(total.to_vector<float>() == std::vector<float>{static_cast<float>(2 * expect_total)});

    // 100 bins, from the data: a private copy per chunk.
    std::vector<std::int32_t> bins_of(n), expect_counts(100, 0);
    std::int64_t expect_less = -5;
    for (int k = 0; k < n; ++k) {
        const std::int32_t b = static_cast<std::int32_t>((static_cast<std::int64_t>(k) * 7919) % 100);
        bins_of[static_cast<std::size_t>(k)] = b;
        ++expect_counts[static_cast<std::size_t>(b)];
        expect_less -= b;
    }
    Array bx = Array::from_vector(i32, bins_of), counts = Array::zeros(i32, {100});
    Array less = Array::from_vector(i64, std::vector<std::int64_t>{-5});
    m.kernel("count").launch({n}, {bx, counts, less});
    CHECK(counts.to_vector<std::int32_t>() == expect_counts);
    CHECK(less.to_vector<std::int64_t>() == std::vector<std::int64_t>{expect_less});
    // Bins 40 KB apart: too wide for a private copy, so the table takes
    // them, with more bins than its 16 slots (sums evicted mid-chunk).
    Array spread = Array::zeros(i32, {100 * 10'000});
    Array spread_counts = spread.view({100}, {40'000}, 0);
    m.kernel("count").launch({n}, {bx, spread_counts, less});
    CHECK(spread_counts.to_vector<std::int32_t>() == expect_counts);
    CHECK(less.to_vector<std::int64_t>() == std::vector<std::int64_t>{expect_less + (expect_less + 5)});

    // arr[i] += v on a 2-D launch: one element per row.
    const int rows = 67, cols = 1001;
    std::vector<double> grid(static_cast<std::size_t>(rows * cols)), expect_sums(rows, 0.0);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const double v = static_cast<double>((r * 31 + c * 17) % 50) - 20.0;
            grid[static_cast<std::size_t>(r * cols + c)] = v;
            expect_sums[static_cast<std::size_t>(r)] += v;
        }
    Array g = Array::from_host(f64, {rows, cols}, grid.data(), grid.size() * 8), sums = Array::zeros(f64, {rows});
    m.kernel("row_totals").launch({rows, cols}, {g, sums});
    CHECK(sums.to_vector<double>() == expect_sums);
}

TEST_CASE("deferred atomics: on one thread a float sum is the sequential one") {
    const Loaded loaded(1);
    const CompiledModule &m = loaded.module;
    const int n = 50'001;
    std::vector<float> xs(n);
    float expect = 0.0f;
    for (int k = 0; k < n; ++k) {
        xs[static_cast<std::size_t>(k)] = 0.1f * static_cast<float>((k * 37) % 101) + 1.0e-3f;
        expect += xs[static_cast<std::size_t>(k)]; // rounds at every step, as one atomic per element does
    }
    Array x = Array::from_vector(f32, xs), total = Array::zeros(f32, {1});
    m.kernel("total_of").launch({n}, {x, total});
    CHECK(total.to_vector<float>() == std::vector<float>{expect});
}

TEST_CASE("deferred atomics: an array that shares memory with another parameter is added to at once") {
    const Loaded loaded(1); // Warp's CPU order: one element after the other
    const CompiledModule &m = loaded.module;
    // acc is src: every element adds src[0] to itself, doubling it. Sums kept
    // aside would give 1 + 5 instead of 2^5.
    Array buf = Array::from_vector(f32, std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f, 0.0f});
    m.kernel("doubles").launch({5}, {buf, buf});
    CHECK(buf.to_vector<float>() == std::vector<float>{32.0f, 0.0f, 0.0f, 0.0f, 0.0f});
    // A view of the same buffer that overlaps only in src[0]'s element.
    Array whole = Array::from_vector(f32, std::vector<float>{1.0f, 0.0f, 0.0f, 0.0f});
    Array tail = whole.view({3}, {4}, 0);
    m.kernel("doubles").launch({3}, {whole, tail});
    CHECK(whole.to_vector<float>() == std::vector<float>{8.0f, 0.0f, 0.0f, 0.0f});
    // Disjoint arrays: deferred, the same sum.
    Array src = Array::from_vector(f32, std::vector<float>{1.5f}), acc = Array::zeros(f32, {1});
    m.kernel("doubles").launch({4}, {src, acc});
    CHECK(acc.to_vector<float>() == std::vector<float>{6.0f});
}
