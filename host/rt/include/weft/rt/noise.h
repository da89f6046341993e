// weft runtime: Warp's Perlin noise builtins (noise, pnoise, curlnoise), bit
// for bit as warp-lang 1.19 computes them on the CPU. The lattice gradients
// come from hashing the cell corner into Warp's PCG stream (random.h), so the
// hash constants, the order of every float operation and the way the state is
// re-seeded between curlnoise's potentials all follow Warp's noise.h; any
// reordering changes the low bits and the values stop matching Warp's.
//
// One template serves 1-D to 4-D: corners are numbered with bit k selecting
// the upper lattice point on axis k, and interpolation folds axis 0 first, as
// Warp's hand-unrolled versions do. The state is taken by value: noise never
// advances the caller's stream.
#pragma once

#include "weft/rt/random.h"

namespace weft {
namespace rt {

WEFT_RT_FN float32 noise_smootherstep(float32 t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
WEFT_RT_FN float32 noise_smootherstep_gradient(float32 t) { return 30.0f * t * t * (t * (t - 2.0f) + 1.0f); }
WEFT_RT_FN float32 noise_smootherstep_hessian(float32 t) { return 60.0f * t * (t * (t * 2.0f - 3.0f) + 1.0f); }
WEFT_RT_FN float32 noise_interpolate(float32 a0, float32 a1, float32 t) {
    return (a1 - a0) * noise_smootherstep(t) + a0;
}

/// The lattice cell of one coordinate: its lower corner index and the offset into it.
struct noise_cell {
    int32 lo, hi;
    float32 d;
};
WEFT_RT_FN noise_cell noise_cell_of(float32 x) {
    const float32 f = floor(x);
    const int32 i = int32(f);
    return noise_cell{i, i + 1, x - f};
}
/// The periodic cell: both corner indices wrapped into [0, period) (C's %, as Warp).
WEFT_RT_FN noise_cell noise_cell_of(float32 x, int32 period) {
    const float32 f = floor(x);
    const int32 lo = mod(int32(f), period);
    return noise_cell{lo, mod(int32(lo + 1), period), x - f};
}

/// Warp's corner hash: x * p_x ^ y * p_y ^ ... ^ (last * p_last + state), in
/// uint32 arithmetic (the + binds tighter than ^ in Warp's source).
template <int N> WEFT_RT_FN uint32 noise_corner_hash(uint32 state, const int32 (&corner)[N]) {
    const uint32 primes[4] = {73856093u, 19349663u, 53471161u, 10000019u};
    uint32 h = uint32(corner[N - 1]) * primes[N - 1] + state;
    for (int k = 0; k < N - 1; ++k) h ^= uint32(corner[k]) * primes[k];
    return h;
}
/// The unit gradient at a lattice corner (1-D: a uniform slope in [-1, 1), not normalized).
template <int N> WEFT_RT_FN vec_t<N, float32> noise_corner_gradient(uint32 state, const int32 (&corner)[N]) {
    uint32 h = noise_corner_hash<N>(state, corner);
    vec_t<N, float32> g;
    if constexpr (N == 1) {
        g.c[0] = randf(h, -1.0f, 1.0f);
    } else {
        // sample_unit_square / _cube / Warp's unexported sample_unit_hypercube, drawn in order.
        for (int k = 0; k < N; ++k) g.c[k] = randf(h) - 0.5f;
        g = normalize(g);
    }
    return g;
}

/// The corner `c` of the cell and the offset from it to the sample point.
template <int N>
WEFT_RT_FN void noise_corner(const noise_cell (&cells)[N], int c, int32 (&corner)[N], float32 (&offset)[N]) {
    for (int k = 0; k < N; ++k) {
        const bool upper = (c >> k) & 1;
        corner[k] = upper ? cells[k].hi : cells[k].lo;
        offset[k] = upper ? cells[k].d - 1.0f : cells[k].d;
    }
}
/// dot(offset, gradient) summed left to right from the first product (Warp's dot_grid_gradient).
template <int N> WEFT_RT_FN float32 noise_corner_dot(const float32 (&offset)[N], const vec_t<N, float32> &g) {
    float32 s = offset[0] * g.c[0];
    for (int k = 1; k < N; ++k) s = s + offset[k] * g.c[k];
    return s;
}

template <int N> WEFT_RT_FN float32 noise_value(uint32 state, const noise_cell (&cells)[N]) {
    float32 v[1 << N];
    for (int c = 0; c < (1 << N); ++c) {
        int32 corner[N];
        float32 offset[N];
        noise_corner<N>(cells, c, corner, offset);
        v[c] = noise_corner_dot<N>(offset, noise_corner_gradient<N>(state, corner));
    }
    for (int k = 0; k < N; ++k)
        for (int j = 0; j < (1 << (N - k - 1)); ++j) v[j] = noise_interpolate(v[2 * j], v[2 * j + 1], cells[k].d);
    return v[0];
}

/// The gradient of the noise with respect to the sample point (Warp's noise_Nd_gradient).
template <int N> WEFT_RT_FN vec_t<N, float32> noise_gradient(uint32 state, const noise_cell (&cells)[N]) {
    float32 v[1 << N];
    vec_t<N, float32> g[1 << N];
    for (int c = 0; c < (1 << N); ++c) {
        int32 corner[N];
        float32 offset[N];
        noise_corner<N>(cells, c, corner, offset);
        g[c] = noise_corner_gradient<N>(state, corner);
        v[c] = noise_corner_dot<N>(offset, g[c]);
    }
    for (int k = 0; k < N; ++k) {
        const float32 t = cells[k].d;
        const float32 s = noise_smootherstep(t), s1 = noise_smootherstep_gradient(t);
        for (int j = 0; j < (1 << (N - k - 1)); ++j) {
            const float32 a0 = v[2 * j], a1 = v[2 * j + 1];
            const float32 slope = (a1 - a0) * s1;
            vec_t<N, float32> r;
            // (d_a1 - d_a0) * S + ((a1 - a0) * S') * e_k + d_a0, per component, as Warp's vector expression.
            for (int i = 0; i < N; ++i)
                r.c[i] = (g[2 * j + 1].c[i] - g[2 * j].c[i]) * s + slope * (i == k ? 1.0f : 0.0f) + g[2 * j].c[i];
            g[j] = r;
            v[j] = noise_interpolate(a0, a1, t);
        }
    }
    return g[0];
}

/// The Hessian of the noise (curlnoise's adjoint differentiates the gradient field).
/// Each interpolation level carries value, gradient and Hessian (Warp's noise_level_t).
template <int N> struct noise_level {
    float32 val;
    vec_t<N, float32> grad;
    mat_t<N, N, float32> hess;
};
template <int N>
WEFT_RT_FN noise_level<N> noise_level_compose(const noise_level<N> &a, const noise_level<N> &b, int k, float32 s,
                                              float32 s1, float32 s2) {
    noise_level<N> f;
    const float32 dv = b.val - a.val;
    f.val = a.val + dv * s;
    vec_t<N, float32> dg;
    for (int i = 0; i < N; ++i) dg.c[i] = b.grad.c[i] - a.grad.c[i];
    for (int i = 0; i < N; ++i) f.grad.c[i] = a.grad.c[i] + dg.c[i] * s;
    f.grad.c[k] += dv * s1;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j)
            f.hess.c[i].c[j] = a.hess.c[i].c[j] + (b.hess.c[i].c[j] - a.hess.c[i].c[j]) * s;
    for (int i = 0; i < N; ++i) {
        f.hess.c[i].c[k] += dg.c[i] * s1;
        f.hess.c[k].c[i] += dg.c[i] * s1;
    }
    f.hess.c[k].c[k] += dv * s2;
    return f;
}
template <int N> WEFT_RT_FN mat_t<N, N, float32> noise_hessian(uint32 state, const noise_cell (&cells)[N]) {
    noise_level<N> l[1 << N];
    for (int c = 0; c < (1 << N); ++c) {
        int32 corner[N];
        float32 offset[N];
        noise_corner<N>(cells, c, corner, offset);
        const vec_t<N, float32> g = noise_corner_gradient<N>(state, corner);
        vec_t<N, float32> d;
        for (int k = 0; k < N; ++k) d.c[k] = offset[k];
        l[c].val = dot(d, g);
        l[c].grad = g;
        l[c].hess = mat_t<N, N, float32>();
    }
    for (int k = 0; k < N; ++k) {
        const float32 t = cells[k].d;
        const float32 s = noise_smootherstep(t), s1 = noise_smootherstep_gradient(t),
                      s2 = noise_smootherstep_hessian(t);
        for (int j = 0; j < (1 << (N - k - 1)); ++j) l[j] = noise_level_compose<N>(l[2 * j], l[2 * j + 1], k, s, s1, s2);
    }
    return l[0].hess;
}

template <int N> WEFT_RT_FN void noise_cells(const vec_t<N, float32> &x, noise_cell (&cells)[N]) {
    for (int k = 0; k < N; ++k) cells[k] = noise_cell_of(x.c[k]);
}
template <int N>
WEFT_RT_FN void noise_cells(const vec_t<N, float32> &x, const int32 (&period)[N], noise_cell (&cells)[N]) {
    for (int k = 0; k < N; ++k) cells[k] = noise_cell_of(x.c[k], period[k]);
}

/// Warp re-seeds the state between curlnoise's three potentials with rand_init(state, offset).
WEFT_RT_FN uint32 noise_reseed(uint32 state, uint32 offset) { return rand_pcg(state + rand_pcg(offset)); }
constexpr uint32 curl_seed_2 = 10019689u;
constexpr uint32 curl_seed_3 = 13112221u;

/// sum over octaves of gain^i * grad N_p(lacunarity^i x) for the three potentials p (one in 2-D).
template <int N, int P>
WEFT_RT_FN void curl_sums(uint32 state, const vec_t<N, float32> &x, uint32 octaves, float32 lacunarity, float32 gain,
                          vec_t<N, float32> (&sum)[P]) {
    float32 freq = 1.0f, amplitude = 1.0f;
    for (int p = 0; p < P; ++p) sum[p] = vec_t<N, float32>(0.0f);
    for (uint32 i = 0; i < octaves; ++i) {
        vec_t<N, float32> pt;
        for (int k = 0; k < N; ++k) pt.c[k] = freq * x.c[k];
        noise_cell cells[N];
        noise_cells<N>(pt, cells);
        for (int p = 0; p < P; ++p) {
            if (p == 1) state = noise_reseed(state, curl_seed_2);
            if (p == 2) state = noise_reseed(state, curl_seed_3);
            const vec_t<N, float32> g = noise_gradient<N>(state, cells);
            for (int k = 0; k < N; ++k) sum[p].c[k] = sum[p].c[k] + amplitude * g.c[k];
        }
        amplitude *= gain;
        freq *= lacunarity;
    }
}
template <int N>
WEFT_RT_FN vec3 curl3(uint32 state, const vec_t<N, float32> &x, uint32 octaves, float32 lacunarity, float32 gain) {
    vec_t<N, float32> s[3];
    curl_sums<N, 3>(state, x, octaves, lacunarity, gain, s);
    return vec3(s[2].c[1] - s[1].c[2], s[0].c[2] - s[2].c[0], s[1].c[0] - s[0].c[1]);
}

} // namespace rt

// -- noise: non-periodic Perlin noise ------------------------------------------------
WEFT_RT_FN float32 noise(uint32 state, float32 x) {
    const rt::noise_cell cells[1] = {rt::noise_cell_of(x)};
    return rt::noise_value<1>(state, cells);
}
template <int N> WEFT_RT_FN float32 noise(uint32 state, const vec_t<N, float32> &x) {
    rt::noise_cell cells[N];
    rt::noise_cells<N>(x, cells);
    return rt::noise_value<N>(state, cells);
}

// -- pnoise: noise whose lattice repeats every p cells along each axis -------------
WEFT_RT_FN float32 pnoise(uint32 state, float32 x, int32 px) {
    const rt::noise_cell cells[1] = {rt::noise_cell_of(x, px)};
    return rt::noise_value<1>(state, cells);
}
WEFT_RT_FN float32 pnoise(uint32 state, const vec2 &x, int32 px, int32 py) {
    const int32 period[2] = {px, py};
    rt::noise_cell cells[2];
    rt::noise_cells<2>(x, period, cells);
    return rt::noise_value<2>(state, cells);
}
WEFT_RT_FN float32 pnoise(uint32 state, const vec3 &x, int32 px, int32 py, int32 pz) {
    const int32 period[3] = {px, py, pz};
    rt::noise_cell cells[3];
    rt::noise_cells<3>(x, period, cells);
    return rt::noise_value<3>(state, cells);
}
WEFT_RT_FN float32 pnoise(uint32 state, const vec4 &x, int32 px, int32 py, int32 pz, int32 pt) {
    const int32 period[4] = {px, py, pz, pt};
    rt::noise_cell cells[4];
    rt::noise_cells<4>(x, period, cells);
    return rt::noise_value<4>(state, cells);
}

// -- curlnoise: divergence-free fields from noise gradients --------------------------
// Warp's defaults are octaves 1, lacunarity 2, gain 0.5 (registered as shorter overloads).
WEFT_RT_FN vec2 curlnoise(uint32 state, const vec2 &xy, uint32 octaves = 1u, float32 lacunarity = 2.0f,
                          float32 gain = 0.5f) {
    vec2 s[1];
    rt::curl_sums<2, 1>(state, xy, octaves, lacunarity, gain, s);
    return vec2(-s[0].c[1], s[0].c[0]);
}
WEFT_RT_FN vec3 curlnoise(uint32 state, const vec3 &xyz, uint32 octaves = 1u, float32 lacunarity = 2.0f,
                          float32 gain = 0.5f) {
    return rt::curl3<3>(state, xyz, octaves, lacunarity, gain);
}
WEFT_RT_FN vec3 curlnoise(uint32 state, const vec4 &xyzt, uint32 octaves = 1u, float32 lacunarity = 2.0f,
                          float32 gain = 0.5f) {
    return rt::curl3<4>(state, xyzt, octaves, lacunarity, gain);
}

} // namespace weft
