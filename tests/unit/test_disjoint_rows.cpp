// Disjoint rows (codegen/disjoint_rows.hpp): the guarded rows of an N-D
// launch run with `__restrict` array pointers when the launch's arrays are
// pairwise disjoint. Arrays that share memory (the same array passed twice,
// overlapping views of one buffer) must still compute what one thread after
// the other computes, as Warp's CPU launch does.
#include "test_support.hpp"

#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <functional>
#include <sstream>

using namespace weft;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

const char *source = R"(import warp as wp


@wp.kernel
def smooth(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if i > 0 and j > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1:
        out[i, j] = 0.2 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] + u[i, j])


@wp.kernel
def one_array(u: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if j > 0 and j < u.shape[1] - 1:
        u[i, j] = u[i, j - 1] + 1.0


@wp.kernel
def with_id(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float), id: wp.uint64):
    i, j = wp.tid()
    if j > 0 and j < u.shape[1] - 1:
        out[i, j] = u[i, j - 1] + float(id)


@wp.func_native("return x * 2.0f;")
def doubled(x: float) -> float:
    ...


@wp.func
def through_native(x: float) -> float:
    return doubled(x) + 1.0


@wp.kernel
def native_call(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if j > 0 and j < u.shape[1] - 1:
        out[i, j] = through_native(u[i, j - 1])


@wp.func
def plain(x: float) -> float:
    return x * 2.0 + 1.0


@wp.kernel
def plain_call(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if j > 0 and j < u.shape[1] - 1:
        out[i, j] = plain(u[i, j - 1])


@wp.kernel
def unguarded(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    out[i, j] = u[i, j] * 2.0
)";

std::vector<float> pattern(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t k = 0; k < n; ++k) v[k] = static_cast<float>((k * 37) % 101) * 0.25f;
    return v;
}

/// smooth() (an average: repeated in place, values stay finite) on an n x w grid, one thread after the other, over `mem`: u's
/// element (i, j) at mem[u0 + i * w + j], out's at mem[o0 + i * w + j].
void smooth_in_order(std::vector<float> &mem, std::size_t u0, std::size_t o0, int n, int w) {
    const auto u = [&](int i, int j) { return mem[u0 + static_cast<std::size_t>(i * w + j)]; };
    for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < w - 1; ++j)
            mem[o0 + static_cast<std::size_t>(i * w + j)] =
                0.2f * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) + u(i, j));
}

} // namespace

TEST_CASE("disjoint rows: only kernels whose memory is all in plain array parameters get the restrict row") {
    weft::test::TempDir cache("disjoint_rows");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("disjoint_rows_code", source);
    std::ifstream in(m.generated_source_path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string code = text.str();
    CHECK(code.find("6smooth_row_disjoint(weft::float32 *__restrict a0_data_, weft::float32 *__restrict a1_data_") !=
          std::string::npos);
    CHECK(code.find("weft_contig_ && weft::disjoint(a0_, a1_)") != std::string::npos);
    CHECK(code.find("10plain_call_row_disjoint(") != std::string::npos);
    // One array: nothing to be disjoint from. A 64-bit id may be an address,
    // and a native snippet may keep addresses of its own (here through a
    // function). No guard: no row function.
    for (const char *k : {"9one_array_row_disjoint", "7with_id_row_disjoint", "11native_call_row_disjoint",
                          "9unguarded_row_disjoint"}) {
        INFO(k);
        CHECK(code.find(k) == std::string::npos);
    }
}

TEST_CASE("disjoint rows: arrays that share memory compute what one thread after the other computes") {
    weft::test::TempDir cache("disjoint_rows");
    HostOptions o = weft::test::cached_host_options(cache.path);
    o.threads = 1; // Warp's CPU order: thread after thread, row-major
    Host host(o);
    const CompiledModule m = host.load_module_source("disjoint_rows", source);
    const Kernel smooth = m.kernel("smooth");
    const int n = 37, w = 91; // rows of a length no vector width divides
    const std::size_t cells = static_cast<std::size_t>(n * w);
    const std::vector<float> start = pattern(3 * cells);
    Array buf = Array::from_vector(f32, start);
    const auto grid = [&](std::size_t first) {
        return buf.view({n, w}, {4 * w, 4}, static_cast<std::int64_t>(first * 4));
    };
    const auto run = [&](std::size_t u0, std::size_t o0) {
        buf.copy_from_host(start.data(), start.size() * 4);
        smooth.launch({n, w}, {grid(u0), grid(o0)});
        std::vector<float> expect = start;
        smooth_in_order(expect, u0, o0, n, w);
        return buf.to_vector<float>() == expect;
    };
    CHECK(run(0, cells));     // disjoint views of one buffer
    CHECK(run(2 * cells, 0)); // the same, out before u
    CHECK(run(0, 0));         // the same array twice: each element reads its updated neighbours above and left
    CHECK(run(0, w));         // out one row below u: rows read what the rows above them wrote
    CHECK(run(w + 1, 0));     // out one row and one element above u
    CHECK(run(0, 1));         // out one element right of u: overlaps within every row

    // Interleaved rows: no element shared, but each view's span reaches
    // across the other's rows, so the launch takes the tested rows.
    const std::vector<float> two_start = pattern(2 * cells);
    Array two = Array::from_vector(f32, two_start);
    Array evens = two.view({n, w}, {8 * w, 4}), odds = two.view({n, w}, {8 * w, 4}, 4 * w);
    smooth.launch({n, w}, {evens, odds});
    std::vector<float> expect = two_start;
    for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < w - 1; ++j) {
            const auto u = [&](int a, int b) { return two_start[static_cast<std::size_t>(2 * a * w + b)]; };
            expect[static_cast<std::size_t>((2 * i + 1) * w + j)] =
                0.2f * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) + u(i, j));
        }
    CHECK(two.to_vector<float>() == expect);
}
