// Row guards (codegen/row_guard.hpp): a kernel whose work sits under a bounds
// test on its innermost thread index runs each row's passing range without
// the test. Every element inside the range, and none outside it, must run,
// whatever part of a row a CPU worker gets; negative indices still wrap
// where the range does not rule them out.
#include "test_support.hpp"

#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace weft;
namespace fs = std::filesystem;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);
const Type i32 = Type::scalar(Scalar::Int32);

const char *source = R"(import warp as wp


@wp.kernel
def stencil(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    n = u.shape[0]
    m = u.shape[1]
    if i > 0 and j > 0 and i < n - 1 and j < m - 1:
        out[i, j] = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]


@wp.kernel
def band(x: wp.array(dtype=int), lo: int, hi: int):
    i = wp.tid()
    if i >= lo and hi > i:
        x[i] = x[i] + 1


@wp.kernel
def wrapped(u: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    if j > 0:
        out[i, j] = u[i, j - 2]


@wp.kernel
def column(out: wp.array3d(dtype=int), k: int, on: bool):
    i, j, l = wp.tid()
    if on and l == k:
        out[i, j, l] = i * 100 + j * 10 + l


@wp.kernel
def flipped(out: wp.array2d(dtype=int), m: int):
    i, j = wp.tid()
    t = i * 2
    if 2 <= j and j <= m:
        out[i, j] = t + j


@wp.kernel
def not_a_range(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    if j != 2 and i < 2:
        out[i, j] = 1


@wp.kernel
def either(out: wp.array2d(dtype=int)):
    i, j = wp.tid()
    if j < 1 or j > 3:
        out[i, j] = 1
)";

std::vector<float> pattern(std::size_t n) {
    std::vector<float> v(n);
    for (std::size_t k = 0; k < n; ++k) v[k] = static_cast<float>((k * 37) % 101) * 0.25f;
    return v;
}

} // namespace

TEST_CASE("row guards: the generated code tests once per row where the test allows it") {
    weft::test::TempDir cache("row_guards");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("row_guards_code", source);
    std::ifstream in(m.generated_source_path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string code = text.str();
    for (const char *k : {"stencil", "band", "wrapped", "column", "flipped"}) {
        INFO(k);
        CHECK(code.find(std::to_string(std::strlen(k)) + k + "_rows<") != std::string::npos);
    }
    for (const char *k : {"not_a_range", "either"}) {
        INFO(k);
        CHECK(code.find(std::to_string(std::strlen(k)) + k + "_rows<") == std::string::npos);
    }
    // The body run inside a row's range: the test's literal lower bounds hold there.
    const auto rows_body = [&](const std::string &kernel) {
        const std::string name = std::to_string(kernel.size()) + kernel + "_body_rows(";
        const std::size_t from = code.find(name);
        REQUIRE(from != std::string::npos);
        return code.substr(from, code.find("\n}\n", from) - from);
    };
    // Stencil: i > 0 and j > 0, so u[i - 1, j] and u[i, j - 1] need no negative-index wrap.
    CHECK(rows_body("stencil").find("rt::wrap") == std::string::npos);
    CHECK(rows_body("stencil").find("index_nn_c<weft_contig_>(p_u, t3_, v_j)") != std::string::npos);
    // The per-element body keeps the wrap on i - 1 (used when a row does not take the range path).
    CHECK(code.find("weft::rt::wrap(t3_, p_u.shape[0]), v_j)") != std::string::npos);
    // wrapped: j > 0 does not make j - 2 non-negative.
    CHECK(rows_body("wrapped").find("rt::wrap(") != std::string::npos);
}

TEST_CASE("row guards: results on any split of the rows, in release and debug builds") {
    weft::test::TempDir cache("row_guards");
    for (const unsigned threads : {1u, 3u}) {
        for (const bool debug : {false, true}) {
            INFO(threads << " threads, " << (debug ? "debug" : "release"));
            HostOptions o = weft::test::cached_host_options(cache.path);
            o.threads = threads;
            Host host(o);
            ModuleLoadOptions lo;
            lo.debug = debug;
            lo.name = debug ? "row_guards_debug" : "row_guards";
            const CompiledModule m = host.load_module_source(lo.name, source, lo);

            // Launches above the pool's inline threshold (4096) with rows of odd
            // length: 3 workers start and stop mid-row.
            const int n = 67, w = 131;
            const std::vector<float> us = pattern(n * w);
            Array u = Array::from_vector(f32, us).view({n, w}, {4 * w, 4});
            Array out = Array::from_vector(f32, std::vector<float>(n * w, -1.0f)).view({n, w}, {4 * w, 4});
            m.kernel("stencil").launch({n, w}, {u, out});
            std::vector<float> expect(n * w, -1.0f);
            for (int i = 1; i < n - 1; ++i)
                for (int j = 1; j < w - 1; ++j) {
                    const auto at = [&](int a, int b) { return us[static_cast<std::size_t>(a * w + b)]; };
                    expect[static_cast<std::size_t>(i * w + j)] =
                        at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0f * at(i, j);
                }
            CHECK(out.to_vector<float>() == expect);

            const int nb = 10007;
            Array x = Array::zeros(i32, {nb});
            m.kernel("band").launch({nb}, {x, 5, 9001});
            m.kernel("band").launch({nb}, {x, -4, 2}); // a negative bound clips at the row's start
            m.kernel("band").launch({nb}, {x, 20, 3}); // an empty range: nothing runs
            std::vector<std::int32_t> bx(nb, 0);
            for (int i = 5; i < 9001; ++i) ++bx[static_cast<std::size_t>(i)];
            for (int i = 0; i < 2; ++i) ++bx[static_cast<std::size_t>(i)];
            CHECK(x.to_vector<std::int32_t>() == bx);

            // j == 1 reads u[i, -1], the row's last element (Warp's negative index).
            Array wout = Array::zeros(f32, {n, w});
            m.kernel("wrapped").launch({n, w}, {u, wout});
            std::vector<float> we(n * w, 0.0f);
            for (int i = 0; i < n; ++i)
                for (int j = 1; j < w; ++j)
                    we[static_cast<std::size_t>(i * w + j)] = us[static_cast<std::size_t>(i * w + (j - 2 < 0 ? j - 2 + w : j - 2))];
            CHECK(wout.to_vector<float>() == we);

            Array c = Array::zeros(i32, {13, 17, 29});
            m.kernel("column").launch({13, 17, 29}, {c, 3, true});
            m.kernel("column").launch({13, 17, 29}, {c, 1, false});
            std::vector<std::int32_t> ce(13 * 17 * 29, 0);
            for (int i = 0; i < 13; ++i)
                for (int j = 0; j < 17; ++j)
                    ce[static_cast<std::size_t>(i * 17 * 29 + j * 29 + 3)] = i * 100 + j * 10 + 3;
            CHECK(c.to_vector<std::int32_t>() == ce);

            Array fl = Array::zeros(i32, {41, 113});
            m.kernel("flipped").launch({41, 113}, {fl, 100});
            std::vector<std::int32_t> fe(41 * 113, 0);
            for (int i = 0; i < 41; ++i)
                for (int j = 2; j <= 100; ++j) fe[static_cast<std::size_t>(i * 113 + j)] = i * 2 + j;
            CHECK(fl.to_vector<std::int32_t>() == fe);

            Array na = Array::zeros(i32, {3, 4}), ei = Array::zeros(i32, {3, 5});
            m.kernel("not_a_range").launch({3, 4}, {na});
            m.kernel("either").launch({3, 5}, {ei});
            CHECK(na.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0});
            CHECK(ei.to_vector<std::int32_t>() == std::vector<std::int32_t>{1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1});
        }
    }
}
