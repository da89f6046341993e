// wp.ref[T] parameters: the callee writes through to the caller's local,
// array element, struct field or vector component.
#include "test_support.hpp"

#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

using namespace weft;
using weft::test::TempDir;

TEST_CASE("wp.ref parameters write through to array elements and locals") {
    TempDir cache("ref_params");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("refs", R"(import warp as wp


@wp.func
def swap_if_greater(a: wp.ref[float], b: wp.ref[float]):
    if a > b:
        t = a
        a = b
        b = t


@wp.func
def bump(v: wp.ref[wp.vec3], by: float):
    v[1] = v[1] + by


@wp.kernel(enable_backward=False)
def sort_pairs(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    swap_if_greater(a[i], b[i])
    v = wp.vec3(0.0, c[i], 0.0)
    bump(v, 10.0)
    c[i] = v[1]
)");
    const Type f32 = Type::scalar(Scalar::Float32);
    Array a = Array::from_vector(f32, std::vector<float>{3, 1, 5});
    Array b = Array::from_vector(f32, std::vector<float>{2, 4, 5});
    Array c = Array::from_vector(f32, std::vector<float>{1, 2, 3});
    m.kernel("sort_pairs").launch({3}, {a, b, c});
    CHECK(a.to_vector<float>() == std::vector<float>{2, 1, 5});
    CHECK(b.to_vector<float>() == std::vector<float>{3, 4, 5});
    CHECK(c.to_vector<float>() == std::vector<float>{11, 12, 13});
}
