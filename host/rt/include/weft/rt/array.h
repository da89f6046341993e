// weft runtime: array views, element access, len, select/where and atomics.
#pragma once

#include "weft/rt/linalg.h"

namespace weft {

/// A kernel array view. The host packs it byte by byte, so this layout is a
/// contract (weft::ArrayViewLayout on the host): data @0, shape @8,
/// strides @24 (in BYTES), ndim @56; size 64, alignment 8.
template <typename T> struct array_t {
    T *data;
    int32 shape[4];
    int64 strides[4];
    int32 ndim;
    /// a[i] along the first dimension, as Warp's array_t has it: for
    /// @wp.func_native snippets written against Warp (generated code uses index()).
    WEFT_RT_FN T &operator[](int32 i) const {
        return *reinterpret_cast<T *>(reinterpret_cast<char *>(data) + i * strides[0]);
    }
};
static_assert(sizeof(array_t<float32>) == 64 && alignof(array_t<float32>) == 8, "weft: array_t layout");

namespace rt {
/// wp.zeros(shape, dtype) in a kernel or function (Warp's fixed-size array):
/// `storage`, in the caller's frame, zeroed and seen as a row-major array of
/// `shape` (unused dimensions 0, as Warp's). Each evaluation zeroes it again.
template <typename T, int N>
WEFT_RT_FN array_t<T> fixed_array(T (&storage)[N], int32 s0, int32 s1 = 0, int32 s2 = 0, int32 s3 = 0) {
    for (int i = 0; i < N; ++i) storage[i] = T{};
    array_t<T> a{};
    a.data = storage;
    const int32 s[4] = {s0, s1, s2, s3};
    a.ndim = s3 ? 4 : s2 ? 3 : s1 ? 2 : 1;
    int64 stride = int64(sizeof(T));
    for (int d = a.ndim - 1; d >= 0; --d) {
        a.shape[d] = s[d];
        a.strides[d] = stride;
        stride *= s[d];
    }
    return a;
}
} // namespace rt

/// The launch grid a CPU entry point receives (C layout; the host's
/// weft_runtime fills it): ndim @0, shape @4 (unused dimensions 0),
/// size @24 = the product of the used shape; size 32, alignment 8.
/// A module's CPU entry for a kernel is
///   extern "C" void ENTRY(const weft::launch_t *launch, void *const *args, long long begin, long long end);
/// and runs the linear thread indices [begin, end) of [0, size), row-major.
struct launch_t {
    int32 ndim;
    int32 shape[4];
    int32 block_dim; // threads per block: a tiled launch's block_dim; 1 in other CPU launches
    int64 size;
};
static_assert(sizeof(launch_t) == 32 && alignof(launch_t) == 8, "weft: launch_t layout");

/// a[i], a[i, j], ... for indices known not to be negative (the code
/// generator proves it: tid() values, counters of ranges that start at 0 or
/// above, non-negative literals): the element at data + sum(index * stride)
/// bytes, no bounds check.
template <typename T> WEFT_RT_FN T &index_nn(const array_t<T> &a, int32 i) {
    return *reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + i * a.strides[0]);
}
template <typename T> WEFT_RT_FN T &index_nn(const array_t<T> &a, int32 i, int32 j) {
    return *reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + i * a.strides[0] + j * a.strides[1]);
}
template <typename T> WEFT_RT_FN T &index_nn(const array_t<T> &a, int32 i, int32 j, int32 k) {
    return *reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + i * a.strides[0] + j * a.strides[1] +
                                  k * a.strides[2]);
}
template <typename T> WEFT_RT_FN T &index_nn(const array_t<T> &a, int32 i, int32 j, int32 k, int32 l) {
    return *reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + i * a.strides[0] + j * a.strides[1] +
                                  k * a.strides[2] + l * a.strides[3]);
}

namespace rt {
/// Warp's rule: a negative index counts from the end of its dimension (a[-1] is the last element).
WEFT_RT_FN int32 wrap(int32 i, int32 n) { return i < 0 ? i + n : i; }
} // namespace rt

/// a[i], a[i, j], ...: index_nn after Warp's negative-index rule (no bounds check).
template <typename T> WEFT_RT_FN T &index(const array_t<T> &a, int32 i) {
    return index_nn(a, rt::wrap(i, a.shape[0]));
}
template <typename T> WEFT_RT_FN T &index(const array_t<T> &a, int32 i, int32 j) {
    return index_nn(a, rt::wrap(i, a.shape[0]), rt::wrap(j, a.shape[1]));
}
template <typename T> WEFT_RT_FN T &index(const array_t<T> &a, int32 i, int32 j, int32 k) {
    return index_nn(a, rt::wrap(i, a.shape[0]), rt::wrap(j, a.shape[1]), rt::wrap(k, a.shape[2]));
}
template <typename T> WEFT_RT_FN T &index(const array_t<T> &a, int32 i, int32 j, int32 k, int32 l) {
    return index_nn(a, rt::wrap(i, a.shape[0]), rt::wrap(j, a.shape[1]), rt::wrap(k, a.shape[2]),
                    rt::wrap(l, a.shape[3]));
}

/// index_nn() for code specialized on contiguous arrays: with Contig, the last
/// dimension's stride is sizeof(T) (the caller checked), a constant the
/// compiler can vectorize over; without, exactly index_nn().
template <bool Contig, typename T> WEFT_RT_FN T &index_nn_c(const array_t<T> &a, int32 i) {
    if constexpr (Contig) return a.data[i];
    else return index_nn(a, i);
}
template <bool Contig, typename T> WEFT_RT_FN T &index_nn_c(const array_t<T> &a, int32 i, int32 j) {
    if constexpr (Contig) return reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + i * a.strides[0])[j];
    else return index_nn(a, i, j);
}
template <bool Contig, typename T> WEFT_RT_FN T &index_nn_c(const array_t<T> &a, int32 i, int32 j, int32 k) {
    if constexpr (Contig)
        return reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + i * a.strides[0] + j * a.strides[1])[k];
    else return index_nn(a, i, j, k);
}
template <bool Contig, typename T> WEFT_RT_FN T &index_nn_c(const array_t<T> &a, int32 i, int32 j, int32 k, int32 l) {
    if constexpr (Contig)
        return reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + i * a.strides[0] + j * a.strides[1] +
                                     k * a.strides[2])[l];
    else return index_nn(a, i, j, k, l);
}
/// index_nn_c() after Warp's negative-index rule.
template <bool Contig, typename T> WEFT_RT_FN T &index_c(const array_t<T> &a, int32 i) {
    return index_nn_c<Contig>(a, rt::wrap(i, a.shape[0]));
}
template <bool Contig, typename T> WEFT_RT_FN T &index_c(const array_t<T> &a, int32 i, int32 j) {
    return index_nn_c<Contig>(a, rt::wrap(i, a.shape[0]), rt::wrap(j, a.shape[1]));
}
template <bool Contig, typename T> WEFT_RT_FN T &index_c(const array_t<T> &a, int32 i, int32 j, int32 k) {
    return index_nn_c<Contig>(a, rt::wrap(i, a.shape[0]), rt::wrap(j, a.shape[1]), rt::wrap(k, a.shape[2]));
}
template <bool Contig, typename T> WEFT_RT_FN T &index_c(const array_t<T> &a, int32 i, int32 j, int32 k, int32 l) {
    return index_nn_c<Contig>(a, rt::wrap(i, a.shape[0]), rt::wrap(j, a.shape[1]), rt::wrap(k, a.shape[2]),
                              rt::wrap(l, a.shape[3]));
}
/// Whether an array's last dimension is dense (what index_c<true> assumes).
/// A switch, not strides[ndim - 1]: indexing a kernel parameter by a runtime
/// value copies it to the CUDA thread's local memory.
template <typename T> WEFT_RT_FN bool innermost_dense(const array_t<T> &a) {
    constexpr int64 dense = static_cast<int64>(sizeof(T));
    switch (a.ndim) {
    case 0: return true;
    case 1: return a.strides[0] == dense;
    case 2: return a.strides[1] == dense;
    case 3: return a.strides[2] == dense;
    default: return a.strides[3] == dense;
    }
}

#if !WEFT_RT_CUDA
// Provided by the host to JIT'd CPU code (host/rt/rt_calls.cpp); CUDA
// code never tests it. Tested once per chunk of a CPU launch, it was a sixth
// of a small kernel's code and of its compile time when each unit compiled it.
extern "C" bool weft_rt_disjoint(const void *a, unsigned long long a_element_size, const void *b,
                                 unsigned long long b_element_size);
/// Whether no byte of one array's elements is a byte of the other's: then a
/// store through one never changes what the other reads.
template <typename A, typename B> WEFT_RT_FN bool disjoint(const array_t<A> &a, const array_t<B> &b) {
    return weft_rt_disjoint(&a, sizeof(A), &b, sizeof(B));
}
/// disjoint() on copies, for a run function whose loop calls the host
/// (deferred atomics): an array whose own address left the function is
/// reloaded from memory (data, shape, strides) after every such call, per
/// element (the histogram ran at 0.87x the hand-written loop, 0.95x with
/// copies). Not for the others: knowing more about the arrays, the compiler
/// spends more on them (the 2-D stencil compiled in 198M instructions
/// instead of 154M, and ran no faster).
template <typename A, typename B> WEFT_RT_FN bool disjoint_copies(const array_t<A> &a, const array_t<B> &b) {
    const array_t<A> x = a;
    const array_t<B> y = b;
    return weft_rt_disjoint(&x, sizeof(A), &y, sizeof(B));
}
#endif

/// Warp's indexedarray_t: the array `arr` read through, per dimension, an
/// int32 index array (null: that dimension is not indexed); `shape` is the
/// indexed shape (an index array's length, else arr's extent). The host packs
/// it (weft::IndexedArrayLayout): arr @0, indices @64, shape @96; size 112.
template <typename T> struct indexedarray_t {
    array_t<T> arr;
    int32 *indices[4];
    int32 shape[4];
};
static_assert(sizeof(indexedarray_t<float32>) == 112 && alignof(indexedarray_t<float32>) == 8,
              "weft: indexedarray_t layout");

namespace rt {
/// arr's element at k[0..N) (none negative).
template <typename T, int N> WEFT_RT_FN T &element_at(const array_t<T> &arr, const int32 (&k)[N]) {
    char *p = reinterpret_cast<char *>(arr.data);
    for (int d = 0; d < N; ++d) p += int64(k[d]) * arr.strides[d];
    return *reinterpret_cast<T *>(p);
}
/// Position k[d] of an indexed array (not negative) in its base array's dimension d.
template <typename T> WEFT_RT_FN int32 through(const indexedarray_t<T> &a, int d, int32 k) {
    return a.indices[d] ? a.indices[d][k] : k;
}
/// The base element of indexed position k[0..N) (none negative).
template <typename T, int N> WEFT_RT_FN T &indexed_element(const indexedarray_t<T> &a, const int32 (&k)[N]) {
    int32 base[N];
    for (int d = 0; d < N; ++d) base[d] = through(a, d, k[d]);
    return element_at(a.arr, base);
}
} // namespace rt

/// index_nn() / index() of an indexed array: positions count in the indexed
/// shape (Warp's negative-index rule too), then go through the index arrays.
template <typename T, typename... I> WEFT_RT_FN T &index_nn(const indexedarray_t<T> &a, I... i) {
    static_assert(sizeof...(I) >= 1 && sizeof...(I) <= 4, "weft: an indexed array takes 1 to 4 indices");
    const int32 k[] = {int32(i)...};
    return rt::indexed_element(a, k);
}
template <typename T, typename... I> WEFT_RT_FN T &index(const indexedarray_t<T> &a, I... i) {
    static_assert(sizeof...(I) >= 1 && sizeof...(I) <= 4, "weft: an indexed array takes 1 to 4 indices");
    int32 k[] = {int32(i)...};
    for (int d = 0; d < int(sizeof...(I)); ++d) k[d] = rt::wrap(k[d], a.shape[d]);
    return rt::indexed_element(a, k);
}
/// The dense specialization does not apply through index arrays: these ignore
/// Contig, and an indexed array never keeps a kernel from specializing.
template <bool Contig, typename T, typename... I> WEFT_RT_FN T &index_nn_c(const indexedarray_t<T> &a, I... i) {
    return index_nn(a, i...);
}
template <bool Contig, typename T, typename... I> WEFT_RT_FN T &index_c(const indexedarray_t<T> &a, I... i) {
    return index(a, i...);
}
template <typename T> WEFT_RT_FN bool innermost_dense(const indexedarray_t<T> &) { return true; }
/// Warp's view() of an indexed array by leading integer indices (a negative
/// one counts from the end of the indexed shape): the indexed array of the
/// remaining dimensions over the selected part of the base, their index arrays
/// and indexed shape kept. A base without data (no gradient) stays without.
template <typename T, typename... I> WEFT_RT_FN indexedarray_t<T> view(const indexedarray_t<T> &a, I... i) {
    constexpr int n = int(sizeof...(I));
    static_assert(n >= 1 && n <= 3, "weft: a view of an indexed array takes 1 to 3 leading indices");
    const int32 k[] = {int32(i)...};
    int64 offset = 0;
    for (int d = 0; d < n; ++d) offset += int64(rt::through(a, d, rt::wrap(k[d], a.shape[d]))) * a.arr.strides[d];
    indexedarray_t<T> out{};
    out.arr.data = a.arr.data ? reinterpret_cast<T *>(reinterpret_cast<char *>(a.arr.data) + offset) : nullptr;
    for (int d = n; d < 4; ++d) {
        out.arr.shape[d - n] = a.arr.shape[d];
        out.arr.strides[d - n] = a.arr.strides[d];
        out.indices[d - n] = a.indices[d];
        out.shape[d - n] = a.shape[d];
    }
    out.arr.ndim = a.arr.ndim - n;
    return out;
}

/// A slice of one array dimension, as Warp's slice_t: an omitted start is
/// slice_begin, an omitted stop slice_end (the front end's ir::slice_begin/end).
struct slice_t {
    int32 start, stop, step;
};
namespace rt {
constexpr int32 slice_begin = 2147483647;
constexpr int32 slice_end = -2147483647 - 1;
WEFT_RT_FN slice_t slice(int32 start, int32 stop, int32 step) { return slice_t{start, stop, step}; }
/// Warp's slice_adjust_indices: bounds clamped to [-n, n], then negatives counted from the end.
WEFT_RT_FN slice_t slice_adjust(const slice_t &s, int32 n) {
    int32 start, stop;
    if (s.start == slice_begin) start = s.step < 0 ? n - 1 : 0;
    else {
        start = s.start < -n ? -n : (s.start > n ? n : s.start);
        start = start < 0 ? start + n : start;
    }
    if (s.stop == slice_end) stop = s.step < 0 ? -1 : n;
    else {
        stop = s.stop < -n ? -n : (s.stop > n ? n : s.stop);
        stop = stop < 0 ? stop + n : stop;
    }
    return slice_t{start, stop, s.step};
}
WEFT_RT_FN int32 slice_length(const slice_t &s) {
    if (s.step > 0 && s.start < s.stop) return 1 + (s.stop - s.start - 1) / s.step;
    if (s.step < 0 && s.start > s.stop) return 1 + (s.start - s.stop - 1) / (-s.step);
    return 0;
}
/// One index position of a view: an integer index (negative counts from the
/// end) drops its dimension; a slice keeps it, strided.
struct view_builder {
    int32 shape[4];
    int64 strides[4];
    int32 ndim;
    int64 offset;
    int dim; // the source dimension the next position applies to
};
template <typename T> WEFT_RT_FN void view_position(view_builder &v, const array_t<T> &a, int32 i) {
    const int32 n = a.shape[v.dim];
    v.offset += int64(i < 0 ? i + n : i) * a.strides[v.dim];
    ++v.dim;
}
template <typename T> WEFT_RT_FN void view_position(view_builder &v, const array_t<T> &a, const slice_t &s) {
    const slice_t adj = slice_adjust(s, a.shape[v.dim]);
    v.offset += int64(adj.start) * a.strides[v.dim];
    v.shape[v.ndim] = slice_length(adj);
    v.strides[v.ndim] = a.strides[v.dim] * adj.step;
    ++v.ndim;
    ++v.dim;
}
} // namespace rt

/// Warp's view(): a[i] on an array of more dimensions, a[i, :], a[lo:hi],
/// a[::2], ... The result shares the array's memory; the dimensions after the
/// last position follow unchanged. An array without data (no gradient) stays without.
template <typename T, typename... P> WEFT_RT_FN array_t<T> view(const array_t<T> &a, const P &...positions) {
    static_assert(sizeof...(P) >= 1 && sizeof...(P) <= 4, "weft: a view takes 1 to 4 positions");
    rt::view_builder v{};
    (rt::view_position(v, a, positions), ...);
    array_t<T> out{};
    for (int d = v.dim; d < a.ndim; ++d) {
        v.shape[v.ndim] = a.shape[d];
        v.strides[v.ndim] = a.strides[d];
        ++v.ndim;
    }
    out.data = a.data ? reinterpret_cast<T *>(reinterpret_cast<char *>(a.data) + v.offset) : nullptr;
    for (int d = 0; d < v.ndim; ++d) {
        out.shape[d] = v.shape[d];
        out.strides[d] = v.strides[d];
    }
    out.ndim = v.ndim;
    return out;
}

/// The thread index a kernel body sees: the linear index and its components
/// (row-major, the last varying fastest).
struct tid_t {
    int64 idx;
    int32 c[4];
    int32 block_dim; // block_dim(): launch_t's on the CPU, blockDim.x on CUDA
#if !WEFT_RT_CUDA
    void *deferred; // the chunk's deferred atomics, when the kernel has any (deferred_adds)
#endif
};

/// Length of an array's first dimension; the component count of a vector or quaternion, a matrix's rows.
template <typename T> WEFT_RT_FN int32 len(const array_t<T> &a) { return a.shape[0]; }
template <typename T> WEFT_RT_FN int32 len(const indexedarray_t<T> &a) { return a.shape[0]; }
template <int N, typename T> WEFT_RT_FN int32 len(const vec_t<N, T> &) { return N; }
template <int R, int C, typename T> WEFT_RT_FN int32 len(const mat_t<R, C, T> &) { return R; }
template <typename T> WEFT_RT_FN int32 len(const quat_t<T> &) { return 4; }

/// Warp's order: a when cond is false, else b.
template <typename C, typename T> WEFT_RT_FN T select(const C &cond, const T &a, const T &b) { return cond ? b : a; }
/// a when cond is true, else b.
template <typename C, typename T> WEFT_RT_FN T where(const C &cond, const T &a, const T &b) { return cond ? a : b; }

namespace rt {
enum { op_add = 0, op_min = 1, op_max = 2, op_and = 3, op_or = 4, op_xor = 5, op_exch = 6 };
template <int OP, typename T> WEFT_RT_FN T apply(T a, T b) {
    if constexpr (OP == op_add) return add(a, b);
    else if constexpr (OP == op_min) return min(a, b);
    else if constexpr (OP == op_max) return max(a, b);
    else if constexpr (OP == op_and) return bit_and(a, b);
    else if constexpr (OP == op_or) return bit_or(a, b);
    else if constexpr (OP == op_xor) return bit_xor(a, b);
    else return b; // op_exch
}
/// Applies OP to *p atomically; returns the old value.
template <int OP, typename T, WEFT_RT_IF(is_scalar<T>)> WEFT_RT_FN T atomic(T *p, T v) {
#if defined(__CUDA_ARCH__)
    constexpr bool i32 = same<T, int32>::value || same<T, uint32>::value;
    constexpr bool i64 = same<T, int64>::value || same<T, uint64>::value;
    if constexpr (OP == op_add && (i32 || same<T, uint64>::value || same<T, float32>::value || same<T, float64>::value)) {
        return atomicAdd(p, v);
    } else if constexpr (OP == op_add && same<T, int64>::value) {
        return int64(atomicAdd(reinterpret_cast<uint64 *>(p), uint64(v)));
    } else if constexpr ((OP == op_min || OP == op_max) && (i32 || i64)) {
        if constexpr (OP == op_min) return atomicMin(p, v);
        else return atomicMax(p, v);
    } else if constexpr (sizeof(T) >= 4) {
        typedef bits_of<T> U;
        U *up = reinterpret_cast<U *>(p);
        U old = *up, assumed;
        do {
            assumed = old;
            old = atomicCAS(up, assumed, __builtin_bit_cast(U, apply<OP>(__builtin_bit_cast(T, assumed), v)));
        } while (old != assumed);
        return __builtin_bit_cast(T, old);
    } else { // 1 or 2 bytes: CAS on the aligned 32-bit word that holds them
        typedef bits_of<T> U;
        const uint64 addr = reinterpret_cast<uint64>(p);
        uint32 *w = reinterpret_cast<uint32 *>(addr & ~uint64(3));
        const uint32 shift = uint32(addr & 3u) * 8u, mask = uint32(U(~U(0))) << shift;
        uint32 old = *w, assumed;
        do {
            assumed = old;
            const T cur = __builtin_bit_cast(T, U((assumed & mask) >> shift));
            old = atomicCAS(w, assumed, (assumed & ~mask) | (uint32(__builtin_bit_cast(U, apply<OP>(cur, v))) << shift));
        } while (old != assumed);
        return __builtin_bit_cast(T, U((assumed & mask) >> shift));
    }
#else
    if constexpr (OP == op_add && is_int<T>) {
        return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    } else {
        T old, next;
        __atomic_load(p, &old, __ATOMIC_RELAXED);
        do next = apply<OP>(old, v);
        while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
        return old;
    }
#endif
}
#if !WEFT_RT_CUDA
/// The older sums of one deferred_adds: `where` the element, `sum` its sum in
/// the first bytes of the slot. Kept by the host's functions below
/// (host/rt/rt_calls.cpp, which mirrors this layout).
struct deferred_table {
    void *where[16];
    unsigned long long sum[16];
    void *copy; // deferred_adds::privatize: the private copy of the array's bytes [from, from + bytes)
    unsigned long long from, bytes;
    bool on;
};
static_assert(sizeof(deferred_table) == 288, "weft: deferred_table layout (rt_calls.cpp mirrors it)");
} // namespace rt
extern "C" {
void weft_rt_deferred_begin(void *table, bool on);
void weft_rt_deferred_private(void *table, const void *array, unsigned long long element_size, long long elements,
                              bool floating);
void *weft_rt_deferred_miss_u32(void *table, void *last, unsigned int last_sum, void *p, unsigned int v);
void weft_rt_deferred_flush_u32(void *table, void *last, unsigned int last_sum);
void *weft_rt_deferred_miss_u64(void *table, void *last, unsigned long long last_sum, void *p, unsigned long long v);
void weft_rt_deferred_flush_u64(void *table, void *last, unsigned long long last_sum);
void *weft_rt_deferred_miss_f32(void *table, void *last, float last_sum, void *p, float v);
void weft_rt_deferred_flush_f32(void *table, void *last, float last_sum);
void *weft_rt_deferred_miss_f64(void *table, void *last, double last_sum, void *p, double v);
void weft_rt_deferred_flush_f64(void *table, void *last, double last_sum);
}
namespace rt {
/// One CPU worker's pending atomic adds to one array, summed per element
/// address and applied once each at the end of the worker's chunk of the
/// launch (codegen's deferred_atomics.hpp says when that is unobservable).
/// The most recent element and its sum are plain fields the compiler keeps in
/// registers (a reduction into one element costs an add per element); older
/// ones wait in a deferred_table, kept out of line by the host: a separate
/// object reached only through calls, so that taking its address does not
/// pin these fields to memory, and code no kernel compiles again (inlined,
/// the table doubled the compile time of a one-line reduction). Off, each add
/// is an atomic, as without deferral. Integers of a size add alike signed or
/// not (they wrap), so the host keeps them as unsigned.
template <typename T> struct deferred_adds {
    T *last;
    T sum;
    deferred_table *table;
    T *copy; // where the private copy keeps the array's element 0 (its data), or null: no copy

    void begin(bool enabled, deferred_table *older) {
        last = nullptr;
        table = older;
        copy = nullptr;
        weft_rt_deferred_begin(older, enabled);
    }
    /// A private copy of the whole array for scatter() when the host finds it
    /// small beside the chunk's `elements` (rt_calls.cpp says when).
    void privatize(const array_t<T> &a, long long elements) {
        const array_t<T> view = a; // see disjoint_copies()
        weft_rt_deferred_private(table, &view, sizeof(T), elements,
                                 same<T, float32>::value || same<T, float64>::value);
        // The copy holds the array's bytes from its lowest one on: element 0
        // sits as far into it as into the array (at the end, for negative strides).
        if (table->copy)
            copy = reinterpret_cast<T *>(static_cast<char *>(table->copy) +
                                         (reinterpret_cast<unsigned long long>(a.data) - table->from));
    }
    void add(T *p, T v) {
        if (p == last) { // never when off: `last` stays null
            sum = weft::add(sum, v);
            return;
        }
        last = static_cast<T *>(miss(last, sum, p, v));
        sum = v; // not 0 + v: a lone -0.0 stays -0.0
    }
    /// An add to a(i...) whose element may change from one element of the
    /// launch to the next (a histogram's bin): into the private copy when
    /// there is one, with no test of which element it is, as a hand-written
    /// loop into a local array would. add() keeps a run of adds to one
    /// element in a register but mispredicts a branch at each change (the
    /// histogram ran at 0.5x the hand-written loop). An index outside the
    /// array, negative ones included, takes add() after Warp's rule.
    template <bool Contig, typename... I> void scatter(const array_t<T> &a, T v, I... i) {
        const int32 k[] = {static_cast<int32>(i)...};
        bool inside = copy != nullptr;
        for (int d = 0; d < int(sizeof...(I)); ++d)
            inside = inside && static_cast<unsigned>(k[d]) < static_cast<unsigned>(a.shape[d]);
        if (inside) {
            // The same view over the copy: addresses from the copy's own
            // pointer (arithmetic from the array's may not reach another
            // allocation; an integer made a pointer, or an offset from the
            // lowest byte, cost the histogram 0.95x -> 0.77-0.83x).
            array_t<T> mine = a;
            mine.data = copy;
            T &q = index_nn_c<Contig>(mine, i...);
            q = weft::add(q, v);
        } else {
            add(&index(a, i...), v);
        }
    }
    void flush() {
        if constexpr (same<T, float32>::value) weft_rt_deferred_flush_f32(table, last, sum);
        else if constexpr (same<T, float64>::value) weft_rt_deferred_flush_f64(table, last, sum);
        else if constexpr (sizeof(T) == 4) weft_rt_deferred_flush_u32(table, last, static_cast<unsigned int>(sum));
        else weft_rt_deferred_flush_u64(table, last, static_cast<unsigned long long>(sum));
        last = nullptr;
    }

private:
    void *miss(T *l, T s, T *p, T v) {
        if constexpr (same<T, float32>::value) return weft_rt_deferred_miss_f32(table, l, s, p, v);
        else if constexpr (same<T, float64>::value) return weft_rt_deferred_miss_f64(table, l, s, p, v);
        else if constexpr (sizeof(T) == 4)
            return weft_rt_deferred_miss_u32(table, l, static_cast<unsigned int>(s), p, static_cast<unsigned int>(v));
        else
            return weft_rt_deferred_miss_u64(table, l, static_cast<unsigned long long>(s), p,
                                             static_cast<unsigned long long>(v));
    }
};
#endif
/// Vectors (and matrices, quaternions): per component, each atomic on its own.
template <int OP, typename V, WEFT_RT_IF(comp<V>::is)> WEFT_RT_FN V atomic(V *p, const V &v) {
    V old;
    for (int i = 0; i < comp<V>::n; ++i) at(old, i) = atomic<OP>(&at(*p, i), at(v, i));
    return old;
}
/// *p = v where *p == compare (by value, as Warp's CPU code compares: 0.0
/// equals -0.0, a NaN nothing), atomically; returns the old value. A
/// compare-and-swap of the bits seen, retried while another thread changed them.
template <typename T, WEFT_RT_IF(is_scalar<T>)> WEFT_RT_FN T atomic_cas(T *p, T compare, T v) {
    typedef bits_of<T> U;
    U *up = reinterpret_cast<U *>(p);
    const U desired = __builtin_bit_cast(U, v);
#if defined(__CUDA_ARCH__)
    U seen = *static_cast<volatile U *>(up);
    for (;;) {
        if (!(__builtin_bit_cast(T, seen) == compare)) return __builtin_bit_cast(T, seen);
        const U before = atomicCAS(up, seen, desired);
        if (before == seen) return __builtin_bit_cast(T, seen);
        seen = before;
    }
#else
    U seen;
    __atomic_load(up, &seen, __ATOMIC_SEQ_CST);
    for (;;) {
        if (!(__builtin_bit_cast(T, seen) == compare)) return __builtin_bit_cast(T, seen);
        // On failure `seen` becomes what the element holds now.
        if (__atomic_compare_exchange_n(up, &seen, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            return __builtin_bit_cast(T, seen);
    }
#endif
}
} // namespace rt

// atomic_add(arr, i[, j[, k[, l]]], value) and friends: return the old value.
#define WEFT_RT_ATOMIC(name, OP, VALUE, ARRAY)                                                                         \
    template <typename T> WEFT_RT_FN T name(const ARRAY<T> &a, int32 i, typename rt::nodeduce<T>::type v) {            \
        return rt::atomic<OP>(&index(a, i), VALUE);                                                                    \
    }                                                                                                                  \
    template <typename T> WEFT_RT_FN T name(const ARRAY<T> &a, int32 i, int32 j, typename rt::nodeduce<T>::type v) {   \
        return rt::atomic<OP>(&index(a, i, j), VALUE);                                                                 \
    }                                                                                                                  \
    template <typename T>                                                                                              \
    WEFT_RT_FN T name(const ARRAY<T> &a, int32 i, int32 j, int32 k, typename rt::nodeduce<T>::type v) {                \
        return rt::atomic<OP>(&index(a, i, j, k), VALUE);                                                              \
    }                                                                                                                  \
    template <typename T>                                                                                              \
    WEFT_RT_FN T name(const ARRAY<T> &a, int32 i, int32 j, int32 k, int32 l, typename rt::nodeduce<T>::type v) {       \
        return rt::atomic<OP>(&index(a, i, j, k, l), VALUE);                                                           \
    }
#define WEFT_RT_ATOMICS(ARRAY)                                                                                         \
    WEFT_RT_ATOMIC(atomic_add, rt::op_add, v, ARRAY)                                                                   \
    WEFT_RT_ATOMIC(atomic_sub, rt::op_add, neg(v), ARRAY) /* a - v == a + (-v), exactly, for every type */             \
    WEFT_RT_ATOMIC(atomic_min, rt::op_min, v, ARRAY)                                                                   \
    WEFT_RT_ATOMIC(atomic_max, rt::op_max, v, ARRAY)                                                                   \
    WEFT_RT_ATOMIC(atomic_and, rt::op_and, v, ARRAY)                                                                   \
    WEFT_RT_ATOMIC(atomic_or, rt::op_or, v, ARRAY)                                                                     \
    WEFT_RT_ATOMIC(atomic_xor, rt::op_xor, v, ARRAY)                                                                   \
    WEFT_RT_ATOMIC(atomic_exch, rt::op_exch, v, ARRAY)
WEFT_RT_ATOMICS(array_t)
WEFT_RT_ATOMICS(indexedarray_t)
#undef WEFT_RT_ATOMICS
#undef WEFT_RT_ATOMIC

/// Warp's lower_bound: the first index in [begin, end) whose element is not
/// below value, by binary search of ascending elements; end - 1 when every
/// element is below it (Warp's search never looks past end - 1).
template <typename T>
WEFT_RT_FN int32 lower_bound(const array_t<T> &a, int32 begin, int32 end, typename rt::nodeduce<T>::type value) {
    int32 lower = begin, upper = end - 1;
    while (lower < upper) {
        const int32 mid = lower + (upper - lower) / 2;
        if (lt(index_nn(a, mid), value)) lower = mid + 1;
        else upper = mid;
    }
    return lower;
}
template <typename T> WEFT_RT_FN int32 lower_bound(const array_t<T> &a, typename rt::nodeduce<T>::type value) {
    return lower_bound(a, 0, a.shape[0], value);
}

// atomic_cas(arr, i[, j[, k[, l]]], compare, value): returns the old value.
template <typename T, template <typename> class A>
WEFT_RT_FN T atomic_cas(const A<T> &a, int32 i, typename rt::nodeduce<T>::type c, typename rt::nodeduce<T>::type v) {
    return rt::atomic_cas(&index(a, i), c, v);
}
template <typename T, template <typename> class A>
WEFT_RT_FN T atomic_cas(const A<T> &a, int32 i, int32 j, typename rt::nodeduce<T>::type c,
                        typename rt::nodeduce<T>::type v) {
    return rt::atomic_cas(&index(a, i, j), c, v);
}
template <typename T, template <typename> class A>
WEFT_RT_FN T atomic_cas(const A<T> &a, int32 i, int32 j, int32 k, typename rt::nodeduce<T>::type c,
                        typename rt::nodeduce<T>::type v) {
    return rt::atomic_cas(&index(a, i, j, k), c, v);
}
template <typename T, template <typename> class A>
WEFT_RT_FN T atomic_cas(const A<T> &a, int32 i, int32 j, int32 k, int32 l, typename rt::nodeduce<T>::type c,
                        typename rt::nodeduce<T>::type v) {
    return rt::atomic_cas(&index(a, i, j, k, l), c, v);
}

} // namespace weft
