// Tiles: Warp's cooperative tile model. A tile is a block's array of a
// compile-time shape; every operation writes its destination tile whole.
//
// One text for both devices. On the CPU a block is one task of the thread
// pool and runs each operation as a whole-tile loop (which Clang vectorizes);
// tiles are the block function's locals, so concurrent blocks and launches
// share nothing. On CUDA the block's threads split each loop
// (WEFT_TILE_FOR), tiles live in shared memory, and each operation is fenced
// by __syncthreads on both sides: writes finish before anyone reads, and
// reads of the destination (an earlier t[i, j]) finish before it is written.
// Reductions and scans follow Warp's CPU order (the first element, then each
// next one folded in), so their results are Warp's bit for bit, except the
// sums of large float tiles (tile_lane_sum says why and how); on CUDA one
// thread folds in the same order as the CPU (cooperative trees are a later step).
#pragma once

#include "weft/rt/array.h"

namespace weft {

/// R x C elements, row-major (a 1-D tile of n: R = n, C = 1).
template <typename T, int R, int C> struct tile_t {
    using type = T;
    static constexpr int rows = R, cols = C, count = R * C;
    T data[R * C];
};

// WEFT_TILE_SINGLE_LANE (defined before this header by backward passes): on
// CUDA, thread 0 of each block runs the whole block, as the CPU does (the
// backward entry lets the other threads go), so that the scalar code's
// adjoints and the tiles' run on one thread with no barrier.
#if defined(__CUDA_ARCH__) && !defined(WEFT_TILE_SINGLE_LANE)
#define WEFT_TILE_LANE int(threadIdx.x)
#define WEFT_TILE_LANES int(blockDim.x)
#define WEFT_TILE_SYNC() __syncthreads()
#define WEFT_TILE_SHARED __shared__
#elif defined(__CUDA_ARCH__)
#define WEFT_TILE_LANE 0
#define WEFT_TILE_LANES 1
#define WEFT_TILE_SYNC() ((void)0)
#define WEFT_TILE_SHARED __shared__
#else
#define WEFT_TILE_LANE 0
#define WEFT_TILE_LANES 1
#define WEFT_TILE_SYNC() ((void)0)
#define WEFT_TILE_SHARED
#endif
/// Element indices [0, n) of this thread: all of them on the CPU.
#define WEFT_TILE_FOR(i, n) for (int i = WEFT_TILE_LANE; i < (n); i += WEFT_TILE_LANES)
/// One thread (the CPU's only one) does what follows.
#define WEFT_TILE_ONE if (WEFT_TILE_LANE == 0)

namespace rt {
template <typename T> WEFT_RT_FN T tile_fma(T a, T b, T c) {
    // Warp's tile_matmul accumulates with fma; without hardware FMA (the
    // CPU's default x86-64 target) a multiply and an add, within one rounding.
#if defined(__CUDA_ARCH__)
    return fma(a, b, c);
#elif defined(__FMA__)
    if constexpr (same<T, float32>::value) return __builtin_fmaf(a, b, c);
    else return __builtin_fma(a, b, c);
#else
    return c + a * b;
#endif
}
/// Whether array index i is inside [0, n).
WEFT_RT_FN bool tile_inside(long long i, int32 n) { return i >= 0 && i < n; }
/// The element of `a` that element e of a tile of S's shape placed at (o0, o1)
/// falls on (a 1-D array: o0 alone), or null when it falls outside the array.
template <typename S, typename T> WEFT_RT_FN T *tile_target(const array_t<T> &a, int32 o0, int32 o1, int e) {
    const int64 r = int64(o0) + e / S::cols, c = int64(o1) + e % S::cols;
    if (a.ndim > 1) return tile_inside(r, a.shape[0]) && tile_inside(c, a.shape[1]) ? &index_nn(a, int32(r), int32(c)) : nullptr;
    return tile_inside(r, a.shape[0]) ? &index_nn(a, int32(r)) : nullptr;
}
} // namespace rt

template <typename D> WEFT_RT_FN void tile_fill(D &dst, typename D::type v) {
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(i, D::count) dst.data[i] = v;
    WEFT_TILE_SYNC();
}

template <typename D> WEFT_RT_FN void tile_arange(D &dst, typename D::type start, typename D::type step) {
    using T = typename D::type;
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(i, D::count) dst.data[i] = T(start + T(i) * step);
    WEFT_TILE_SYNC();
}

template <typename D, typename S> WEFT_RT_FN void tile_copy(D &dst, const S &src) {
    static_assert(D::count == S::count, "weft: tile_copy of different sizes");
    if (static_cast<const void *>(&dst) == static_cast<const void *>(&src)) return;
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(i, D::count) dst.data[i] = src.data[i];
    WEFT_TILE_SYNC();
}

/// Element (i, j) from a[o0 + i, o1 + j]; outside the array: zero (Warp's bounds_check).
template <typename D, typename T> WEFT_RT_FN void tile_load(D &dst, const array_t<T> &a, int32 o0) {
    WEFT_TILE_SYNC();
#if !defined(__CUDA_ARCH__)
    if (o0 >= 0 && int64(o0) + D::count <= a.shape[0] && a.strides[0] == int64(sizeof(T))) {
        const T *in = a.data + o0; // dense and inside: one contiguous copy
        for (int i = 0; i < D::count; ++i) dst.data[i] = in[i];
        return;
    }
#endif
    WEFT_TILE_FOR(i, D::count) {
        const int64 k = int64(o0) + i;
        dst.data[i] = rt::tile_inside(k, a.shape[0]) ? index_nn(a, int32(k)) : T();
    }
    WEFT_TILE_SYNC();
}
template <typename D, typename T> WEFT_RT_FN void tile_load(D &dst, const array_t<T> &a, int32 o0, int32 o1) {
    WEFT_TILE_SYNC();
#if defined(__CUDA_ARCH__)
    WEFT_TILE_FOR(e, D::count) {
        const int i = e / D::cols, j = e % D::cols;
        const int64 r = int64(o0) + i, c = int64(o1) + j;
        dst.data[e] = rt::tile_inside(r, a.shape[0]) && rt::tile_inside(c, a.shape[1]) ? index_nn(a, int32(r), int32(c)) : T();
    }
#else
    // Row by row: a dense row inside the array is one contiguous copy.
    for (int i = 0; i < D::rows; ++i) {
        const int64 r = int64(o0) + i;
        T *out = dst.data + i * D::cols;
        if (!rt::tile_inside(r, a.shape[0])) {
            for (int j = 0; j < D::cols; ++j) out[j] = T();
            continue;
        }
        const char *row = reinterpret_cast<const char *>(a.data) + r * a.strides[0];
        if (o1 >= 0 && int64(o1) + D::cols <= a.shape[1] && a.strides[1] == int64(sizeof(T))) {
            const T *in = reinterpret_cast<const T *>(row) + o1;
            for (int j = 0; j < D::cols; ++j) out[j] = in[j];
        } else {
            for (int j = 0; j < D::cols; ++j) {
                const int64 c = int64(o1) + j;
                out[j] = rt::tile_inside(c, a.shape[1]) ? *reinterpret_cast<const T *>(row + c * a.strides[1]) : T();
            }
        }
    }
#endif
    WEFT_TILE_SYNC();
}

/// a[o0 + i, o1 + j] = element (i, j) where that is inside the array.
template <typename S, typename T> WEFT_RT_FN void tile_store(const array_t<T> &a, const S &src, int32 o0) {
    WEFT_TILE_SYNC();
#if !defined(__CUDA_ARCH__)
    if (o0 >= 0 && int64(o0) + S::count <= a.shape[0] && a.strides[0] == int64(sizeof(T))) {
        T *out = a.data + o0;
        for (int i = 0; i < S::count; ++i) out[i] = src.data[i];
        return;
    }
#endif
    WEFT_TILE_FOR(i, S::count) {
        const int64 k = int64(o0) + i;
        if (rt::tile_inside(k, a.shape[0])) index_nn(a, int32(k)) = src.data[i];
    }
    WEFT_TILE_SYNC();
}
template <typename S, typename T> WEFT_RT_FN void tile_store(const array_t<T> &a, const S &src, int32 o0, int32 o1) {
    WEFT_TILE_SYNC();
#if defined(__CUDA_ARCH__)
    WEFT_TILE_FOR(e, S::count) {
        const int i = e / S::cols, j = e % S::cols;
        const int64 r = int64(o0) + i, c = int64(o1) + j;
        if (rt::tile_inside(r, a.shape[0]) && rt::tile_inside(c, a.shape[1])) index_nn(a, int32(r), int32(c)) = src.data[e];
    }
#else
    for (int i = 0; i < S::rows; ++i) {
        const int64 r = int64(o0) + i;
        if (!rt::tile_inside(r, a.shape[0])) continue;
        const T *in = src.data + i * S::cols;
        char *row = reinterpret_cast<char *>(a.data) + r * a.strides[0];
        if (o1 >= 0 && int64(o1) + S::cols <= a.shape[1] && a.strides[1] == int64(sizeof(T))) {
            T *out = reinterpret_cast<T *>(row) + o1;
            for (int j = 0; j < S::cols; ++j) out[j] = in[j];
        } else {
            for (int j = 0; j < S::cols; ++j) {
                const int64 c = int64(o1) + j;
                if (rt::tile_inside(c, a.shape[1])) *reinterpret_cast<T *>(row + c * a.strides[1]) = in[j];
            }
        }
    }
#endif
    WEFT_TILE_SYNC();
}

/// Atomic a[o + (i, j)] += element (i, j) inside the array; `old` (when given) gets the values before (zero outside).
template <typename O, typename S, typename T>
WEFT_RT_FN void tile_atomic_add(O *old, const array_t<T> &a, const S &src, int32 o0, int32 o1 = 0) {
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(e, S::count) {
        T *target = rt::tile_target<S>(a, o0, o1, e);
        const T previous = target ? rt::atomic<rt::op_add>(target, src.data[e]) : T();
        if (old) old->data[e] = previous;
    }
    WEFT_TILE_SYNC();
}

template <typename D, typename S> WEFT_RT_FN void tile_astype(D &dst, const S &src) {
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(e, D::count) dst.data[e] = static_cast<typename D::type>(src.data[e]);
    WEFT_TILE_SYNC();
}

template <typename D, typename S> WEFT_RT_FN void tile_transpose(D &dst, const S &src) {
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(e, D::count) {
        const int i = e / D::cols, j = e % D::cols;
        dst.data[e] = src.data[j * S::cols + i];
    }
    WEFT_TILE_SYNC();
}

/// numpy.broadcast_to: a source dimension of 1 repeats. S is 1-D (n) or 2-D; D 1-D or 2-D.
template <int SDims, int DDims, typename D, typename S> WEFT_RT_FN void tile_broadcast(D &dst, const S &src) {
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(e, D::count) {
        const int i = e / D::cols, j = e % D::cols;
        int k;
        if (SDims == 2) k = (S::rows == 1 ? 0 : i) * S::cols + (S::cols == 1 ? 0 : j);
        else if (DDims == 2) k = S::rows == 1 ? 0 : j; // a 1-D source aligns with the last dimension
        else k = S::rows == 1 ? 0 : i;
        dst.data[e] = src.data[k];
    }
    WEFT_TILE_SYNC();
}

template <typename S> WEFT_RT_FN typename S::type tile_extract(const S &t, int32 i) { return t.data[i]; }
template <typename S> WEFT_RT_FN typename S::type tile_extract(const S &t, int32 i, int32 j) {
    return t.data[i * S::cols + j];
}
/// print(t): the elements, rows on lines of their own, then the shape, as
/// Warp prints a tile ("[[0.5 1]\n [2 2.5]] = tile(shape=(2,2))"); one line
/// per block (its first lane prints).
template <int Dims, typename S> WEFT_RT_FN void print_tile(const S &t) {
    if (WEFT_TILE_LANE != 0) return;
    const rt::LineLock line;
    printf("[");
    for (int i = 0; i < (Dims == 2 ? S::rows : 1); ++i) {
        if (Dims == 2) printf(i ? "\n [" : "[");
        for (int j = 0; j < (Dims == 2 ? S::cols : S::rows); ++j) {
            if (j) printf(" ");
            rt::pv(t.data[Dims == 2 ? i * S::cols + j : j], false);
        }
        if (Dims == 2) printf("]");
    }
    if (Dims == 2) printf("] = tile(shape=(%d,%d))\n", S::rows, S::cols);
    else printf("] = tile(shape=(%d))\n", S::rows);
}

/// t[i] / t[i, j] in debug mode: each index inside the tile, else a failure
/// reported like an array's (rt/checked.h, "tile 't' index ...") and zero.
template <typename S, typename... I>
WEFT_RT_FN typename S::type tile_extract_checked(const S &t, const char *tile, const char *kernel, const char *file,
                                                 int32 line, int64 thread, I... i) {
    const int32 index[] = {int32(i)...};
    constexpr int n = int(sizeof...(I));
    const int32 shape[] = {S::rows, S::cols};
    bool inside = true;
    for (int d = 0; d < n; ++d) inside = inside && index[d] >= 0 && index[d] < shape[d];
    if (inside) return t.data[n == 1 ? index[0] : index[0] * S::cols + index[n - 1]];
    rt::bounds_failure(tile, kernel, file, line, thread, index, n, shape, n, "tile");
    return typename S::type();
}

/// f (a function object) folded over the elements in order (Warp's CPU order): a (1,) tile.
template <typename D, typename F, typename S> WEFT_RT_FN void tile_reduce(D &dst, F f, const S &src) {
    WEFT_TILE_SYNC();
    WEFT_TILE_ONE {
        typename S::type acc = src.data[0];
        for (int e = 1; e < S::count; ++e) acc = f(acc, src.data[e]);
        dst.data[0] = acc;
    }
    WEFT_TILE_SYNC();
}
namespace rt {
// Function objects, not lambdas: NVRTC compiles no lambda in device code.
struct tile_add_op {
    template <typename T> WEFT_RT_FN T operator()(T a, T b) const { return add(a, b); }
};
struct tile_min_op {
    template <typename T> WEFT_RT_FN T operator()(T a, T b) const { return min(a, b); }
};
struct tile_max_op {
    template <typename T> WEFT_RT_FN T operator()(T a, T b) const { return max(a, b); }
};
} // namespace rt
namespace rt {
/// The sum (Dot: of the products with b's elements) of a float32 /
/// float64 tile of at least 2 * Lanes elements (tile_lanes): Lanes
/// running sums (element e goes to sum e % Lanes), then halves added pairwise
/// (sum k + sum k + w, for w = Lanes / 2 down to 1). Warp's CPU adds the
/// elements one after another; that chain runs at one add per add latency
/// (the 2^26-float reduction at 0.14x a vectorized loop), this order at the
/// machine's add throughput. The results differ by rounding only (the same
/// elements, summed in another order); integer sums are exact in any order
/// and keep the one-after-another fold.
template <bool Dot, typename S> WEFT_RT_FN typename S::type tile_lane_sum(const S &a, const S &b) {
    using T = typename S::type;
    constexpr int Lanes = same<T, float32>::value ? 64 : 32;
    T part[Lanes];
    for (int k = 0; k < Lanes; ++k) part[k] = Dot ? a.data[k] * b.data[k] : a.data[k];
    int e = Lanes;
    for (; e + Lanes <= S::count; e += Lanes) {
        const T *x = a.data + e, *y = b.data + e;
        for (int k = 0; k < Lanes; ++k) part[k] = part[k] + (Dot ? x[k] * y[k] : x[k]);
    }
    for (int k = 0; e + k < S::count; ++k) part[k] = part[k] + (Dot ? a.data[e + k] * b.data[e + k] : a.data[e + k]);
    for (int w = Lanes / 2; w >= 1; w /= 2)
        for (int k = 0; k < w; ++k) part[k] = part[k] + part[k + w];
    return part[0];
}
template <typename S>
constexpr bool tile_lanes = (same<typename S::type, float32>::value && S::count >= 128) ||
                            (same<typename S::type, float64>::value && S::count >= 64);
} // namespace rt
template <typename D, typename S> WEFT_RT_FN void tile_sum(D &dst, const S &src) {
    if constexpr (rt::tile_lanes<S>) {
        WEFT_TILE_SYNC();
        WEFT_TILE_ONE dst.data[0] = rt::tile_lane_sum<false>(src, src);
        WEFT_TILE_SYNC();
    } else {
        tile_reduce(dst, rt::tile_add_op{}, src);
    }
}
template <typename D, typename S> WEFT_RT_FN void tile_min(D &dst, const S &src) { tile_reduce(dst, rt::tile_min_op{}, src); }
template <typename D, typename S> WEFT_RT_FN void tile_max(D &dst, const S &src) { tile_reduce(dst, rt::tile_max_op{}, src); }
/// Sums along `Axis` of a 2-D tile, each in order: a 1-D tile of the other dimension.
template <int Axis, typename D, typename S> WEFT_RT_FN void tile_sum_axis(D &dst, const S &src) {
    WEFT_TILE_SYNC();
    constexpr int n = Axis == 0 ? S::cols : S::rows, len = Axis == 0 ? S::rows : S::cols;
    WEFT_TILE_FOR(o, n) {
        typename S::type acc = src.data[Axis == 0 ? o : o * S::cols];
        for (int k = 1; k < len; ++k) acc = add(acc, src.data[Axis == 0 ? k * S::cols + o : o * S::cols + k]);
        dst.data[o] = acc;
    }
    WEFT_TILE_SYNC();
}
/// The row-major index of the first smallest (Less: a < b) or largest element.
template <bool Min, typename D, typename S> WEFT_RT_FN void tile_arg_extreme(D &dst, const S &src) {
    WEFT_TILE_SYNC();
    WEFT_TILE_ONE {
        int best = 0;
        for (int e = 1; e < S::count; ++e)
            if (Min ? src.data[e] < src.data[best] : src.data[best] < src.data[e]) best = e;
        dst.data[0] = best;
    }
    WEFT_TILE_SYNC();
}

/// Running sums in row-major order; exclusive: each without its own element (the first is 0).
template <bool Inclusive, typename D, typename S> WEFT_RT_FN void tile_scan(D &dst, const S &src) {
    using T = typename S::type;
    WEFT_TILE_SYNC();
    WEFT_TILE_ONE {
        T acc = src.data[0];
        T previous = T(0);
        dst.data[0] = Inclusive ? acc : T(0);
        for (int e = 1; e < S::count; ++e) {
            previous = acc;
            acc = add(acc, src.data[e]);
            dst.data[e] = Inclusive ? acc : previous;
        }
    }
    WEFT_TILE_SYNC();
}

template <typename D, typename S> WEFT_RT_FN void tile_dot(D &dst, const S &a, const S &b) {
    WEFT_TILE_SYNC();
    if constexpr (rt::tile_lanes<S>) {
        WEFT_TILE_ONE dst.data[0] = rt::tile_lane_sum<true>(a, b);
    } else WEFT_TILE_ONE {
        typename S::type acc = mul(a.data[0], b.data[0]);
        for (int e = 1; e < S::count; ++e) acc = add(acc, mul(a.data[e], b.data[e]));
        dst.data[0] = acc;
    }
    WEFT_TILE_SYNC();
}

/// dest += alpha src.
template <typename S> WEFT_RT_FN void tile_axpy(typename S::type alpha, const S &src, S &dest) {
    WEFT_TILE_SYNC();
    WEFT_TILE_FOR(e, S::count) dest.data[e] = add(dest.data[e], mul(alpha, src.data[e]));
    WEFT_TILE_SYNC();
}

/// C = alpha A B (+ beta C when Accumulate). Each element's products are summed
/// in k order with fma from zero, then scaled, as Warp's scalar GEMM.
template <bool Accumulate, typename TC, typename TA, typename TB>
WEFT_RT_FN void tile_gemm(TC &c, const TA &a, const TB &b, typename TC::type alpha, typename TC::type beta) {
    using T = typename TC::type;
    constexpr int M = TA::rows, K = TA::cols, N = TB::cols;
    WEFT_TILE_SYNC();
#if defined(__CUDA_ARCH__)
    WEFT_TILE_FOR(e, M * N) {
        const int i = e / N, j = e % N;
        T sum = T(0);
        for (int k = 0; k < K; ++k) sum = rt::tile_fma(a.data[i * K + k], b.data[k * N + j], sum);
        c.data[e] = Accumulate && beta != T(0) ? T(alpha * sum + beta * c.data[e]) : T(alpha * sum);
    }
#else
    // Register blocks of RB rows x NB columns (8 AVX registers of sums for
    // float32): per k, RB broadcasts of A and NB / 8 vectors of B's row feed
    // RB * NB fmas, with the sums never leaving registers.
    constexpr int RB = 4, NB = N < 16 ? N : 16;
    for (int i0 = 0; i0 < M; i0 += RB) {
        const int rb = M - i0 < RB ? M - i0 : RB;
        for (int j0 = 0; j0 < N; j0 += NB) {
            const int nb = N - j0 < NB ? N - j0 : NB;
            T sum[RB][NB];
            for (int r = 0; r < RB; ++r)
                for (int j = 0; j < NB; ++j) sum[r][j] = T(0);
            if (rb == RB && nb == NB) {
                for (int k = 0; k < K; ++k) {
                    const T *brow = b.data + k * N + j0;
                    for (int r = 0; r < RB; ++r) {
                        const T x = a.data[(i0 + r) * K + k];
                        for (int j = 0; j < NB; ++j) sum[r][j] = rt::tile_fma(x, brow[j], sum[r][j]);
                    }
                }
            } else {
                for (int k = 0; k < K; ++k) {
                    const T *brow = b.data + k * N + j0;
                    for (int r = 0; r < rb; ++r) {
                        const T x = a.data[(i0 + r) * K + k];
                        for (int j = 0; j < nb; ++j) sum[r][j] = rt::tile_fma(x, brow[j], sum[r][j]);
                    }
                }
            }
            for (int r = 0; r < rb; ++r)
                for (int j = 0; j < nb; ++j) {
                    T &out = c.data[(i0 + r) * N + j0 + j];
                    out = Accumulate && beta != T(0) ? T(alpha * sum[r][j] + beta * out) : T(alpha * sum[r][j]);
                }
        }
    }
#endif
    WEFT_TILE_SYNC();
}

} // namespace weft
