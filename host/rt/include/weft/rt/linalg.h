// weft runtime: vectors, matrices, quaternions, transforms and their core builtins.
// Layouts match Warp: vec_t<N,T> is N packed T (vec3 is 12 bytes, align 4),
// mat_t<R,C,T> is R rows of vec_t<C,T> (row-major), quat_t<T> is x, y, z, w,
// transform_t<T> is p (vec3) then q (quat). The transform builtins are in spatial.h.
#pragma once

#include "weft/rt/scalar.h"

namespace weft {

template <int N, typename T> struct vec_t {
    T c[N];
    WEFT_RT_HD constexpr vec_t() : c{} {}
    WEFT_RT_HD constexpr explicit vec_t(T s) : c{} {
        for (int i = 0; i < N; ++i) c[i] = s;
    }
    template <typename... A, WEFT_RT_IF(sizeof...(A) == N && N > 1 && rt::all_scalar<A...>)>
    WEFT_RT_HD constexpr vec_t(A... a) : c{static_cast<T>(a)...} {}
    template <typename U> WEFT_RT_HD constexpr explicit vec_t(const vec_t<N, U> &o) : c{} {
        for (int i = 0; i < N; ++i) c[i] = static_cast<T>(o.c[i]);
    }
    WEFT_RT_HD constexpr T &operator[](int i) { return c[i]; }
    WEFT_RT_HD constexpr const T &operator[](int i) const { return c[i]; }
};

template <int R, int C, typename T> struct mat_t {
    vec_t<C, T> c[R]; // rows
    WEFT_RT_HD constexpr mat_t() : c{} {}
    WEFT_RT_HD constexpr explicit mat_t(T s) : c{} {
        for (int i = 0; i < R; ++i) c[i] = vec_t<C, T>(s);
    }
    /// R*C elements, row by row.
    template <typename... A, WEFT_RT_IF(sizeof...(A) == R * C && rt::all_scalar<A...>)>
    WEFT_RT_HD constexpr mat_t(A... a) : c{} {
        const T v[] = {static_cast<T>(a)...};
        for (int i = 0; i < R; ++i)
            for (int j = 0; j < C; ++j) c[i].c[j] = v[i * C + j];
    }
    /// R rows.
    template <typename... V, WEFT_RT_IF(sizeof...(V) == R && rt::all_same<vec_t<C, T>, V...>)>
    WEFT_RT_HD constexpr mat_t(const V &...rows) : c{rows...} {}
    template <typename U> WEFT_RT_HD constexpr explicit mat_t(const mat_t<R, C, U> &o) : c{} {
        for (int i = 0; i < R; ++i) c[i] = vec_t<C, T>(o.c[i]);
    }
    WEFT_RT_HD constexpr vec_t<C, T> &operator[](int i) { return c[i]; }
    WEFT_RT_HD constexpr const vec_t<C, T> &operator[](int i) const { return c[i]; }
};

namespace rt {
/// Stores into memory component by component (codegen's Store statements):
/// an aggregate copy becomes a memcpy whose wide accesses keep the loop
/// vectorizer away. Unrolled by recursion: a copy loop would be turned back
/// into a memcpy.
template <int I, int N, typename T> WEFT_RT_FN void store_each(T *d, const T *s) {
    if constexpr (I < N) {
        d[I] = s[I];
        store_each<I + 1, N>(d, s);
    }
}
template <int N, typename T> WEFT_RT_FN void store(vec_t<N, T> &d, const vec_t<N, T> &s) { store_each<0, N>(d.c, s.c); }
template <int I, int R, int C, typename T> WEFT_RT_FN void store_rows(vec_t<C, T> *d, const vec_t<C, T> *s) {
    if constexpr (I < R) {
        store_each<0, C>(d[I].c, s[I].c);
        store_rows<I + 1, R>(d, s);
    }
}
template <int R, int C, typename T> WEFT_RT_FN void store(mat_t<R, C, T> &d, const mat_t<R, C, T> &s) {
    store_rows<0, R>(d.c, s.c);
}
} // namespace rt

/// Default construction is all zeros (as Warp's quat()); quat_identity<T>() is (0, 0, 0, 1).
template <typename T> struct quat_t {
    T c[4]; // x, y, z, w
    WEFT_RT_HD constexpr quat_t() : c{} {}
    template <typename... A, WEFT_RT_IF(sizeof...(A) == 4 && rt::all_scalar<A...>)>
    WEFT_RT_HD constexpr quat_t(A... a) : c{static_cast<T>(a)...} {}
    template <typename U> WEFT_RT_HD constexpr explicit quat_t(const quat_t<U> &o) : c{} {
        for (int i = 0; i < 4; ++i) c[i] = static_cast<T>(o.c[i]);
    }
    WEFT_RT_HD constexpr T &operator[](int i) { return c[i]; }
    WEFT_RT_HD constexpr const T &operator[](int i) const { return c[i]; }
};
namespace rt {
template <typename T> WEFT_RT_FN void store(quat_t<T> &d, const quat_t<T> &s) { store_each<0, 4>(d.c, s.c); }
} // namespace rt

/// Default construction is all zeros (as Warp's transform()); transform_identity<T>() has q = (0, 0, 0, 1).
template <typename T> struct transform_t {
    vec_t<3, T> p;
    quat_t<T> q;
    WEFT_RT_HD constexpr transform_t() : p(), q() {}
    WEFT_RT_HD constexpr explicit transform_t(T s) : p(s), q(s, s, s, s) {}
    WEFT_RT_HD constexpr transform_t(const vec_t<3, T> &p_, const quat_t<T> &q_) : p(p_), q(q_) {}
    /// transform(p): the identity rotation (Warp fills in q).
    WEFT_RT_HD constexpr explicit transform_t(const vec_t<3, T> &p_) : p(p_), q(T(0), T(0), T(0), T(1)) {}
    template <typename... A, WEFT_RT_IF(sizeof...(A) == 7 && rt::all_scalar<A...>)>
    WEFT_RT_HD constexpr transform_t(A... a) : p(), q() {
        const T v[] = {static_cast<T>(a)...};
        for (int i = 0; i < 3; ++i) p.c[i] = v[i];
        for (int i = 0; i < 4; ++i) q.c[i] = v[3 + i];
    }
    template <typename U>
    WEFT_RT_HD constexpr explicit transform_t(const transform_t<U> &o) : p(vec_t<3, T>(o.p)), q(quat_t<T>(o.q)) {}
    /// Component i of (p.x, p.y, p.z, q.x, q.y, q.z, q.w).
    WEFT_RT_HD constexpr T &operator[](int i) { return i < 3 ? p.c[i] : q.c[i - 3]; }
    WEFT_RT_HD constexpr const T &operator[](int i) const { return i < 3 ? p.c[i] : q.c[i - 3]; }
};
namespace rt {
template <typename T> WEFT_RT_FN void store(transform_t<T> &d, const transform_t<T> &s) {
    store_each<0, 3>(d.p.c, s.p.c);
    store_each<0, 4>(d.q.c, s.q.c);
}
} // namespace rt

// Kernel type names (parse_builtin_type): suffix "" or f float32, d float64, h float16,
// i int32 (vectors only).
#define WEFT_RT_VECS(S, T) typedef vec_t<2, T> vec2##S; typedef vec_t<3, T> vec3##S; typedef vec_t<4, T> vec4##S;
#define WEFT_RT_MATS(S, T)                                                                                             \
    typedef mat_t<2, 2, T> mat22##S; typedef mat_t<2, 3, T> mat23##S; typedef mat_t<2, 4, T> mat24##S;                 \
    typedef mat_t<3, 2, T> mat32##S; typedef mat_t<3, 3, T> mat33##S; typedef mat_t<3, 4, T> mat34##S;                 \
    typedef mat_t<4, 2, T> mat42##S; typedef mat_t<4, 3, T> mat43##S; typedef mat_t<4, 4, T> mat44##S;                 \
    typedef quat_t<T> quat##S;
WEFT_RT_VECS(, float32) WEFT_RT_VECS(f, float32) WEFT_RT_VECS(d, float64) WEFT_RT_VECS(h, float16)
WEFT_RT_VECS(i, int32)
WEFT_RT_MATS(, float32) WEFT_RT_MATS(f, float32) WEFT_RT_MATS(d, float64) WEFT_RT_MATS(h, float16)
#undef WEFT_RT_VECS
#undef WEFT_RT_MATS
static_assert(sizeof(vec3) == 12 && alignof(vec3) == 4 && sizeof(mat33) == 36 && sizeof(quat) == 16, "weft: layouts");
typedef transform_t<float32> transform;
typedef transform_t<float32> transformf;
typedef transform_t<float64> transformd;
typedef transform_t<float16> transformh;
static_assert(sizeof(transform) == 28 && alignof(transform) == 4, "weft: transform layout");

namespace rt {
// Composite types seen as flat component lists.
template <typename V> struct comp { static constexpr bool is = false; };
template <int N, typename T> struct comp<vec_t<N, T>> {
    static constexpr bool is = true;
    static constexpr int n = N;
    typedef T scalar;
};
template <int R, int C, typename T> struct comp<mat_t<R, C, T>> {
    static constexpr bool is = true;
    static constexpr int n = R * C;
    typedef T scalar;
};
template <typename T> struct comp<quat_t<T>> {
    static constexpr bool is = true;
    static constexpr int n = 4;
    typedef T scalar;
};
template <int N, typename T> WEFT_RT_HD constexpr T &at(vec_t<N, T> &v, int i) { return v.c[i]; }
template <int N, typename T> WEFT_RT_HD constexpr const T &at(const vec_t<N, T> &v, int i) { return v.c[i]; }
template <int R, int C, typename T> WEFT_RT_HD constexpr T &at(mat_t<R, C, T> &m, int i) { return m.c[i / C].c[i % C]; }
template <int R, int C, typename T> WEFT_RT_HD constexpr const T &at(const mat_t<R, C, T> &m, int i) {
    return m.c[i / C].c[i % C];
}
template <typename T> WEFT_RT_HD constexpr T &at(quat_t<T> &q, int i) { return q.c[i]; }
template <typename T> WEFT_RT_HD constexpr const T &at(const quat_t<T> &q, int i) { return q.c[i]; }
// Seen as 7 components: the component-wise builtins (add, sub, neg, scaling,
// eq), atomics and adjoint accumulation apply unchanged.
template <typename T> struct comp<transform_t<T>> {
    static constexpr bool is = true;
    static constexpr int n = 7;
    typedef T scalar;
};
template <typename T> WEFT_RT_HD constexpr T &at(transform_t<T> &t, int i) { return t[i]; }
template <typename T> WEFT_RT_HD constexpr const T &at(const transform_t<T> &t, int i) { return t[i]; }
template <typename V> using scalar_of = typename comp<V>::scalar;
} // namespace rt

// -- component-wise builtins of vectors, matrices and quaternions -------------
#define WEFT_RT_COMP template <typename V, WEFT_RT_IF(::weft::rt::comp<V>::is)> WEFT_RT_FN
#define WEFT_RT_MAP1(name, op)                                                                                         \
    WEFT_RT_COMP V name(const V &a) {                                                                                  \
        V r;                                                                                                           \
        for (int i = 0; i < rt::comp<V>::n; ++i) rt::at(r, i) = op(rt::at(a, i));                                      \
        return r;                                                                                                      \
    }
#define WEFT_RT_MAP2(name, op)                                                                                         \
    WEFT_RT_COMP V name(const V &a, const V &b) {                                                                      \
        V r;                                                                                                           \
        for (int i = 0; i < rt::comp<V>::n; ++i) rt::at(r, i) = op(rt::at(a, i), rt::at(b, i));                        \
        return r;                                                                                                      \
    }
WEFT_RT_MAP1(neg, neg)
WEFT_RT_MAP1(pos, pos)
WEFT_RT_MAP1(abs, abs)
WEFT_RT_MAP2(add, add)
WEFT_RT_MAP2(sub, sub)
WEFT_RT_MAP2(min, min)
WEFT_RT_MAP2(max, max)
WEFT_RT_MAP2(cw_mul, mul)
WEFT_RT_MAP2(cw_div, div)
#undef WEFT_RT_MAP1
#undef WEFT_RT_MAP2

WEFT_RT_COMP V mul(const V &a, rt::scalar_of<V> s) {
    V r;
    for (int i = 0; i < rt::comp<V>::n; ++i) rt::at(r, i) = mul(rt::at(a, i), s);
    return r;
}
WEFT_RT_COMP V mul(rt::scalar_of<V> s, const V &a) {
    V r;
    for (int i = 0; i < rt::comp<V>::n; ++i) rt::at(r, i) = mul(s, rt::at(a, i));
    return r;
}
WEFT_RT_COMP V div(const V &a, rt::scalar_of<V> s) {
    V r;
    for (int i = 0; i < rt::comp<V>::n; ++i) rt::at(r, i) = div(rt::at(a, i), s);
    return r;
}
/// True when every component is equal.
WEFT_RT_COMP bool eq(const V &a, const V &b) {
    for (int i = 0; i < rt::comp<V>::n; ++i)
        if (!eq(rt::at(a, i), rt::at(b, i))) return false;
    return true;
}
WEFT_RT_COMP bool ne(const V &a, const V &b) { return !eq(a, b); }

// -- vectors ------------------------------------------------------------------
namespace rt {
/// Sum of products in the accumulation type (float32 for float16; wrapping for integers).
template <int N, typename T> WEFT_RT_FN acc<T> dot_acc(const T *a, const T *b) {
    acc<T> s = acc<T>(0);
    for (int i = 0; i < N; ++i) s = add(s, mul(acc<T>(a[i]), acc<T>(b[i])));
    return s;
}
} // namespace rt
template <int N, typename T> WEFT_RT_FN T dot(const vec_t<N, T> &a, const vec_t<N, T> &b) {
    return T(rt::dot_acc<N>(a.c, b.c));
}
template <int N, typename T> WEFT_RT_FN T length_sq(const vec_t<N, T> &a) { return T(rt::dot_acc<N>(a.c, a.c)); }
template <int N, typename T> WEFT_RT_FN T length(const vec_t<N, T> &a) { return T(sqrt(rt::dot_acc<N>(a.c, a.c))); }
/// a / |a|; the zero vector stays zero.
template <int N, typename T> WEFT_RT_FN vec_t<N, T> normalize(const vec_t<N, T> &a) {
    const rt::acc<T> l = sqrt(rt::dot_acc<N>(a.c, a.c));
    vec_t<N, T> r;
    if (l > rt::acc<T>(0))
        for (int i = 0; i < N; ++i) r.c[i] = T(rt::acc<T>(a.c[i]) / l);
    return r;
}
template <typename T> WEFT_RT_FN vec_t<3, T> cross(const vec_t<3, T> &a, const vec_t<3, T> &b) {
    typedef rt::acc<T> A;
    return vec_t<3, T>(T(A(a.c[1]) * A(b.c[2]) - A(a.c[2]) * A(b.c[1])), T(A(a.c[2]) * A(b.c[0]) - A(a.c[0]) * A(b.c[2])),
                       T(A(a.c[0]) * A(b.c[1]) - A(a.c[1]) * A(b.c[0])));
}

// -- matrices -----------------------------------------------------------------
template <int R, int K, int C, typename T>
WEFT_RT_FN mat_t<R, C, T> mul(const mat_t<R, K, T> &a, const mat_t<K, C, T> &b) {
    mat_t<R, C, T> r;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            rt::acc<T> s = rt::acc<T>(0);
            for (int k = 0; k < K; ++k) s += rt::acc<T>(a.c[i].c[k]) * rt::acc<T>(b.c[k].c[j]);
            r.c[i].c[j] = T(s);
        }
    return r;
}
/// Matrix times column vector.
template <int R, int C, typename T> WEFT_RT_FN vec_t<R, T> mul(const mat_t<R, C, T> &m, const vec_t<C, T> &v) {
    vec_t<R, T> r;
    for (int i = 0; i < R; ++i) r.c[i] = T(rt::dot_acc<C>(m.c[i].c, v.c));
    return r;
}
/// Row vector times matrix.
template <int R, int C, typename T> WEFT_RT_FN vec_t<C, T> mul(const vec_t<R, T> &v, const mat_t<R, C, T> &m) {
    vec_t<C, T> r;
    for (int j = 0; j < C; ++j) {
        rt::acc<T> s = rt::acc<T>(0);
        for (int i = 0; i < R; ++i) s += rt::acc<T>(v.c[i]) * rt::acc<T>(m.c[i].c[j]);
        r.c[j] = T(s);
    }
    return r;
}
template <int R, int C, typename T> WEFT_RT_FN mat_t<C, R, T> transpose(const mat_t<R, C, T> &m) {
    mat_t<C, R, T> r;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) r.c[j].c[i] = m.c[i].c[j];
    return r;
}
/// a b^T.
template <int R, int C, typename T> WEFT_RT_FN mat_t<R, C, T> outer(const vec_t<R, T> &a, const vec_t<C, T> &b) {
    mat_t<R, C, T> r;
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) r.c[i].c[j] = T(rt::acc<T>(a.c[i]) * rt::acc<T>(b.c[j]));
    return r;
}
template <int N, typename T> WEFT_RT_FN T trace(const mat_t<N, N, T> &m) {
    rt::acc<T> s = rt::acc<T>(0);
    for (int i = 0; i < N; ++i) s += rt::acc<T>(m.c[i].c[i]);
    return T(s);
}
template <typename T> WEFT_RT_FN T determinant(const mat_t<2, 2, T> &m) {
    typedef rt::acc<T> A;
    return T(A(m.c[0].c[0]) * A(m.c[1].c[1]) - A(m.c[0].c[1]) * A(m.c[1].c[0]));
}
template <typename T> WEFT_RT_FN T determinant(const mat_t<3, 3, T> &m) {
    typedef rt::acc<T> A;
    const vec_t<3, T> *r = m.c;
    return T(A(r[0].c[0]) * (A(r[1].c[1]) * A(r[2].c[2]) - A(r[1].c[2]) * A(r[2].c[1])) -
             A(r[0].c[1]) * (A(r[1].c[0]) * A(r[2].c[2]) - A(r[1].c[2]) * A(r[2].c[0])) +
             A(r[0].c[2]) * (A(r[1].c[0]) * A(r[2].c[1]) - A(r[1].c[1]) * A(r[2].c[0])));
}
template <typename T> WEFT_RT_FN T determinant(const mat_t<4, 4, T> &m) {
    typedef rt::acc<T> A;
    A d = A(0);
    for (int j = 0; j < 4; ++j) { // expansion along the first row
        mat_t<3, 3, A> sub3;
        for (int i = 1; i < 4; ++i)
            for (int k = 0, col = 0; k < 4; ++k)
                if (k != j) sub3.c[i - 1].c[col++] = A(m.c[i].c[k]);
        const A t = A(m.c[0].c[j]) * determinant(sub3);
        d = (j & 1) ? d - t : d + t;
    }
    return T(d);
}
/// Warp's matrix_from_rows / matrix_from_cols: K vectors of length C make a
/// K x C matrix of rows, a C x K one of columns.
template <int C, typename T, typename... V>
WEFT_RT_FN mat_t<int(sizeof...(V)) + 1, C, T> matrix_from_rows(const vec_t<C, T> &first, const V &...rest) {
    constexpr int K = int(sizeof...(V)) + 1;
    const vec_t<C, T> rows[] = {first, rest...};
    mat_t<K, C, T> m;
    for (int i = 0; i < K; ++i) m.c[i] = rows[i];
    return m;
}
template <int C, typename T, typename... V>
WEFT_RT_FN mat_t<C, int(sizeof...(V)) + 1, T> matrix_from_cols(const vec_t<C, T> &first, const V &...rest) {
    return transpose(matrix_from_rows(first, rest...));
}

namespace rt {
/// a b + c as Warp's muladd: one rounding (an FMA) for float32 and float64.
WEFT_RT_FN float32 muladd(float32 a, float32 b, float32 c) { return WEFT_RT_MF(fma)(a, b, c); }
WEFT_RT_FN float64 muladd(float64 a, float64 b, float64 c) { return WEFT_RT_MD(fma)(a, b, c); }
} // namespace rt
/// Index of the largest (argmax) / smallest (argmin) component, skipping NaNs; 0 when all are NaN (Warp's).
template <int N, typename T, bool Max> WEFT_RT_FN uint32 arg_extreme(const vec_t<N, T> &v) {
    int ret = 0;
    while (ret < N && v.c[ret] != v.c[ret]) ++ret;
    if (ret == N) return 0;
    for (int i = ret + 1; i < N; ++i) {
        if (v.c[i] != v.c[i]) continue;
        if (Max ? v.c[i] > v.c[ret] : v.c[i] < v.c[ret]) ret = i;
    }
    return uint32(ret);
}
template <int N, typename T> WEFT_RT_FN uint32 argmax(const vec_t<N, T> &v) { return arg_extreme<N, T, true>(v); }
template <int N, typename T> WEFT_RT_FN uint32 argmin(const vec_t<N, T> &v) { return arg_extreme<N, T, false>(v); }
/// The square matrix with v on its diagonal; a matrix's diagonal (Warp's diag, get_diag).
template <int N, typename T> WEFT_RT_FN mat_t<N, N, T> diag(const vec_t<N, T> &v) {
    mat_t<N, N, T> m;
    for (int i = 0; i < N; ++i) m.c[i].c[i] = v.c[i];
    return m;
}
template <int N, typename T> WEFT_RT_FN vec_t<N, T> get_diag(const mat_t<N, N, T> &m) {
    vec_t<N, T> v;
    for (int i = 0; i < N; ++i) v.c[i] = m.c[i].c[i];
    return v;
}
/// sum a[i][j] b[i][j], multiply-adds in row order (Warp's ddot).
template <int R, int C, typename T> WEFT_RT_FN T ddot(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b) {
    T r(0);
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) r = rt::muladd(a.c[i].c[j], b.c[i].c[j], r);
    return r;
}

/// Warp's inverse, operation for operation: the adjugate times the
/// reciprocal of the determinant, or the zero matrix when the determinant is
/// zero (a NaN one too, for 2x2 and 4x4, as Warp's `|det| > 0` tests).
template <typename T> WEFT_RT_FN mat_t<2, 2, T> inverse(const mat_t<2, 2, T> &m) {
    const T det = determinant(m);
    mat_t<2, 2, T> r;
    if (!(det > T(0) || det < T(0))) return r;
    const T k = T(1) / det;
    r.c[0].c[0] = m.c[1].c[1] * k;
    r.c[0].c[1] = -m.c[0].c[1] * k;
    r.c[1].c[0] = -m.c[1].c[0] * k;
    r.c[1].c[1] = m.c[0].c[0] * k;
    return r;
}
template <typename T> WEFT_RT_FN mat_t<3, 3, T> inverse(const mat_t<3, 3, T> &m) {
    const T det = determinant(m);
    mat_t<3, 3, T> r;
    if (det == T(0)) return r;
    const vec_t<3, T> *a = m.c;
    const T k = T(1) / det;
    // Cofactors, transposed: row i of the inverse is column i of the cofactors.
    r.c[0].c[0] = (a[1].c[1] * a[2].c[2] - a[1].c[2] * a[2].c[1]) * k;
    r.c[1].c[0] = (a[1].c[2] * a[2].c[0] - a[1].c[0] * a[2].c[2]) * k;
    r.c[2].c[0] = (a[1].c[0] * a[2].c[1] - a[1].c[1] * a[2].c[0]) * k;
    r.c[0].c[1] = (a[0].c[2] * a[2].c[1] - a[0].c[1] * a[2].c[2]) * k;
    r.c[1].c[1] = (a[0].c[0] * a[2].c[2] - a[0].c[2] * a[2].c[0]) * k;
    r.c[2].c[1] = (a[0].c[1] * a[2].c[0] - a[0].c[0] * a[2].c[1]) * k;
    r.c[0].c[2] = (a[0].c[1] * a[1].c[2] - a[0].c[2] * a[1].c[1]) * k;
    r.c[1].c[2] = (a[0].c[2] * a[1].c[0] - a[0].c[0] * a[1].c[2]) * k;
    r.c[2].c[2] = (a[0].c[0] * a[1].c[1] - a[0].c[1] * a[1].c[0]) * k;
    return r;
}
/// 4x4: cofactors from the 2x2 minors of the first and of the last two
/// columns (kept in double, as Warp keeps them), the determinant in double.
template <typename T> WEFT_RT_FN mat_t<4, 4, T> inverse(const mat_t<4, 4, T> &m) {
    const auto x = [&](int i, int j) { return m.c[i].c[j]; };
    // Minors of columns 0 and 1 (rows ab as the name says).
    double m01 = x(0, 0) * x(1, 1) - x(1, 0) * x(0, 1), m02 = x(0, 0) * x(2, 1) - x(2, 0) * x(0, 1);
    double m03 = x(0, 0) * x(3, 1) - x(3, 0) * x(0, 1), m12 = x(1, 0) * x(2, 1) - x(2, 0) * x(1, 1);
    double m13 = x(1, 0) * x(3, 1) - x(3, 0) * x(1, 1), m23 = x(2, 0) * x(3, 1) - x(3, 0) * x(2, 1);
    // Cofactors of columns 2 and 3 from them.
    const double c33 = x(0, 2) * m12 - x(1, 2) * m02 + x(2, 2) * m01;
    const double c23 = x(1, 2) * m03 - x(3, 2) * m01 - x(0, 2) * m13;
    const double c13 = x(0, 2) * m23 - x(2, 2) * m03 + x(3, 2) * m02;
    const double c03 = x(2, 2) * m13 - x(3, 2) * m12 - x(1, 2) * m23;
    const double c32 = x(1, 3) * m02 - x(2, 3) * m01 - x(0, 3) * m12;
    const double c22 = x(0, 3) * m13 - x(1, 3) * m03 + x(3, 3) * m01;
    const double c12 = x(2, 3) * m03 - x(3, 3) * m02 - x(0, 3) * m23;
    const double c02 = x(1, 3) * m23 - x(2, 3) * m13 + x(3, 3) * m12;
    // Minors of columns 2 and 3, then the cofactors of columns 0 and 1 (in T, as Warp's).
    m01 = x(0, 2) * x(1, 3) - x(1, 2) * x(0, 3);
    m02 = x(0, 2) * x(2, 3) - x(2, 2) * x(0, 3);
    m03 = x(0, 2) * x(3, 3) - x(3, 2) * x(0, 3);
    m12 = x(1, 2) * x(2, 3) - x(2, 2) * x(1, 3);
    m13 = x(1, 2) * x(3, 3) - x(3, 2) * x(1, 3);
    m23 = x(2, 2) * x(3, 3) - x(3, 2) * x(2, 3);
    const T c30 = T(x(1, 1) * m02 - x(2, 1) * m01 - x(0, 1) * m12);
    const T c20 = T(x(0, 1) * m13 - x(1, 1) * m03 + x(3, 1) * m01);
    const T c10 = T(x(2, 1) * m03 - x(3, 1) * m02 - x(0, 1) * m23);
    const T c00 = T(x(1, 1) * m23 - x(2, 1) * m13 + x(3, 1) * m12);
    const T c31 = T(x(0, 0) * m12 - x(1, 0) * m02 + x(2, 0) * m01);
    const T c21 = T(x(1, 0) * m03 - x(3, 0) * m01 - x(0, 0) * m13);
    const T c11 = T(x(0, 0) * m23 - x(2, 0) * m03 + x(3, 0) * m02);
    const T c01 = T(x(2, 0) * m13 - x(3, 0) * m12 - x(1, 0) * m23);
    const double det = x(3, 0) * c30 + x(2, 0) * c20 + x(1, 0) * c10 + x(0, 0) * c00;
    mat_t<4, 4, T> r;
    if (!(det > 0.0 || det < 0.0)) return r;
    const double k = 1.0 / det;
    const double c[4][4] = {{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) r.c[i].c[j] = T(c[j][i] * k);
    return r;
}
/// Warp's inverse_approx: on the CPU Warp's is the inverse; weft's is on every device.
template <int N, typename T> WEFT_RT_FN mat_t<N, N, T> inverse_approx(const mat_t<N, N, T> &m) { return inverse(m); }

/// identity<N, T>(): the N x N identity (the generic builtin identity(n, dtype)).
template <int N, typename T> WEFT_RT_FN mat_t<N, N, T> identity() {
    mat_t<N, N, T> r;
    for (int i = 0; i < N; ++i) r.c[i].c[i] = T(1);
    return r;
}

// -- quaternions ----------------------------------------------------------------
template <typename T> WEFT_RT_FN quat_t<T> quat_identity() { return quat_t<T>(T(0), T(0), T(0), T(1)); }
/// Hamilton product a b.
template <typename T> WEFT_RT_FN quat_t<T> mul(const quat_t<T> &a, const quat_t<T> &b) {
    typedef rt::acc<T> A;
    const A ax = A(a.c[0]), ay = A(a.c[1]), az = A(a.c[2]), aw = A(a.c[3]);
    const A bx = A(b.c[0]), by = A(b.c[1]), bz = A(b.c[2]), bw = A(b.c[3]);
    return quat_t<T>(T(aw * bx + bw * ax + ay * bz - by * az), T(aw * by + bw * ay + az * bx - bz * ax),
                     T(aw * bz + bw * az + ax * by - bx * ay), T(aw * bw - ax * bx - ay * by - az * bz));
}
template <typename T> WEFT_RT_FN T length(const quat_t<T> &q) { return T(sqrt(rt::dot_acc<4>(q.c, q.c))); }
/// q times 1 / |q|, as Warp's (a quotient per component differs from it in
/// the last bit); the zero quaternion becomes the identity (as Warp).
template <typename T> WEFT_RT_FN quat_t<T> normalize(const quat_t<T> &q) {
    const rt::acc<T> l = sqrt(rt::dot_acc<4>(q.c, q.c));
    if (!(l > rt::acc<T>(0))) return quat_identity<T>();
    const rt::acc<T> inv = rt::acc<T>(1) / l;
    quat_t<T> r;
    for (int i = 0; i < 4; ++i) r.c[i] = T(rt::acc<T>(q.c[i]) * inv);
    return r;
}
namespace rt {
/// quat_from_matrix's branch for m: 3 when the trace is not negative (w is
/// the component found first), else the index of the largest diagonal element.
template <int N, typename T> WEFT_RT_FN int quat_from_matrix_branch(const mat_t<N, N, T> &m) {
    const T tr = m.c[0].c[0] + m.c[1].c[1] + m.c[2].c[2];
    if (tr >= T(0)) return 3;
    int k = m.c[1].c[1] > m.c[0].c[0] ? 1 : 0;
    if (m.c[2].c[2] > m.c[k].c[k]) k = 2;
    return k;
}
} // namespace rt
/// Warp's quat_from_matrix, operation for operation: the component of the
/// branch from a square root, the others from sums or differences of
/// off-diagonal pairs, then Warp's normalize (times the length's reciprocal).
template <int N, typename T, WEFT_RT_IF(N == 3 || N == 4)> WEFT_RT_FN quat_t<T> quat_from_matrix(const mat_t<N, N, T> &m) {
    const auto e = [&](int i, int j) { return m.c[i].c[j]; };
    T x = T(0), y = T(0), z = T(0), w = T(0), h;
    switch (rt::quat_from_matrix_branch(m)) {
    case 3:
        h = T(sqrt(T(e(0, 0) + e(1, 1) + e(2, 2)) + T(1)));
        w = T(0.5) * h;
        h = T(0.5) / h;
        x = (e(2, 1) - e(1, 2)) * h;
        y = (e(0, 2) - e(2, 0)) * h;
        z = (e(1, 0) - e(0, 1)) * h;
        break;
    case 0:
        h = T(sqrt(T(e(0, 0) - T(e(1, 1) + e(2, 2))) + T(1)));
        x = T(0.5) * h;
        h = T(0.5) / h;
        y = (e(0, 1) + e(1, 0)) * h;
        z = (e(2, 0) + e(0, 2)) * h;
        w = (e(2, 1) - e(1, 2)) * h;
        break;
    case 1:
        h = T(sqrt(T(e(1, 1) - T(e(2, 2) + e(0, 0))) + T(1)));
        y = T(0.5) * h;
        h = T(0.5) / h;
        z = (e(1, 2) + e(2, 1)) * h;
        x = (e(0, 1) + e(1, 0)) * h;
        w = (e(0, 2) - e(2, 0)) * h;
        break;
    default:
        h = T(sqrt(T(e(2, 2) - T(e(0, 0) + e(1, 1))) + T(1)));
        z = T(0.5) * h;
        h = T(0.5) / h;
        x = (e(2, 0) + e(0, 2)) * h;
        y = (e(1, 2) + e(2, 1)) * h;
        w = (e(1, 0) - e(0, 1)) * h;
    }
    const T l = T(sqrt(T(T(T(x * x + y * y) + z * z) + w * w)));
    if (!(l > T(0))) return quat_identity<T>();
    const T inv = T(1) / l;
    return quat_t<T>(x * inv, y * inv, z * inv, w * inv);
}
/// The conjugate: the inverse of a unit quaternion.
template <typename T> WEFT_RT_FN quat_t<T> quat_inverse(const quat_t<T> &q) {
    return quat_t<T>(neg(q.c[0]), neg(q.c[1]), neg(q.c[2]), q.c[3]);
}
template <typename T> WEFT_RT_FN vec_t<3, T> quat_rotate(const quat_t<T> &q, const vec_t<3, T> &p) {
    typedef rt::acc<T> A;
    const A x = A(q.c[0]), y = A(q.c[1]), z = A(q.c[2]), w = A(q.c[3]);
    const A px = A(p.c[0]), py = A(p.c[1]), pz = A(p.c[2]);
    const A c = A(2) * w * w - A(1), d = A(2) * (x * px + y * py + z * pz);
    // Warp's expression, grouping included: (t * w) * 2 is rounded before the add, which the
    // compiler may fuse (t * (2 w) would fuse unrounded and differ in the last bit).
    return vec_t<3, T>(T(px * c + x * d + (y * pz - z * py) * w * A(2)), T(py * c + y * d + (z * px - x * pz) * w * A(2)),
                       T(pz * c + z * d + (x * py - y * px) * w * A(2)));
}
/// p rotated by the inverse of q (Warp's quat_rotate_inv, its expression).
template <typename T> WEFT_RT_FN vec_t<3, T> quat_rotate_inv(const quat_t<T> &q, const vec_t<3, T> &p) {
    typedef rt::acc<T> A;
    const A x = A(q.c[0]), y = A(q.c[1]), z = A(q.c[2]), w = A(q.c[3]);
    const A px = A(p.c[0]), py = A(p.c[1]), pz = A(p.c[2]);
    const A c = A(2) * w * w - A(1), d = A(2) * (x * px + y * py + z * pz);
    return vec_t<3, T>(T(px * c + x * d - (y * pz - z * py) * w * A(2)), T(py * c + y * d - (z * px - x * pz) * w * A(2)),
                       T(pz * c + z * d - (x * py - y * px) * w * A(2)));
}
/// Rotation by angle (radians) about axis (used as given; pass a unit axis).
template <typename T> WEFT_RT_FN quat_t<T> quat_from_axis_angle(const vec_t<3, T> &axis, T angle) {
    typedef rt::acc<T> A;
    const A h = A(angle) * A(0.5), s = sin(h);
    return quat_t<T>(T(A(axis.c[0]) * s), T(A(axis.c[1]) * s), T(A(axis.c[2]) * s), T(cos(h)));
}

/// Warp's quat_to_axis_angle: the axis (flipped when w < 0) and the angle, in [0, pi].
template <typename T> WEFT_RT_FN void quat_to_axis_angle(const quat_t<T> &q, vec_t<3, T> &axis, T &angle) {
    const vec_t<3, T> v(q.c[0], q.c[1], q.c[2]);
    axis = normalize(v);
    if (q.c[3] < T(0))
        for (int i = 0; i < 3; ++i) axis.c[i] = T(-axis.c[i]);
    angle = T(T(2) * atan2(length(v), abs(q.c[3])));
}
/// quat_to_axis_angle as the builtin returns it: a tuple struct R {e0: axis, e1: angle}.
template <typename R, typename T> WEFT_RT_FN R quat_to_axis_angle_tuple(const quat_t<T> &q) {
    R r;
    quat_to_axis_angle(q, r.e0, r.e1);
    return r;
}
/// Spherical interpolation from q0 (t = 0) to q1 (t = 1), as Warp computes it.
template <typename T> WEFT_RT_FN quat_t<T> quat_slerp(const quat_t<T> &q0, const quat_t<T> &q1, T t) {
    vec_t<3, T> axis;
    T angle;
    quat_to_axis_angle(mul(quat_inverse(q0), q1), axis, angle);
    return mul(q0, quat_from_axis_angle(axis, T(t * angle)));
}
/// The cross-product matrix of v: skew(v) * u == cross(v, u).
template <typename T> WEFT_RT_FN mat_t<3, 3, T> skew(const vec_t<3, T> &v) {
    return mat_t<3, 3, T>(T(0), T(-v.c[2]), v.c[1], v.c[2], T(0), T(-v.c[0]), T(-v.c[1]), v.c[0], T(0));
}
/// Warp's quat_rpy (roll about x, pitch about y, yaw about z), in its formula.
template <typename T> WEFT_RT_FN quat_t<T> quat_rpy(T roll, T pitch, T yaw) {
    const T cy = T(cos(T(yaw * T(0.5)))), sy = T(sin(T(yaw * T(0.5))));
    const T cr = T(cos(T(roll * T(0.5)))), sr = T(sin(T(roll * T(0.5))));
    const T cp = T(cos(T(pitch * T(0.5)))), sp = T(sin(T(pitch * T(0.5))));
    return quat_t<T>(T(cy * sr * cp - sy * cr * sp), T(cy * cr * sp + sy * sr * cp), T(sy * cr * cp - cy * sr * sp),
                     T(cy * cr * cp + sy * sr * sp));
}
/// The rotation matrix of q: column k is q rotating axis k (Warp's quat_to_matrix).
template <typename T> WEFT_RT_FN mat_t<3, 3, T> quat_to_matrix(const quat_t<T> &q) {
    mat_t<3, 3, T> m;
    for (int k = 0; k < 3; ++k) {
        vec_t<3, T> axis;
        axis.c[k] = T(1);
        const vec_t<3, T> col = quat_rotate(q, axis);
        for (int i = 0; i < 3; ++i) m.c[i].c[k] = col.c[i];
    }
    return m;
}

/// lerp(a, b, t) = a (1 - t) + b t, as Warp computes it (per component for vectors,
/// matrices and quaternions).
template <typename T, WEFT_RT_IF(rt::is_float<T>)> WEFT_RT_FN T lerp(T a, T b, T t) { return T(a * (T(1) - t) + b * t); }
WEFT_RT_COMP V lerp(const V &a, const V &b, rt::scalar_of<V> t) {
    V r = a;
    for (int i = 0; i < rt::comp<V>::n; ++i) rt::at(r, i) = lerp(rt::at(a, i), rt::at(b, i), t);
    return r;
}

} // namespace weft
