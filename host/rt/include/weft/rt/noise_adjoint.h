// weft runtime: adjoints of the noise builtins (noise.h), by adjoint.h's
// convention: adj_<builtin>(inputs..., adj_inputs&..., adj_result). As in
// Warp, only the sample point receives a gradient: the state, the periods and
// curlnoise's octave controls are inputs the field is not differentiated in.
// The noise adjoints add the analytic gradient (Warp's noise_Nd_gradient);
// curlnoise's, being a gradient field already, chain through the Hessian.
#pragma once

#include "weft/rt/noise.h"

namespace weft {
namespace rt {
template <int N> WEFT_RT_FN void adj_noise_at(uint32 state, const noise_cell (&cells)[N], vec_t<N, float32> &adj_x,
                                              float32 r) {
    const vec_t<N, float32> g = noise_gradient<N>(state, cells);
    for (int k = 0; k < N; ++k) adj_x.c[k] += g.c[k] * r;
}

/// curlnoise's vector-Jacobian product: per octave, amplitude * frequency times
/// the curl's rows of the potentials' Hessians, against the result's adjoint.
template <int N>
WEFT_RT_FN void adj_curl(uint32 state, const vec_t<N, float32> &x, uint32 octaves, float32 lacunarity, float32 gain,
                         vec_t<N, float32> &adj_x, const vec_t<N == 2 ? 2 : 3, float32> &r) {
    float32 freq = 1.0f, amplitude = 1.0f;
    for (uint32 i = 0; i < octaves; ++i) {
        vec_t<N, float32> pt;
        for (int k = 0; k < N; ++k) pt.c[k] = freq * x.c[k];
        noise_cell cells[N];
        noise_cells<N>(pt, cells);
        const float32 f = amplitude * freq;
        if constexpr (N == 2) {
            const mat_t<2, 2, float32> h = noise_hessian<2>(state, cells);
            adj_x.c[0] += f * (-h.c[1].c[0] * r.c[0] + h.c[0].c[0] * r.c[1]);
            adj_x.c[1] += f * (-h.c[1].c[1] * r.c[0] + h.c[0].c[1] * r.c[1]);
        } else {
            const mat_t<N, N, float32> h1 = noise_hessian<N>(state, cells);
            state = noise_reseed(state, curl_seed_2);
            const mat_t<N, N, float32> h2 = noise_hessian<N>(state, cells);
            state = noise_reseed(state, curl_seed_3);
            const mat_t<N, N, float32> h3 = noise_hessian<N>(state, cells);
            for (int c = 0; c < N; ++c)
                adj_x.c[c] += f * (r.c[0] * (h3.c[1].c[c] - h2.c[2].c[c]) + r.c[1] * (h1.c[2].c[c] - h3.c[0].c[c]) +
                                   r.c[2] * (h2.c[0].c[c] - h1.c[1].c[c]));
        }
        amplitude *= gain;
        freq *= lacunarity;
    }
}
} // namespace rt

WEFT_RT_FN void adj_noise(uint32 state, float32 x, uint32 &, float32 &adj_x, float32 r) {
    const rt::noise_cell cells[1] = {rt::noise_cell_of(x)};
    vec_t<1, float32> adj;
    rt::adj_noise_at<1>(state, cells, adj, r);
    adj_x += adj.c[0];
}
template <int N>
WEFT_RT_FN void adj_noise(uint32 state, const vec_t<N, float32> &x, uint32 &, vec_t<N, float32> &adj_x, float32 r) {
    rt::noise_cell cells[N];
    rt::noise_cells<N>(x, cells);
    rt::adj_noise_at<N>(state, cells, adj_x, r);
}

WEFT_RT_FN void adj_pnoise(uint32 state, float32 x, int32 px, uint32 &, float32 &adj_x, int32 &, float32 r) {
    const rt::noise_cell cells[1] = {rt::noise_cell_of(x, px)};
    vec_t<1, float32> adj;
    rt::adj_noise_at<1>(state, cells, adj, r);
    adj_x += adj.c[0];
}
WEFT_RT_FN void adj_pnoise(uint32 state, const vec2 &x, int32 px, int32 py, uint32 &, vec2 &adj_x, int32 &, int32 &,
                           float32 r) {
    const int32 period[2] = {px, py};
    rt::noise_cell cells[2];
    rt::noise_cells<2>(x, period, cells);
    rt::adj_noise_at<2>(state, cells, adj_x, r);
}
WEFT_RT_FN void adj_pnoise(uint32 state, const vec3 &x, int32 px, int32 py, int32 pz, uint32 &, vec3 &adj_x, int32 &,
                           int32 &, int32 &, float32 r) {
    const int32 period[3] = {px, py, pz};
    rt::noise_cell cells[3];
    rt::noise_cells<3>(x, period, cells);
    rt::adj_noise_at<3>(state, cells, adj_x, r);
}
WEFT_RT_FN void adj_pnoise(uint32 state, const vec4 &x, int32 px, int32 py, int32 pz, int32 pt, uint32 &, vec4 &adj_x,
                           int32 &, int32 &, int32 &, int32 &, float32 r) {
    const int32 period[4] = {px, py, pz, pt};
    rt::noise_cell cells[4];
    rt::noise_cells<4>(x, period, cells);
    rt::adj_noise_at<4>(state, cells, adj_x, r);
}

// One adjoint per registered arity (the shorter ones take Warp's defaults).
#define WEFT_RT_ADJ_CURL(V, R)                                                                                         \
    WEFT_RT_FN void adj_curlnoise(uint32 state, const V &x, uint32 octaves, float32 lacunarity, float32 gain,         \
                                  uint32 &, V &adj_x, uint32 &, float32 &, float32 &, const R &r) {                    \
        rt::adj_curl(state, x, octaves, lacunarity, gain, adj_x, r);                                                   \
    }                                                                                                                  \
    WEFT_RT_FN void adj_curlnoise(uint32 state, const V &x, uint32 octaves, float32 lacunarity, uint32 &, V &adj_x,    \
                                  uint32 &, float32 &, const R &r) {                                                   \
        rt::adj_curl(state, x, octaves, lacunarity, 0.5f, adj_x, r);                                                   \
    }                                                                                                                  \
    WEFT_RT_FN void adj_curlnoise(uint32 state, const V &x, uint32 octaves, uint32 &, V &adj_x, uint32 &,             \
                                  const R &r) {                                                                        \
        rt::adj_curl(state, x, octaves, 2.0f, 0.5f, adj_x, r);                                                         \
    }                                                                                                                  \
    WEFT_RT_FN void adj_curlnoise(uint32 state, const V &x, uint32 &, V &adj_x, const R &r) {                         \
        rt::adj_curl(state, x, 1u, 2.0f, 0.5f, adj_x, r);                                                              \
    }
WEFT_RT_ADJ_CURL(vec2, vec2)
WEFT_RT_ADJ_CURL(vec3, vec3)
WEFT_RT_ADJ_CURL(vec4, vec3)
#undef WEFT_RT_ADJ_CURL

} // namespace weft
