// Kernel factories: each `name = factory(args)` is an instance whose captured
// arguments and computed values are constants of the code it makes.
#include "test_support.hpp"

#include "weft/host/host.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace weft;
using weft::test::TempDir;

namespace {
const char *factories_source = R"(import warp as wp

BASE = 0.5


def make_scale(factor: float, bias: float = 0.0):
    inv = 1.0 / factor

    @wp.func
    def apply(x: float):
        return x * factor + bias

    @wp.kernel(module="unique")
    def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = apply(x[i])
        z[i] = x[i] * inv

    return scale


def make_count(dtype, step):
    @wp.kernel
    def count(out: wp.array(dtype=dtype)):
        i = wp.tid()
        out[i] = dtype(i) * dtype(step)

    return count


double = make_scale(2.0)
shifted = make_scale(4.0, bias=BASE + 1.0)
count_i = make_count(wp.int32, 3)
count_d = make_count(dtype=wp.float64, step=0.25)
)";
} // namespace

TEST_CASE("kernel factory instances capture their arguments and computed values") {
    TempDir cache("factories");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("factories", factories_source);
    std::vector<std::string> names = m.kernel_names();
    std::sort(names.begin(), names.end());
    CHECK(names == std::vector<std::string>{"count_d", "count_i", "double", "shifted"});
    // Each instance of a module="unique" kernel is a module of its own, as each
    // call of the factory makes one in Warp; the others share the file's.
    CHECK(m.kernel("double").module() == "factories.double");
    CHECK(m.kernel("shifted").module() == "factories.shifted");
    CHECK(m.kernel("double").module_hash() != m.kernel("shifted").module_hash());
    CHECK(m.kernel("count_i").module() == "factories");
    CHECK(m.kernel("count_d").module() == "factories");

    const Type f32 = Type::scalar(Scalar::Float32);
    Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3});
    Array y = Array::zeros(f32, {3});
    Array z = Array::zeros(f32, {3});
    m.kernel("double").launch({3}, {x, y, z});
    CHECK(y.to_vector<float>() == std::vector<float>{2, 4, 6});
    CHECK(z.to_vector<float>() == std::vector<float>{0.5f, 1.0f, 1.5f});
    m.kernel("shifted").launch({3}, {x, y, z});
    CHECK(y.to_vector<float>() == std::vector<float>{5.5f, 9.5f, 13.5f});
    CHECK(z.to_vector<float>() == std::vector<float>{0.25f, 0.5f, 0.75f});

    Array ci = Array::zeros(Type::scalar(Scalar::Int32), {4});
    m.kernel("count_i").launch({4}, {ci});
    CHECK(ci.to_vector<std::int32_t>() == std::vector<std::int32_t>{0, 3, 6, 9});
    Array cd = Array::zeros(Type::scalar(Scalar::Float64), {4});
    m.kernel("count_d").launch({4}, {cd});
    CHECK(cd.to_vector<double>() == std::vector<double>{0, 0.25, 0.5, 0.75});
}

TEST_CASE("kernel factory instances differentiate") {
    TempDir cache("factories_grad");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("factories", factories_source);
    const Type f32 = Type::scalar(Scalar::Float32);
    Array x = Array::from_vector(f32, std::vector<float>{1, 2, 3});
    Array y = Array::zeros(f32, {3});
    Array z = Array::zeros(f32, {3});
    Array adj_x = Array::zeros(f32, {3});
    Array adj_y = Array::from_vector(f32, std::vector<float>{1, 1, 1});
    Array adj_z = Array::from_vector(f32, std::vector<float>{2, 2, 2});
    m.kernel("shifted").launch_adjoint({3}, {x, y, z}, {adj_x, adj_y, adj_z});
    // y = 4 x + 1.5 and z = x / 4: dL/dx = 4 * 1 + 0.25 * 2
    CHECK(adj_x.to_vector<float>() == std::vector<float>{4.5f, 4.5f, 4.5f});
}

TEST_CASE("a factory called with another argument is another binary") {
    TempDir cache("factories_hash");
    Host host(weft::test::cached_host_options(cache.path));
    const std::string a = std::string(factories_source);
    std::string b = a;
    b.replace(b.find("make_scale(2.0)"), 15, "make_scale(3.0)");
    const CompiledModule ma = host.load_module_source("factories", a);
    const CompiledModule mb = host.load_module_source("factories", b);
    CHECK(ma.hash() != mb.hash());
}
