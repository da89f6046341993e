// Generic kernels: the instances wp.overload declares are made when the module
// loads, a launch picks the one whose parameter types equal the arguments'
// (on the forward and the adjoint launch), and a launch with types nothing
// declared says what to add.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/kernel/frontend.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace weft;
using weft::test::message_of;
using weft::test::TempDir;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);
const Type f64 = Type::scalar(Scalar::Float64);
const Type i32 = Type::scalar(Scalar::Int32);

const char *const source = R"(import warp as wp
from typing import Any


@wp.kernel
def mul(y: wp.array(dtype=Any), x: wp.array(dtype=Any), s: Any):
    i = wp.tid()
    y[i] = s * x[i] + type(x[i])(s)


wp.overload(mul, [wp.array(dtype=wp.float32), wp.array(dtype=wp.float32), wp.float32])
wp.overload(mul, {"y": wp.array(dtype=wp.float64), "x": wp.array(dtype=wp.float64), "s": wp.float64})


@wp.overload
def mul(y: wp.array(dtype=wp.vec2), x: wp.array(dtype=wp.vec2), s: float):
    ...
)";

} // namespace

TEST_CASE("generic kernels: each declared instance runs, picked by argument types") {
    TempDir cache("generic_kernels");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("generic", source);
    CHECK(m.kernel_names() == std::vector<std::string>{"mul"});
    const std::vector<Kernel> all = m.kernels();
    REQUIRE(all.size() == 3);
    CHECK(all[0].params().at(2).type == f32);
    CHECK(all[1].params().at(2).type == f64);
    CHECK(all[2].params().at(0).type == Type::array(Type::vector(Scalar::Float32, 2), 1));

    const Kernel mul = m.kernel("mul"); // the first instance; launches dispatch
    Array x32 = Array::from_vector(f32, std::vector<float>{1, 2, 3});
    Array y32 = Array::zeros(f32, {3});
    mul.launch({3}, {y32, x32, 2.0f});
    CHECK(y32.to_vector<float>() == std::vector<float>{4, 6, 8});

    Array x64 = Array::from_vector(f64, std::vector<double>{0.5, 0.25});
    Array y64 = Array::zeros(f64, {2});
    mul.launch({2}, {y64, x64, 4.0});
    CHECK(y64.to_vector<double>() == std::vector<double>{6.0, 5.0});

    const Type v2 = Type::vector(Scalar::Float32, 2);
    const std::vector<float> xs{1, 2, 3, 4};
    Array xv = Array::from_host(v2, {2}, xs.data(), sizeof(float) * xs.size());
    Array yv = Array::zeros(v2, {2});
    mul.launch({2}, {yv, xv, 0.5f});
    std::vector<float> ys(4);
    yv.copy_to_host(ys.data(), sizeof(float) * ys.size());
    // type(x[i])(s) is vec2(s, s) in this instance.
    CHECK(ys == std::vector<float>{1.0f, 1.5f, 2.0f, 2.5f});

    Array xi = Array::from_vector(i32, std::vector<std::int32_t>{1});
    Array yi = Array::zeros(i32, {1});
    const std::string why = message_of<LaunchError>([&] { mul.launch({1}, {yi, xi, 3}); });
    CHECK_THAT(why, Catch::Contains("kernel 'mul' (module 'generic') is generic and has no instance for the argument "
                                    "types (array(dtype=int32), array(dtype=int32), int32)"));
    CHECK_THAT(why, Catch::Contains("add wp.overload(mul, [types])"));
    CHECK_THAT(why, Catch::Contains("(array(dtype=float64), array(dtype=float64), float64)"));
}

TEST_CASE("generic kernels: a warm load in a new host keeps every instance and the dispatch") {
    TempDir cache("generic_kernels_warm");
    {
        Host host(weft::test::cached_host_options(cache.path));
        (void)host.load_module_source("generic_warm", source);
    }
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("generic_warm", source);
    CHECK(m.from_cache());
    REQUIRE(m.kernels().size() == 3);
    Array x = Array::from_vector(f64, std::vector<double>{2.0});
    Array y = Array::zeros(f64, {1});
    m.kernel("mul").launch({1}, {y, x, 0.5});
    CHECK(y.to_vector<double>() == std::vector<double>{1.5});
}

TEST_CASE("generic kernels: the adjoint launch picks the instance too") {
    TempDir cache("generic_kernels_adj");
    Host host(weft::test::cached_host_options(cache.path));
    const CompiledModule m = host.load_module_source("generic_adj", source);
    Array x = Array::from_vector(f64, std::vector<double>{1, 2});
    Array y = Array::zeros(f64, {2});
    Array adj_x = Array::zeros(f64, {2});
    Array adj_y = Array::from_vector(f64, std::vector<double>{1, 10});
    // Through the float32 instance's handle: the float64 instance's backward pass runs.
    m.kernel("mul").launch_adjoint({2}, {y, x, 3.0}, {adj_y, adj_x, 0.0});
    CHECK(adj_x.to_vector<double>() == std::vector<double>{3.0, 30.0});
}

TEST_CASE("generic kernels: instances are named by their types, warnings and errors say what to write") {
    using namespace weft::kernel;
    Registry registry;
    register_core_builtins(registry);
    const FrontendResult r = check_module(SourceFile("g.py", source), registry);
    REQUIRE(r.ok());
    std::vector<std::string> mangled;
    for (const ir::Function &f : r.module.functions)
        if (f.is_kernel) mangled.push_back(f.mangled_name);
    REQUIRE(mangled.size() == 3);
    CHECK(std::set<std::string>(mangled.begin(), mangled.end()).size() == 3);
    CHECK(mangled[0].rfind("wk3mul_", 0) == 0);

    const FrontendResult lonely = check_module(SourceFile("l.py", R"(import warp as wp
from typing import Any


@wp.kernel
def k(a: wp.array(dtype=float), s: Any):
    i = wp.tid()
)"),
                                               registry);
    REQUIRE(lonely.ok());
    REQUIRE(lonely.diagnostics.size() == 1);
    CHECK(lonely.diagnostics[0].severity == Diagnostic::Severity::Warning);
    CHECK(lonely.diagnostics[0].location.line == 6);
    CHECK_THAT(lonely.diagnostics[0].message, Catch::Contains("kernel 'k' is generic (parameter 's') and has no wp.overload"));
}
