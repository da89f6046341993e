// weft runtime: Warp's random numbers, bit for bit (warp/native/rand.h of
// warp-lang 1.19: the PCG hash of Jarzynski and Olano, randf's 24-bit grid,
// Box-Muller randn and the uniform samplers Warp registers as builtins). The state is a uint32 the
// kernel holds; every draw advances it in place, so these take it by
// reference (an rvalue state, as in randf(rand_init(seed)), is a temporary).
// Two draws in one expression are made left to right, as Warp's CPU build does.
#pragma once

#include "weft/rt/linalg.h"

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
#undef WEFT_RT_RAND_RVALUE

} // namespace weft
