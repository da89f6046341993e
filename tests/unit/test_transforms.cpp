// Warp's transforms and spatial vectors in kernels, with concrete values (those
// of Warp's own documentation examples, and worked by hand), and gradients of
// transform_point and transform_multiply against central finite differences.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

using namespace weft;

namespace {

using T7 = std::array<float, 7>;
using V3 = std::array<float, 3>;
using V6 = std::array<float, 6>;

const Type transform = Type::transform(Scalar::Float32);
const Type vec3 = Type::vector(Scalar::Float32, 3);
const Type spatial = Type::vector(Scalar::Float32, 6);
const Type f32 = Type::scalar(Scalar::Float32);

const char *values_module = R"(import warp as wp


@wp.kernel
def forms(ts: wp.array(dtype=wp.transform), vs: wp.array(dtype=wp.vec3), ss: wp.array(dtype=wp.spatial_vector),
          fs: wp.array(dtype=float)):
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 1.5707963267948966)
    a = wp.transform(wp.vec3(1.0, 0.0, 0.0), q)
    b = wp.transform(p=wp.vec3(2.0, 0.0, 0.0))
    ts[0] = a * b
    ts[1] = wp.transform_inverse(a)
    ts[2] = wp.transform_identity()
    t = wp.transform(1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0)
    t.p = t.p * 2.0
    t[6] = -1.0
    ts[3] = t
    ts[4] = wp.transformation(wp.vec3(1.0, 2.0, 3.0)) * 2.0 - wp.transform(0.5)
    vs[0] = wp.transform_point(a, wp.vec3(1.0, 2.0, 0.0))
    vs[1] = wp.transform_vector(a, wp.vec3(1.0, 2.0, 0.0))
    vs[2] = wp.transform_get_translation(wp.transform_multiply(b, a))
    ss[0] = wp.spatial_cross(wp.spatial_vector(0.0, 0.0, 1.0, 0.0, 0.0, 0.0), wp.spatial_vector(0.0, 0.0, 0.0, 1.0, 0.0, 0.0))
    ss[1] = wp.spatial_cross_dual(wp.spatial_vector(0.0, 0.0, 1.0, 1.0, 0.0, 0.0),
                                  wp.spatial_vector(0.0, 0.0, 0.0, 0.0, 1.0, 0.0))
    ss[2] = wp.spatial_vector(wp.vec3(0.0, 0.0, 2.0), wp.vec3(1.0, 0.0, 0.0))
    X = wp.spatial_adjoint(wp.identity(n=3, dtype=float), wp.mat33(0.0, -3.0, 2.0, 3.0, 0.0, -1.0, -2.0, 1.0, 0.0))
    ss[3] = X * wp.spatial_vector(1.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    fs[0] = wp.spatial_dot(wp.spatial_vector(0.0, 0.0, 3.0, 0.0, 0.0, 0.0), wp.spatial_vector(0.0, 0.0, 2.0, 1.0, 0.0, 0.0))
    fs[1] = float(len(t)) + t[2]
    fs[2] = wp.spatial_top(ss[2])[2] + wp.spatial_bottom(ss[2])[0]
)";

void check_near(const std::vector<float> &got, const std::vector<float> &want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("component " << i);
        CHECK(got[i] == Approx(want[i]).margin(1e-5));
    }
}

template <std::size_t N> std::vector<float> flat(const Array &a) {
    std::vector<float> out;
    for (const std::array<float, N> &e : a.to_vector<std::array<float, N>>()) out.insert(out.end(), e.begin(), e.end());
    return out;
}

} // namespace

TEST_CASE("transforms and spatial vectors: constructors, parts and builtins give Warp's values") {
    test::TempDir cache("transforms_values");
    Host host(test::cached_host_options(cache.path));
    CompiledModule m = host.load_module_source("transforms_values", values_module);
    Array ts = Array::zeros(transform, {5}), vs = Array::zeros(vec3, {3}), ss = Array::zeros(spatial, {4});
    Array fs = Array::zeros(f32, {3});
    m.kernel("forms").launch({1}, {ts, vs, ss, fs});

    const float h = std::sqrt(0.5f);
    check_near(flat<7>(ts), {
                                1, 2, 0, 0, 0, h, h,       // a * b (Warp's transform_multiply example)
                                0, 1, 0, 0, 0, -h, h,      // inverse of a 90-degree turn about z after x + 1
                                0, 0, 0, 0, 0, 0, 1,       // identity
                                2, 4, 6, 0, 0, 0, -1,      // t.p written, t[6] written
                                1.5f, 3.5f, 5.5f, -0.5f, -0.5f, -0.5f, 1.5f, // transformation(p) * 2 - transform(0.5)
                            });
    check_near(flat<3>(vs), {-1, 1, 0, -2, 1, 0, 3, 0, 0});
    check_near(flat<6>(ss), {
                                0, 0, 0, 0, 1, 0,  // Warp's spatial_cross example
                                0, 0, 1, -1, 0, 0, // Warp's spatial_cross_dual example
                                0, 0, 2, 1, 0, 0,  // spatial_vector(w, v)
                                1, 0, 0, 0, 3, -2, // [[I, 0], [S, I]] (1, 0, 0, 0, 0, 0): S's first column below
                            });
    check_near(fs.to_vector<float>(), {6, 7 + 6, 3});
}

namespace {

const char *gradient_module = R"(import warp as wp


@wp.kernel
def point_loss(ts: wp.array(dtype=wp.transformd), xs: wp.array(dtype=wp.vec3d), w: wp.vec3d, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = wp.dot(wp.transform_point(ts[i], xs[i]), w)


@wp.kernel
def multiply_loss(a: wp.array(dtype=wp.transformd), b: wp.array(dtype=wp.transformd), w: wp.transformd,
                  out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    c = wp.transform_multiply(a[i], b[i]) + a[i] * b[i]
    s = wp.float64(0.0)
    for k in range(7):
        s += c[k] * w[k]
    out[i] = s
)";

const Type transformd = Type::transform(Scalar::Float64);
const Type vec3d = Type::vector(Scalar::Float64, 3);
const Type f64 = Type::scalar(Scalar::Float64);

Array filled(const Type &t, const std::vector<double> &v, bool grad) {
    Array a = Array::zeros(t, {1}, Device::cpu(), grad);
    a.copy_from_host(v.data(), v.size() * sizeof(double));
    return a;
}

std::vector<double> read(const Array &a) {
    std::vector<double> v(a.nbytes() / sizeof(double));
    a.copy_to_host(v.data(), a.nbytes());
    return v;
}

/// out[0] for inputs (p0, p1) and the value argument, by a forward launch.
double loss(const Kernel &k, const Type &t0, const std::vector<double> &p0, const Type &t1, const std::vector<double> &p1,
            const KernelArg &weights) {
    Array out = Array::zeros(f64, {1});
    k.launch({1}, {filled(t0, p0, false), filled(t1, p1, false), weights, out});
    return read(out)[0];
}

/// Compares the tape's gradients of both array inputs with central differences.
void check_gradients(const Kernel &k, const Type &t0, const std::vector<double> &p0, const Type &t1,
                     const std::vector<double> &p1, const KernelArg &weights) {
    Array a0 = filled(t0, p0, true), a1 = filled(t1, p1, true), out = Array::zeros(f64, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({1}, {a0, a1, weights, out});
    }
    tape.backward({{out, filled(f64, {1.0}, false)}});
    const std::vector<double> g0 = read(a0.grad()), g1 = read(a1.grad());
    const double eps = 1e-6;
    for (int which = 0; which < 2; ++which) {
        const std::vector<double> &p = which == 0 ? p0 : p1;
        const std::vector<double> &g = which == 0 ? g0 : g1;
        for (std::size_t c = 0; c < p.size(); ++c) {
            std::vector<double> up = p, down = p;
            up[c] += eps;
            down[c] -= eps;
            const double fd = which == 0 ? (loss(k, t0, up, t1, p1, weights) - loss(k, t0, down, t1, p1, weights)) / (2 * eps)
                                         : (loss(k, t0, p0, t1, up, weights) - loss(k, t0, p0, t1, down, weights)) / (2 * eps);
            INFO("input " << which << " component " << c);
            CHECK(g[c] == Approx(fd).epsilon(1e-6).margin(1e-7));
        }
    }
}

} // namespace

TEST_CASE("transform_point and transform_multiply gradients match central finite differences") {
    test::TempDir cache("transforms_gradients");
    Host host(test::cached_host_options(cache.path));
    CompiledModule m = host.load_module_source("transforms_gradients", gradient_module);
    // Rotations deliberately not unit length: the formulas are differentiated as written.
    const std::vector<double> ta{0.3, -1.2, 0.7, 0.2, -0.4, 0.5, 0.9}, tb{-0.8, 0.1, 1.5, -0.6, 0.3, 0.2, 0.7};
    const std::array<double, 3> w3{0.7, -0.2, 1.1};
    check_gradients(m.kernel("point_loss"), transformd, ta, vec3d, {0.4, 1.3, -0.9}, KernelArg::value(vec3d, w3.data(), 24));
    const std::array<double, 7> w7{0.5, -1.0, 0.25, 1.5, -0.75, 0.6, -0.3};
    check_gradients(m.kernel("multiply_loss"), transformd, ta, transformd, tb,
                    KernelArg::value(transformd, w7.data(), 56));
}
