// @wp.func_native: the snippet runs as the function's body, adj_snippet as its
// adjoint, and a C++ error in a snippet points at its line in the .py file.
#include "test_support.hpp"

#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

using namespace weft;
using weft::test::message_of;
using weft::test::TempDir;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);

const char *const source = R"(import warp as wp

cube_snippet = """
    return x * x * x;
"""


@wp.func_native(cube_snippet, "adj_x += 3.0f * x * x * adj_ret;")
def cube(x: float) -> float:
    ...


@wp.kernel
def cubes(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = cube(x[i]) + 1.0
)";

} // namespace

TEST_CASE("native snippets: the forward and adjoint snippets run") {
    TempDir cache("native_snippets");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("natives", source);
    Array x = Array::from_vector(f32, std::vector<float>{1, 2, -3});
    Array y = Array::zeros(f32, {3});
    m.kernel("cubes").launch({3}, {x, y});
    CHECK(y.to_vector<float>() == std::vector<float>{2, 9, -26});
    Array adj_x = Array::zeros(f32, {3});
    Array adj_y = Array::from_vector(f32, std::vector<float>{1, 1, 2});
    m.kernel("cubes").launch_adjoint({3}, {x, y}, {adj_x, adj_y});
    CHECK(adj_x.to_vector<float>() == std::vector<float>{3, 12, 54});
}

TEST_CASE("native snippets: a C++ error names the snippet's line in the source") {
    TempDir cache("native_snippets_error");
    Host host(weft::test::cached_host_options(cache.path));
    std::string broken = source;
    broken.replace(broken.find("return x * x * x;"), 17, "return x * y;");
    const std::string why = message_of<UserError>([&] { host.load_module_source("natives", broken); });
    CHECK_THAT(why, Catch::Contains("natives.py:4:") || Catch::Contains("natives:4:"));
    CHECK_THAT(why, Catch::Contains("undeclared identifier 'y'"));
}
