// weft runtime: Warp's random numbers, bit for bit (warp/native/rand.h of
// warp-lang 1.19: the PCG hash of Jarzynski and Olano, randf's 24-bit grid,
// Box-Muller randn and the uniform samplers Warp registers as builtins). The state is a uint32 the
// kernel holds; every draw advances it in place, so these take it by
// reference (an rvalue state, as in randf(rand_init(seed)), is a temporary).
// Two draws in one expression are made left to right, as Warp's CPU build does.
#pragma once

#include "weft/rt/array.h"

namespace weft {
namespace rt {
WEFT_RT_FN uint32 rand_pcg(uint32 state) {
    const uint32 b = state * 747796405u + 2891336453u;
    const uint32 c = ((b >> ((b >> 28u) + 4u)) ^ b) * 277803737u;
    return (c >> 22u) ^ c;
}
constexpr float32 rand_two_pi = 2.0f * 3.14159265358979323846f;
constexpr float32 randn_epsilon = 5.96e-8f; // keeps randn's log argument in (0, 1)
} // namespace rt

WEFT_RT_FN uint32 rand_init(int32 seed) { return rt::rand_pcg(uint32(seed)); }
WEFT_RT_FN uint32 rand_init(int32 seed, int32 offset) { return rt::rand_pcg(uint32(seed) + rt::rand_pcg(uint32(offset))); }

WEFT_RT_FN int32 randi(uint32 &state) {
    state = rt::rand_pcg(state);
    return int32(state);
}
WEFT_RT_FN int32 randi(uint32 &state, int32 low, int32 high) {
    state = rt::rand_pcg(state);
    return int32(state % uint32(high - low)) + low; // Warp: state % (max - min) + min, in uint32
}
WEFT_RT_FN uint32 randu(uint32 &state) {
    state = rt::rand_pcg(state);
    return state;
}
WEFT_RT_FN uint32 randu(uint32 &state, uint32 low, uint32 high) {
    state = rt::rand_pcg(state);
    return state % (high - low) + low;
}
/// Uniform on [0, 1 - 2^-24] in steps of 2^-24.
WEFT_RT_FN float32 randf(uint32 &state) {
    state = rt::rand_pcg(state);
    return float32(state >> 8) * (1.0f / 16777216.0f);
}
WEFT_RT_FN float32 randf(uint32 &state, float32 low, float32 high) { return (high - low) * randf(state) + low; }
WEFT_RT_FN float32 randn(uint32 &state) {
    const float32 u = randf(state);
    const float32 v = randf(state);
    return sqrt(-2.0f * log(u + rt::randn_epsilon)) * cos(rt::rand_two_pi * v);
}

WEFT_RT_FN vec2 sample_triangle(uint32 &state) {
    const float32 r = sqrt(randf(state));
    const float32 u = 1.0f - r;
    const float32 v = randf(state) * r;
    return vec2(u, v);
}
WEFT_RT_FN vec2 sample_unit_ring(uint32 &state) {
    const float32 theta = randf(state, 0.0f, rt::rand_two_pi);
    return vec2(cos(theta), sin(theta));
}
WEFT_RT_FN vec2 sample_unit_disk(uint32 &state) {
    const float32 r = sqrt(randf(state));
    const float32 theta = randf(state, 0.0f, rt::rand_two_pi);
    return vec2(r * cos(theta), r * sin(theta));
}
WEFT_RT_FN vec3 sample_unit_sphere_surface(uint32 &state) {
    const float32 phi = acos(1.0f - 2.0f * randf(state));
    const float32 theta = randf(state, 0.0f, rt::rand_two_pi);
    return vec3(cos(theta) * sin(phi), sin(theta) * sin(phi), cos(phi));
}
WEFT_RT_FN vec3 sample_unit_sphere(uint32 &state) {
    const float32 phi = acos(1.0f - 2.0f * randf(state));
    const float32 theta = randf(state, 0.0f, rt::rand_two_pi);
    const float32 r = pow(randf(state), 1.0f / 3.0f);
    return vec3(r * cos(theta) * sin(phi), r * sin(theta) * sin(phi), r * cos(phi));
}
WEFT_RT_FN vec3 sample_unit_hemisphere_surface(uint32 &state) {
    const float32 phi = acos(1.0f - randf(state));
    const float32 theta = randf(state, 0.0f, rt::rand_two_pi);
    return vec3(cos(theta) * sin(phi), sin(theta) * sin(phi), cos(phi));
}
WEFT_RT_FN vec3 sample_unit_hemisphere(uint32 &state) {
    const float32 phi = acos(1.0f - randf(state));
    const float32 theta = randf(state, 0.0f, rt::rand_two_pi);
    const float32 r = pow(randf(state), 1.0f / 3.0f);
    return vec3(r * cos(theta) * sin(phi), r * sin(theta) * sin(phi), r * cos(phi));
}
WEFT_RT_FN vec2 sample_unit_square(uint32 &state) {
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    return vec2(x, y);
}
WEFT_RT_FN vec3 sample_unit_cube(uint32 &state) {
    const float32 x = randf(state) - 0.5f;
    const float32 y = randf(state) - 0.5f;
    const float32 z = randf(state) - 0.5f;
    return vec3(x, y, z);
}

/// The index of the first element of the 1-D `cdf` not below a uniform draw
/// (Warp's lower_bound: a binary search, so cdf should be ascending).
WEFT_RT_FN int32 sample_cdf(uint32 &state, const array_t<float32> &cdf) {
    const float32 u = randf(state);
    int32 lower = 0, upper = cdf.shape[0] - 1;
    while (lower < upper) {
        const int32 mid = lower + (upper - lower) / 2;
        if (index_nn(cdf, mid) < u) lower = mid + 1;
        else upper = mid;
    }
    return lower;
}

namespace rt {
/// log(gamma(x)) (SPECFUN, as Warp's random_loggam).
WEFT_RT_FN float32 random_loggam(float32 x) {
    const float32 a[10] = {8.333333333333333e-02f, -2.777777777777778e-03f, 7.936507936507937e-04f,
                           -5.952380952380952e-04f, 8.417508417508418e-04f, -1.917526917526918e-03f,
                           6.410256410256410e-03f, -2.955065359477124e-02f, 1.796443723688307e-01f,
                           -1.39243221690590e+00f};
    if (x == 1.0f || x == 2.0f) return 0.0f;
    const uint32 n = x < 7.0f ? uint32(7 - x) : 0u;
    float32 x0 = x + float32(n);
    const float32 x2 = (1.0f / x0) * (1.0f / x0);
    const float32 lg2pi = 1.8378770664093453f;
    float32 gl0 = a[9];
    for (int i = 8; i >= 0; i--) {
        gl0 *= x2;
        gl0 += a[i];
    }
    float32 gl = gl0 / x0 + 0.5f * lg2pi + (x0 - 0.5f) * log(x0) - x0;
    if (x < 7.0f)
        for (uint32 k = 1; k <= n; k++) {
            gl -= log(x0 - 1.0f);
            x0 -= 1.0f;
        }
    return gl;
}
/// Small means: multiply uniforms until the product drops below exp(-lam).
WEFT_RT_FN uint32 random_poisson_mult(uint32 &state, float32 lam) {
    const float32 enlam = exp(-lam);
    uint32 x = 0;
    float32 prod = 1.0f;
    for (;;) {
        prod *= randf(state);
        if (prod > enlam) x += 1;
        else return x;
    }
}
/// Large means: Hoermann's transformed rejection (PTRS).
WEFT_RT_FN uint32 random_poisson(uint32 &state, float32 lam) {
    const float32 slam = sqrt(lam), loglam = log(lam);
    const float32 b = 0.931f + 2.53f * slam;
    const float32 a = -0.059f + 0.02483f * b;
    const float32 invalpha = 1.1239f + 1.1328f / (b - 3.4f);
    const float32 vr = 0.9277f - 3.6224f / (b - 2.0f);
    for (;;) {
        const float32 u = randf(state) - 0.5f;
        const float32 v = randf(state);
        const float32 us = 0.5f - abs(u);
        const float32 k = floor((2.0f * a / us + b) * u + lam + 0.43f);
        if (us >= 0.07f && v <= vr) return uint32(k);
        if (k < 0.0f || (us < 0.013f && v > us)) continue;
        if ((log(v) + log(invalpha) - log(a / (us * us) + b)) <= (-lam + k * loglam - random_loggam(k + 1.0f)))
            return uint32(k);
    }
}
} // namespace rt

/// A Poisson-distributed count with mean lam (Warp's poisson).
WEFT_RT_FN uint32 poisson(uint32 &state, float32 lam) {
    if (lam >= 10.0f) return rt::random_poisson(state, lam);
    if (lam == 0.0f) return 0;
    return rt::random_poisson_mult(state, lam);
}

/// An rvalue state (randf(rand_init(seed))): the draw advances a temporary.
#define WEFT_RT_RAND_RVALUE(R, name)                                                                                   \
    template <typename... A> WEFT_RT_FN R name(uint32 &&state, A... a) { return name(state, a...); }
WEFT_RT_RAND_RVALUE(int32, randi)
WEFT_RT_RAND_RVALUE(uint32, randu)
WEFT_RT_RAND_RVALUE(float32, randf)
WEFT_RT_RAND_RVALUE(float32, randn)
WEFT_RT_RAND_RVALUE(vec2, sample_triangle)
WEFT_RT_RAND_RVALUE(vec2, sample_unit_ring)
WEFT_RT_RAND_RVALUE(vec2, sample_unit_disk)
WEFT_RT_RAND_RVALUE(vec3, sample_unit_sphere_surface)
WEFT_RT_RAND_RVALUE(vec3, sample_unit_sphere)
WEFT_RT_RAND_RVALUE(vec3, sample_unit_hemisphere_surface)
WEFT_RT_RAND_RVALUE(vec3, sample_unit_hemisphere)
WEFT_RT_RAND_RVALUE(vec2, sample_unit_square)
WEFT_RT_RAND_RVALUE(vec3, sample_unit_cube)
WEFT_RT_RAND_RVALUE(int32, sample_cdf)
WEFT_RT_RAND_RVALUE(uint32, poisson)
#undef WEFT_RT_RAND_RVALUE

} // namespace weft
