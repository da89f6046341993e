// weft runtime: the adjoints of the tile operations (rt/tile.h), for the
// backward passes of tile kernels. Each adds the adjoint of an operation's
// result (`g`, a tile) to its operands' adjoints. Backward passes run each
// block on one lane (WEFT_TILE_SINGLE_LANE), so these loops run whole.
#pragma once

#include "weft/rt/tile.h"

namespace weft {

/// adj += g, element by element (the same element count).
template <typename A, typename G> WEFT_RT_FN void tile_adj_add(A &adj, const G &g) {
    static_assert(A::count == G::count, "weft: tile adjoint of another size");
    for (int e = 0; e < A::count; ++e) adj.data[e] = adj.data[e] + static_cast<typename A::type>(g.data[e]);
}

/// adj *= s (out = alpha a b + beta out: the old out's adjoint is beta times the new one's).
template <typename A> WEFT_RT_FN void tile_adj_scale(A &adj, typename A::type s) {
    for (int e = 0; e < A::count; ++e) adj.data[e] = adj.data[e] * s;
}

/// The sum of g's elements (the adjoint of a value every element was made from).
template <typename G> WEFT_RT_FN typename G::type tile_adj_total(const G &g) {
    typename G::type s = typename G::type(0);
    for (int e = 0; e < G::count; ++e) s = s + g.data[e];
    return s;
}

/// The sum of g * t, element by element (a scalar factor's adjoint: alpha in axpy and matmul).
template <typename G, typename T> WEFT_RT_FN typename G::type tile_adj_inner(const G &g, const T &t) {
    typename G::type s = typename G::type(0);
    for (int e = 0; e < G::count; ++e) s = s + g.data[e] * t.data[e];
    return s;
}

/// tile_load's adjoint: g added to the gradient array from the offset (Atomic: blocks running
/// at once load overlapping parts of the array; not when the launch gives each range of blocks
/// a private copy), elements outside it dropped, nothing without a gradient array.
template <bool Atomic, typename G, typename T>
WEFT_RT_FN void tile_adj_load(const array_t<T> &grad, const G &g, int32 o0, int32 o1 = 0) {
    if (!grad.data) return;
    if (Atomic) return tile_atomic_add(static_cast<G *>(nullptr), grad, g, o0, o1);
    for (int e = 0; e < G::count; ++e)
        if (T *x = rt::tile_target<G>(grad, o0, o1, e)) *x = *x + g.data[e];
}

/// tile_store's adjoint: the gradient array's elements from the offset added to adj (outside: nothing).
template <typename A, typename T> WEFT_RT_FN void tile_adj_store(A &adj, const array_t<T> &grad, int32 o0, int32 o1 = 0) {
    if (!grad.data) return;
    for (int e = 0; e < A::count; ++e)
        if (const T *x = rt::tile_target<A>(grad, o0, o1, e)) adj.data[e] = adj.data[e] + *x;
}

template <typename A, typename G> WEFT_RT_FN void tile_adj_transpose(A &adj, const G &g) {
    for (int e = 0; e < G::count; ++e) {
        const int i = e / G::cols, j = e % G::cols;
        adj.data[j * A::cols + i] = adj.data[j * A::cols + i] + g.data[e];
    }
}

/// tile_broadcast's adjoint: each result element's adjoint added to the source element it repeats.
template <int SDims, int DDims, typename A, typename G> WEFT_RT_FN void tile_adj_broadcast(A &adj, const G &g) {
    for (int e = 0; e < G::count; ++e) {
        const int i = e / G::cols, j = e % G::cols;
        int k;
        if (SDims == 2) k = (A::rows == 1 ? 0 : i) * A::cols + (A::cols == 1 ? 0 : j);
        else if (DDims == 2) k = A::rows == 1 ? 0 : j;
        else k = A::rows == 1 ? 0 : i;
        adj.data[k] = adj.data[k] + g.data[e];
    }
}

/// tile_sum's adjoint: the sum's adjoint added to every element.
template <typename A, typename G> WEFT_RT_FN void tile_adj_sum(A &adj, const G &g) {
    for (int e = 0; e < A::count; ++e) adj.data[e] = adj.data[e] + g.data[0];
}
template <int Axis, typename A, typename G> WEFT_RT_FN void tile_adj_sum_axis(A &adj, const G &g) {
    for (int e = 0; e < A::count; ++e) {
        const int i = e / A::cols, j = e % A::cols;
        adj.data[e] = adj.data[e] + g.data[Axis == 0 ? j : i];
    }
}

/// tile_min / tile_max's adjoint: to the element chosen (the first extreme, as the forward pass).
template <bool Min, typename A, typename S, typename G> WEFT_RT_FN void tile_adj_extreme(A &adj, const S &src, const G &g) {
    int best = 0;
    for (int e = 1; e < S::count; ++e)
        if (Min ? src.data[e] < src.data[best] : src.data[best] < src.data[e]) best = e;
    adj.data[best] = adj.data[best] + g.data[0];
}

/// A scan's adjoint: element i gets the adjoints of every result that includes it.
template <bool Inclusive, typename A, typename G> WEFT_RT_FN void tile_adj_scan(A &adj, const G &g) {
    typename G::type acc = typename G::type(0);
    for (int e = A::count - 1; e >= 0; --e) {
        if (Inclusive) acc = acc + g.data[e];
        adj.data[e] = adj.data[e] + acc;
        if (!Inclusive) acc = acc + g.data[e];
    }
}

/// C = alpha A B: A's adjoint += alpha G B^T, B's += alpha A^T G.
template <typename AA, typename AB, typename TA, typename TB, typename G>
WEFT_RT_FN void tile_adj_matmul(AA &adj_a, AB &adj_b, const TA &a, const TB &b, const G &g, typename G::type alpha) {
    using T = typename G::type;
    constexpr int M = TA::rows, K = TA::cols, N = TB::cols;
    // Both as sums of scaled rows, the inner loops contiguous and independent
    // (vectorized): A's adjoint row i gathers G[i, j] B^T's row j.
    T bt[N * K];
    for (int k = 0; k < K; ++k)
        for (int j = 0; j < N; ++j) bt[j * K + k] = b.data[k * N + j];
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            const T x = alpha * g.data[i * N + j];
            for (int k = 0; k < K; ++k) adj_a.data[i * K + k] = adj_a.data[i * K + k] + x * bt[j * K + k];
        }
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            const T x = alpha * a.data[i * K + k];
            for (int j = 0; j < N; ++j) adj_b.data[k * N + j] = adj_b.data[k * N + j] + x * g.data[i * N + j];
        }
}

/// alpha's adjoint in C = alpha A B (+ ...): the sum of G * (A B).
template <typename TA, typename TB, typename G> WEFT_RT_FN typename G::type tile_adj_matmul_alpha(const TA &a, const TB &b, const G &g) {
    using T = typename G::type;
    constexpr int M = TA::rows, K = TA::cols, N = TB::cols;
    T s = T(0);
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            T ab = T(0);
            for (int k = 0; k < K; ++k) ab = ab + a.data[i * K + k] * b.data[k * N + j];
            s = s + g.data[i * N + j] * ab;
        }
    return s;
}

/// d = sum(a * b): a's adjoint += g b, b's += g a.
template <typename A, typename S, typename G>
WEFT_RT_FN void tile_adj_dot(A &adj_a, A &adj_b, const S &a, const S &b, const G &g) {
    for (int e = 0; e < S::count; ++e) {
        adj_a.data[e] = adj_a.data[e] + g.data[0] * b.data[e];
        adj_b.data[e] = adj_b.data[e] + g.data[0] * a.data[e];
    }
}

} // namespace weft
