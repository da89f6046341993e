// Warp's noise builtins: values at fixed points equal warp-lang 1.19's on the
// CPU bit for bit (the expected numbers were printed by warp-lang for the same
// state and points), and the adjoints give Warp's gradients, which agree with
// central finite differences.
#include "test_support.hpp"

#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <vector>

using namespace weft;

namespace {

const Type f32 = Type::scalar(Scalar::Float32);
const Type vec2 = Type::vector(Scalar::Float32, 2);
const Type vec3 = Type::vector(Scalar::Float32, 3);

const char *values_module = R"(import warp as wp


@wp.kernel
def samples(out: wp.array(dtype=float), v2: wp.array(dtype=wp.vec2), v3: wp.array(dtype=wp.vec3)):
    s = wp.rand_init(42)
    out[0] = wp.noise(s, 0.5)
    out[1] = wp.noise(s, 2.25)
    out[2] = wp.noise(s, wp.vec2(0.3, 1.7))
    out[3] = wp.noise(s, wp.vec3(0.3, 1.7, 2.9))
    out[4] = wp.noise(s, wp.vec4(0.3, 1.7, 2.9, 0.45))
    out[5] = wp.pnoise(s, wp.vec2(0.3, 1.7), 4, 4)
    out[6] = wp.pnoise(s, wp.vec2(4.3, 5.7), 4, 4)
    out[7] = wp.pnoise(s, 0.75, 4)
    out[8] = wp.noise(wp.rand_init(7), -3.6)
    v2[0] = wp.curlnoise(s, wp.vec2(0.5, 0.5))
    v3[0] = wp.curlnoise(s, wp.vec3(0.3, 1.7, 2.9))
    v3[1] = wp.curlnoise(s, wp.vec4(0.3, 1.7, 2.9, 0.45), wp.uint32(3), 2.0, 0.5)
    v3[2] = wp.curlnoise(s, wp.vec3(0.3, 1.7, 2.9), octaves=wp.uint32(2))
)";

template <std::size_t N> std::vector<float> flat(const Array &a) {
    std::vector<float> out;
    for (const std::array<float, N> &e : a.to_vector<std::array<float, N>>()) out.insert(out.end(), e.begin(), e.end());
    return out;
}

void check_exact(const std::vector<float> &got, const std::vector<float> &want) {
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        INFO("component " << i);
        CHECK(got[i] == want[i]);
    }
}

} // namespace

TEST_CASE("noise, pnoise and curlnoise give warp-lang's values bit for bit") {
    test::TempDir cache("noise_values");
    Host host(test::cached_host_options(cache.path));
    CompiledModule m = host.load_module_source("noise_values", values_module);
    Array out = Array::zeros(f32, {9}), v2 = Array::zeros(vec2, {1}), v3 = Array::zeros(vec3, {3});
    m.kernel("samples").launch({1}, {out, v2, v3});

    check_exact(out.to_vector<float>(), {
                                            0.24260208010673523f,   // 1-D
                                            -0.08978905528783798f,  // 1-D, another cell
                                            0.21956738829612732f,   // 2-D
                                            0.10097639262676239f,   // 3-D
                                            -0.047369614243507385f, // 4-D
                                            0.21956738829612732f,   // periodic 2-D: the same lattice as noise here
                                            0.21956753730773926f,   // a period over: same corners, offset rounds differently
                                            0.17398159205913544f,   // periodic 1-D
                                            -0.07083412259817123f,  // another state, a negative point
                                        });
    // pnoise inside its first period hashes the same corners as noise.
    CHECK(out.to_vector<float>()[5] == out.to_vector<float>()[2]);
    check_exact(flat<2>(v2), {1.2830206155776978f, 0.14031952619552612f});
    check_exact(flat<3>(v3), {
                                 0.4852657616138458f, -0.9760194420814514f, 0.3276146650314331f,   // 3-D, defaults
                                 -0.2201172113418579f, 0.629955530166626f, 0.23030930757522583f,   // 4-D, 3 octaves
                                 0.5976330041885376f, -0.7088758945465088f, 0.38394391536712646f, // 3-D, octaves=2
                             });
}

namespace {

const char *gradient_module = R"(import warp as wp


@wp.kernel
def noise_loss(xs: wp.array(dtype=wp.vec3), w: wp.vec3, out: wp.array(dtype=float)):
    s = wp.rand_init(42)
    out[0] = wp.noise(s, xs[0])


@wp.kernel
def curl_loss(xs: wp.array(dtype=wp.vec3), w: wp.vec3, out: wp.array(dtype=float)):
    s = wp.rand_init(42)
    out[0] = wp.dot(wp.curlnoise(s, xs[0], wp.uint32(2)), w)
)";

Array point(const std::array<float, 3> &p, bool grad) {
    Array a = Array::zeros(vec3, {1}, Device::cpu(), grad);
    a.copy_from_host(p.data(), sizeof p);
    return a;
}

float loss(const Kernel &k, const std::array<float, 3> &p, const KernelArg &w) {
    Array out = Array::zeros(f32, {1});
    k.launch({1}, {point(p, false), w, out});
    return out.to_vector<float>()[0];
}

/// The tape's gradient of out[0] with respect to the point.
std::vector<float> gradient(const Kernel &k, const std::array<float, 3> &p, const KernelArg &w) {
    Array x = point(p, true), out = Array::zeros(f32, {1}, Device::cpu(), true);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({1}, {x, w, out});
    }
    Array seed = Array::zeros(f32, {1});
    const float one = 1.0f;
    seed.copy_from_host(&one, sizeof one);
    tape.backward({{out, seed}});
    return flat<3>(x.grad());
}

void check_finite_differences(const Kernel &k, const std::array<float, 3> &p, const KernelArg &w,
                              const std::vector<float> &g) {
    const float h = 1e-3f;
    for (std::size_t c = 0; c < 3; ++c) {
        std::array<float, 3> up = p, down = p;
        up[c] += h;
        down[c] -= h;
        const double fd = (double(loss(k, up, w)) - double(loss(k, down, w))) / double(up[c] - down[c]);
        INFO("component " << c << ": analytic " << g[c] << ", finite differences " << fd);
        CHECK(g[c] == Approx(fd).epsilon(2e-3).margin(2e-3));
    }
}

} // namespace

TEST_CASE("noise and curlnoise gradients are warp-lang's and match central finite differences") {
    test::TempDir cache("noise_gradients");
    Host host(test::cached_host_options(cache.path));
    CompiledModule m = host.load_module_source("noise_gradients", gradient_module);
    const std::array<float, 3> p{0.3f, 1.7f, 2.9f}, w{0.7f, -0.2f, 1.1f};
    const KernelArg weights = KernelArg::value(vec3, w.data(), sizeof w);

    const std::vector<float> gn = gradient(m.kernel("noise_loss"), p, weights);
    check_exact(gn, {-0.6505864262580872f, 0.5773296356201172f, -0.3947989344596863f});
    check_finite_differences(m.kernel("noise_loss"), p, weights, gn);

    // curlnoise's adjoint chains through the potentials' Hessians, over both octaves.
    const std::vector<float> gc = gradient(m.kernel("curl_loss"), p, weights);
    check_exact(gc, {-3.9669339656829834f, 7.689877986907959f, 0.3999593257904053f});
    check_finite_differences(m.kernel("curl_loss"), p, weights, gc);
}
