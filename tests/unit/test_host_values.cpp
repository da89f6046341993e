// Host values (weft/runtime/values.hpp) and struct values built by field name
// (weft/runtime/struct_value.hpp), through the umbrella header an application
// includes: layouts equal to the kernel types', dtypes inferred and checked,
// struct fields checked by type, arrays inside structs kept alive and read by
// the kernel.
#include "test_support.hpp"

#include "weft/weft.hpp"

#include <catch2/catch.hpp>


using namespace weft;
using weft::test::message_of;
namespace fs = std::filesystem;

namespace {

using weft::test::TempDir;

HostOptions options_for(const TempDir &dir) { return weft::test::cached_host_options(dir.path); }

const char *source = R"(import warp as wp

@wp.struct
class Inner:
    scale: wp.vec3
    count: int

@wp.struct
class Params:
    dt: float
    gravity: wp.vec3
    inner: Inner
    weights: wp.array(dtype=float)
    rot: wp.quat
    m: wp.mat22d

@wp.kernel
def step(pos: wp.array(dtype=wp.vec3), params: Params, out: wp.array(dtype=float)):
    i = wp.tid()
    p = pos[i] + params.gravity * params.dt
    p = wp.cw_mul(p, params.inner.scale)
    pos[i] = p
    out[i] = params.weights[i] * float(params.inner.count) + params.rot[3] + float(params.m[1, 0])

@wp.kernel
def xform(t: wp.array(dtype=wp.transformd), v: wp.vec3d, out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    out[i] = wp.transform_point(t[i], v)
)";

} // namespace

TEST_CASE("host values have the kernel types' layouts and types") {
    static_assert(sizeof(vec3f) == 12 && alignof(vec3f) == 4);
    static_assert(sizeof(mat33d) == 72 && sizeof(mat<2, 3, float>) == 24);
    static_assert(sizeof(quatf) == 16 && sizeof(transformf) == 28 && sizeof(transformd) == 56);
    CHECK(type_of<vec3f>() == Type::vector(Scalar::Float32, 3));
    CHECK(type_of<vec3f>().name() == "vec3");
    CHECK(type_of<vec2i>() == Type::vector(Scalar::Int32, 2));
    CHECK(type_of<mat<2, 3, double>>() == Type::matrix(Scalar::Float64, 2, 3));
    CHECK(type_of<quatd>() == Type::quaternion(Scalar::Float64));
    CHECK(type_of<transformf>() == Type::transform(Scalar::Float32));
    CHECK(type_of<std::int64_t>() == Type::scalar(Scalar::Int64));
    CHECK(type_of<vec3f>().size() == sizeof(vec3f));
    CHECK(type_of<mat44f>().size() == sizeof(mat44f));
    constexpr mat22f m{1, 2, 3, 4};
    static_assert(m(1, 0) == 3 && m[0][1] == 2);
    static_assert(quatf::identity().w == 1 && transformd::identity().q.w == 1);
    static_assert(vec3f{} == vec3f{0, 0, 0});
}

TEST_CASE("arrays of host values infer their dtype and refuse another") {
    const Array a = Array::from_vector(std::vector<vec3f>{{1, 2, 3}, {4, 5, 6}});
    CHECK(a.dtype() == Type::vector(Scalar::Float32, 3));
    CHECK(a.shape() == std::vector<std::int64_t>{2});
    CHECK(a.to_vector<vec3f>() == std::vector<vec3f>{{1, 2, 3}, {4, 5, 6}});
    CHECK(Array::from_vector(std::vector<float>{1, 2}).dtype() == Type::scalar(Scalar::Float32));
    // Same size, other type: refused by name, both ways.
    CHECK_THAT(message_of<UserError>([&] { a.to_vector<vec<3, std::int32_t>>(); }),
               Catch::Contains("the host elements are vec3i, the dtype is vec3"));
    CHECK_THAT(message_of<UserError>([] { Array::from_vector(Type::scalar(Scalar::Float32), std::vector<quatf>(2)); }),
               Catch::Contains("the host elements are quat, the dtype is float32"));
    // A host value passes as a kernel argument of its type.
    const KernelArg arg = vec3d{1, 2, 3};
    CHECK(arg.type() == Type::vector(Scalar::Float64, 3));
    CHECK(arg.bytes().size() == 24);
}

TEST_CASE("a struct value is built by field name and checked by type") {
    TempDir cache("host_values");
    Host host(options_for(cache));
    const CompiledModule m = host.load_module_source("host_values", source);
    const Kernel step = m.kernel("step");

    CHECK_THAT(message_of<UserError>([&] { step.make_struct("paramz"); }),
               Catch::Contains("kernel 'step' has no parameter 'paramz'; its parameters: pos: array(dtype=vec3), "
                               "params: Params, out: array(dtype=float32)"));
    CHECK_THAT(message_of<UserError>([&] { step.make_struct("pos"); }),
               Catch::Contains("parameter 'pos' is array(dtype=vec3), not a struct"));

    StructValue p = step.make_struct("params");
    CHECK(p.bytes().size() == p.type().size());
    CHECK_THAT(message_of<UserError>([&] { p.set("dt", 0.5); }),
               Catch::Contains("struct Params: field 'dt' is float32, got a value of type float64"));
    CHECK_THAT(message_of<UserError>([&] { p.set("gravity", vec3d{}); }),
               Catch::Contains("field 'gravity' is vec3, got a value of type vec3d"));
    CHECK_THAT(message_of<UserError>([&] { p.set("gravty", vec3f{}); }),
               Catch::Contains("struct Params has no field 'gravty'; its fields: dt: float32, gravity: vec3, inner: Inner"));
    CHECK_THAT(message_of<UserError>([&] { p.set("dt.x", 1.0f); }),
               Catch::Contains("field 'dt' is float32, not a struct, so it has no field 'x'"));
    CHECK_THAT(message_of<UserError>([&] { p.set("inner.nope", 1); }),
               Catch::Contains("struct Params.inner has no field 'nope'; its fields: scale: vec3, count: int32"));
    CHECK_THAT(message_of<UserError>([&] { p.set("weights", Array::from_vector(std::vector<double>{1.0})); }),
               Catch::Contains("field 'weights' is array(dtype=float32), got an array of type array(dtype=float64)"));

    p.set("dt", 0.5f).set("gravity", vec3f{0, -2, 0}).set("inner.scale", vec3f{1, 2, 3}).set("inner.count", 3);
    p.set("rot", quatf::identity());
    mat22d md{};
    md(1, 0) = 10.0;
    p.set("m", md);
    CHECK(p.get<float>("dt") == 0.5f);
    CHECK(p.get<vec3f>("inner.scale") == vec3f{1, 2, 3});
    CHECK(p.get_struct("inner").get<std::int32_t>("count") == 3);

    Array pos = Array::from_vector(std::vector<vec3f>{{1, 1, 1}, {2, 2, 2}});
    Array out = Array::zeros(Type::scalar(Scalar::Float32), {2});
    {
        // The struct's array is kept alive by the value, not by this scope.
        p.set("weights", Array::from_vector(std::vector<float>{9.0f, 9.0f}));
        p.set("weights", Array::from_vector(std::vector<float>{0.5f, 2.0f})); // the first one is let go
    }
    REQUIRE(p.arrays().size() == 1);
    CHECK(p.arrays()[0].to_vector<float>() == std::vector<float>{0.5f, 2.0f});
    step.launch({2}, {pos, p, out});
    // pos + g*dt = (1, 0, 1) and (2, 1, 2), scaled by (1, 2, 3).
    CHECK(pos.to_vector<vec3f>() == std::vector<vec3f>{{1, 0, 3}, {2, 2, 6}});
    // weights * count + rot.w + m[1, 0] = 0.5*3 + 1 + 10, 2*3 + 1 + 10.
    CHECK(out.to_vector<float>() == std::vector<float>{12.5f, 17.0f});

    // A struct value of another struct type is refused by the launch.
    StructValue inner = p.get_struct("inner");
    CHECK(inner.arrays().empty()); // the part holds none of the whole's arrays
    CHECK_THAT(message_of<LaunchError>([&] { step.launch({2}, {pos, inner, out}); }),
               Catch::Contains("parameter 'params': expected Params, got Inner"));
    CHECK_THAT(message_of<UserError>([&] { p.set("inner", p); }),
               Catch::Contains("field 'inner' is Inner, got a value of struct Params"));
    p.set("inner", inner);
    CHECK_THAT(message_of<UserError>([] { StructValue{Type::vector(Scalar::Float32, 3)}; }),
               Catch::Contains("vec3 is not a struct type"));
}

TEST_CASE("transform and vector host values launch and read back") {
    TempDir cache("host_values");
    Host host(options_for(cache));
    const Kernel xform = host.load_module_source("host_values", source).kernel("xform");
    transformd t = transformd::identity();
    t.p = vec3d{1, 2, 3};
    Array ts = Array::from_vector(std::vector<transformd>{t, transformd::identity()});
    Array out = Array::zeros(type_of<vec3d>(), {2});
    xform.launch({2}, {ts, vec3d{1, 1, 1}, out});
    CHECK(out.to_vector<vec3d>() == std::vector<vec3d>{{2, 3, 4}, {1, 1, 1}});
}
