// Deferred atomics (codegen/deferred_atomics.hpp): on the CPU, atomic adds to
// an array nothing else in the kernel touches are summed per worker and
// applied once per chunk. The results must be those of one atomic per
// element: exact for integers and for floats whose sums are exact, equal to
// the sequential sum on one thread, and unchanged when the array shares
// memory with another parameter (then nothing is deferred).
#include "test_support.hpp"

#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
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
def halves(x: wp.array(dtype=wp.float16), total: wp.array(dtype=wp.float16)):
    i = wp.tid()
    wp.atomic_add(total, 0, x[i])
)";

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
}

TEST_CASE("deferred atomics: sums over several threads are those of one atomic per element") {
    weft::test::TempDir cache("deferred_atomics");
    HostOptions o = weft::test::cached_host_options(cache.path);
    o.threads = 4; // chunks on several workers even on a small machine
    Host host(o);
    const CompiledModule m = host.load_module_source("deferred_atomics", source);

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

    // 100 bins: more than a table's 16 slots, so sums are evicted mid-chunk.
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
    weft::test::TempDir cache("deferred_atomics");
    HostOptions o = weft::test::cached_host_options(cache.path);
    o.threads = 1;
    Host host(o);
    const CompiledModule m = host.load_module_source("deferred_atomics", source);
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
    weft::test::TempDir cache("deferred_atomics");
    HostOptions o = weft::test::cached_host_options(cache.path);
    o.threads = 1; // Warp's CPU order: one element after the other
    Host host(o);
    const CompiledModule m = host.load_module_source("deferred_atomics", source);
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
