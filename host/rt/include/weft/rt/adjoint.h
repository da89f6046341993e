// weft runtime: reverse-mode adjoints of the core builtins, for the backward
// pass of kernels (included only by modules generated with their adjoints).
//
// Convention (as Warp's): adj_<builtin>(inputs..., adj_inputs&..., adj_result)
// adds the result's adjoint, propagated, to each input's adjoint. Integer and
// bool values carry no gradient; piecewise-constant builtins (floor, sign,
// comparisons, ...) propagate nothing.
#pragma once

#include "weft/rt/array.h"
#include "weft/rt/debug.h"
#include "weft/rt/tile_adjoint.h"

namespace weft {

// -- accumulation ---------------------------------------------------------------
template <typename T, WEFT_RT_IF(rt::is_scalar<T>)> WEFT_RT_FN void adj_acc(T &a, T v) {
    if constexpr (rt::is_float<T>) a = T(rt::acc<T>(a) + rt::acc<T>(v));
}
WEFT_RT_COMP void adj_acc(V &a, const V &v) {
    for (int i = 0; i < rt::comp<V>::n; ++i) adj_acc(rt::at(a, i), rt::at(v, i));
}
/// An array's adjoint is its gradient array: passed along, never summed.
template <typename T> WEFT_RT_FN void adj_acc(array_t<T> &, const array_t<T> &) {}
template <typename T> WEFT_RT_FN void adj_acc(indexedarray_t<T> &, const indexedarray_t<T> &) {}
template <typename T, WEFT_RT_IF(rt::is_scalar<T>)> WEFT_RT_FN void adj_sub_from(T &a, T v) {
    if constexpr (rt::is_float<T>) a = T(rt::acc<T>(a) - rt::acc<T>(v));
}
WEFT_RT_COMP void adj_sub_from(V &a, const V &v) {
    for (int i = 0; i < rt::comp<V>::n; ++i) adj_sub_from(rt::at(a, i), rt::at(v, i));
}
/// Atomic accumulation into an element of a gradient array (threads share elements).
template <typename T, WEFT_RT_IF(rt::is_scalar<T>)> WEFT_RT_FN void adj_atomic_acc(T *p, T v) {
    if constexpr (rt::is_float<T>) rt::atomic<rt::op_add>(p, v);
}
WEFT_RT_COMP void adj_atomic_acc(V *p, const V &v) {
    for (int i = 0; i < rt::comp<V>::n; ++i) adj_atomic_acc(&rt::at(*p, i), rt::at(v, i));
}
template <typename T> WEFT_RT_FN void adj_atomic_acc(array_t<T> *, const array_t<T> &) {}
template <typename T> WEFT_RT_FN void adj_atomic_acc(indexedarray_t<T> *, const indexedarray_t<T> &) {}

// -- array elements -------------------------------------------------------------
/// The adjoint of reading a[i...]: adj_a[i...] += adj (when a has a gradient).
template <typename T, typename... I> WEFT_RT_FN void adj_array_read(const array_t<T> &adj_a, const T &adj, I... i) {
    if (adj_a.data) adj_atomic_acc(&index(adj_a, i...), adj);
}
/// The same where only this thread touches the element (the kernel indexes the
/// array by its own tid() only): a plain add.
template <typename T, typename... I> WEFT_RT_FN void adj_array_read_owned(const array_t<T> &adj_a, const T &adj, I... i) {
    if (adj_a.data) adj_acc(index(adj_a, i...), adj);
}
/// The gradient of a[i...] (what a write's value receives); zero without a gradient array.
template <typename T, typename... I> WEFT_RT_FN T adj_array_load(const array_t<T> &adj_a, I... i) {
    if (!adj_a.data) return T{};
    return index(adj_a, i...);
}

/// An indexed array's adjoint twin is its base's gradient array read through
/// the same index arrays: a gradient reaches the base element the index chose.
/// Never owned: two positions may select one element.
template <typename T, typename... I> WEFT_RT_FN void adj_array_read(const indexedarray_t<T> &adj_a, const T &adj, I... i) {
    if (adj_a.arr.data) adj_atomic_acc(&index(adj_a, i...), adj);
}
template <typename T, typename... I> WEFT_RT_FN T adj_array_load(const indexedarray_t<T> &adj_a, I... i) {
    if (!adj_a.arr.data) return T{};
    return index(adj_a, i...);
}

// -- scalars --------------------------------------------------------------------
#define WEFT_RT_FLOAT template <typename T, WEFT_RT_IF(::weft::rt::is_float<T>)> WEFT_RT_FN
namespace rt {
template <typename T> WEFT_RT_FN void addf(T &a, acc<T> v) { a = T(acc<T>(a) + v); }
} // namespace rt

WEFT_RT_FLOAT void adj_add(T, T, T &adj_a, T &adj_b, T r) {
    adj_acc(adj_a, r);
    adj_acc(adj_b, r);
}
WEFT_RT_FLOAT void adj_sub(T, T, T &adj_a, T &adj_b, T r) {
    adj_acc(adj_a, r);
    adj_sub_from(adj_b, r);
}
WEFT_RT_FLOAT void adj_mul(T a, T b, T &adj_a, T &adj_b, T r) {
    typedef rt::acc<T> A;
    rt::addf(adj_a, A(b) * A(r));
    rt::addf(adj_b, A(a) * A(r));
}
WEFT_RT_FLOAT void adj_div(T a, T b, T &adj_a, T &adj_b, T r) {
    typedef rt::acc<T> A;
    rt::addf(adj_a, A(r) / A(b));
    rt::addf(adj_b, -A(r) * (A(a) / A(b)) / A(b));
}
WEFT_RT_FLOAT void adj_floordiv(T, T, T &, T &, T) {}
/// a % b == a - b * trunc(a / b) (C's fmod): the quotient is piecewise constant.
WEFT_RT_FLOAT void adj_mod(T a, T b, T &adj_a, T &adj_b, T r) {
    typedef rt::acc<T> A;
    rt::addf(adj_a, A(r));
    rt::addf(adj_b, -((A(a) - A(mod(a, b))) / A(b)) * A(r));
}
WEFT_RT_FLOAT void adj_neg(T, T &adj_a, T r) { adj_sub_from(adj_a, r); }
WEFT_RT_FLOAT void adj_pos(T, T &adj_a, T r) { adj_acc(adj_a, r); }
WEFT_RT_FLOAT void adj_abs(T a, T &adj_a, T r) {
    if (a < T(0)) adj_sub_from(adj_a, r);
    else if (a > T(0)) adj_acc(adj_a, r);
}
WEFT_RT_FLOAT void adj_sign(T, T &, T) {}
// Random draws carry no gradient (the state is an integer).
#define WEFT_RT_ADJ_NONE(name)                                                                                         \
    template <typename... A> WEFT_RT_FN void adj_##name(A &&...) {}
WEFT_RT_ADJ_NONE(randf)
WEFT_RT_ADJ_NONE(randn)
WEFT_RT_ADJ_NONE(sample_triangle)
WEFT_RT_ADJ_NONE(sample_unit_ring)
WEFT_RT_ADJ_NONE(sample_unit_disk)
WEFT_RT_ADJ_NONE(sample_unit_sphere_surface)
WEFT_RT_ADJ_NONE(sample_unit_sphere)
WEFT_RT_ADJ_NONE(sample_unit_hemisphere_surface)
WEFT_RT_ADJ_NONE(sample_unit_hemisphere)
WEFT_RT_ADJ_NONE(sample_unit_square)
WEFT_RT_ADJ_NONE(sample_unit_cube)
#undef WEFT_RT_ADJ_NONE
/// min and max pass the gradient to the operand they return (a on ties).
WEFT_RT_FLOAT void adj_min(T a, T b, T &adj_a, T &adj_b, T r) {
    if (b < a) adj_acc(adj_b, r);
    else adj_acc(adj_a, r);
}
WEFT_RT_FLOAT void adj_max(T a, T b, T &adj_a, T &adj_b, T r) {
    if (a < b) adj_acc(adj_b, r);
    else adj_acc(adj_a, r);
}
WEFT_RT_FLOAT void adj_clamp(T x, T low, T high, T &adj_x, T &adj_low, T &adj_high, T r) {
    // clamp(x, low, high) == min(max(x, low), high), as computed.
    const T m = max(x, low);
    if (high < m) adj_acc(adj_high, r);
    else if (x < low) adj_acc(adj_low, r);
    else adj_acc(adj_x, r);
}

WEFT_RT_FLOAT void adj_lerp(T a, T b, T t, T &adj_a, T &adj_b, T &adj_t, T r) {
    adj_acc(adj_a, T(r * (T(1) - t)));
    adj_acc(adj_b, T(r * t));
    adj_acc(adj_t, T(r * (b - a)));
}

#define WEFT_RT_ADJ1(name, expr)                                                                                       \
    WEFT_RT_FLOAT void adj_##name(T a_, T &adj_a, T r_) {                                                              \
        typedef rt::acc<T> A;                                                                                          \
        const A a = A(a_), r = A(r_);                                                                                  \
        (void)a;                                                                                                       \
        rt::addf(adj_a, (expr));                                                                                       \
    }
WEFT_RT_ADJ1(sqrt, r * A(0.5) / sqrt(a))
WEFT_RT_ADJ1(exp, r * exp(a))
WEFT_RT_ADJ1(log, r / a)
WEFT_RT_ADJ1(log2, r / (a * A(0.69314718055994530942)))
WEFT_RT_ADJ1(log10, r / (a * A(2.30258509299404568402)))
WEFT_RT_ADJ1(sin, r * cos(a))
WEFT_RT_ADJ1(cos, -r * sin(a))
WEFT_RT_ADJ1(tan, r / (cos(a) * cos(a)))
WEFT_RT_ADJ1(asin, r / sqrt(A(1) - a * a))
WEFT_RT_ADJ1(acos, -r / sqrt(A(1) - a * a))
WEFT_RT_ADJ1(atan, r / (A(1) + a * a))
WEFT_RT_ADJ1(sinh, r * cosh(a))
WEFT_RT_ADJ1(cosh, r * sinh(a))
WEFT_RT_ADJ1(tanh, r * (A(1) - tanh(a) * tanh(a)))
WEFT_RT_ADJ1(floor, A(0))
WEFT_RT_ADJ1(ceil, A(0))
WEFT_RT_ADJ1(round, A(0))
WEFT_RT_ADJ1(trunc, A(0))
WEFT_RT_ADJ1(rint, A(0))
WEFT_RT_ADJ1(cbrt, (A(1) / A(3)) * (A(1) / (A(cbrt(a_)) * A(cbrt(a_)))) * r)
WEFT_RT_ADJ1(erf, A(1.12837916709551257390) * exp(-a * a) * r)   // 2 / sqrt(pi), as Warp's
WEFT_RT_ADJ1(erfc, -A(1.12837916709551257390) * exp(-a * a) * r)
WEFT_RT_ADJ1(step, A(0))
WEFT_RT_ADJ1(nonzero, A(0))
// 1 between integers (Warp 1.19 leaves frac without an adjoint, a gradient of 0).
WEFT_RT_ADJ1(frac, r)
#undef WEFT_RT_ADJ1
/// copysign(x, y) = |x| sign(y): +1 where the sign bits agree, -1 otherwise; 0 for y (Warp's).
WEFT_RT_FLOAT void adj_copysign(T x, T y, T &adj_x, T &, T r) {
    if (copysign(T(1), x) == copysign(T(1), y)) adj_acc(adj_x, r);
    else adj_sub_from(adj_x, r);
}
WEFT_RT_FLOAT void adj_div_approx(T a, T b, T &adj_a, T &adj_b, T r) { adj_div(a, b, adj_a, adj_b, r); }
/// Warp's smoothstep adjoint: zero outside the ramp.
WEFT_RT_FLOAT void adj_smoothstep(T edge0_, T edge1_, T x_, T &adj_edge0, T &adj_edge1, T &adj_x, T r_) {
    typedef rt::acc<T> A;
    const A edge0 = A(edge0_), edge1 = A(edge1_), x = A(x_), r = A(r_);
    const A ab = edge0 - edge1, ax = edge0 - x, bx = edge1 - x, xb = x - edge1;
    if (bx / ab >= A(0) || ax / ab <= A(0)) return;
    const A ab3 = ab * ab * ab, ab4 = ab3 * ab;
    rt::addf(adj_edge0, r * ((A(6) * ax * bx * bx) / ab4));
    rt::addf(adj_edge1, r * ((A(6) * ax * ax * xb) / ab4));
    rt::addf(adj_x, r * ((A(6) * ax * bx) / ab3));
}
WEFT_RT_FLOAT void adj_pow(T a_, T b_, T &adj_a, T &adj_b, T r_) {
    typedef rt::acc<T> A;
    const A a = A(a_), b = A(b_), r = A(r_);
    if (b != A(0)) rt::addf(adj_a, r * b * pow(a, b - A(1)));
    if (a > A(0)) rt::addf(adj_b, r * log(a) * pow(a, b));
}
/// atan2(y = a, x = b).
WEFT_RT_FLOAT void adj_atan2(T a_, T b_, T &adj_a, T &adj_b, T r_) {
    typedef rt::acc<T> A;
    const A y = A(a_), x = A(b_), r = A(r_), d = x * x + y * y;
    if (d > A(0)) {
        rt::addf(adj_a, r * x / d);
        rt::addf(adj_b, -r * y / d);
    }
}
/// static_cast between float types (and the components of vectors, matrices, quaternions).
template <typename From, typename To> WEFT_RT_FN void adj_cast(From &adj_from, const To &r) {
    if constexpr (rt::is_scalar<From> && rt::is_scalar<To>) {
        if constexpr (rt::is_float<From> && rt::is_float<To>) adj_acc(adj_from, static_cast<From>(r));
    } else if constexpr (rt::comp<From>::is && rt::comp<To>::is) {
        for (int i = 0; i < rt::comp<From>::n; ++i) adj_cast(rt::at(adj_from, i), rt::at(r, i));
    }
}

// -- vectors, matrices, quaternions: component-wise -------------------------------
#define WEFT_RT_CMAP1(name)                                                                                            \
    WEFT_RT_COMP void adj_##name(const V &a, V &adj_a, const V &r) {                                                   \
        for (int i = 0; i < rt::comp<V>::n; ++i) adj_##name(rt::at(a, i), rt::at(adj_a, i), rt::at(r, i));            \
    }
#define WEFT_RT_CMAP2(name, scalar_name)                                                                               \
    WEFT_RT_COMP void adj_##name(const V &a, const V &b, V &adj_a, V &adj_b, const V &r) {                             \
        for (int i = 0; i < rt::comp<V>::n; ++i)                                                                       \
            adj_##scalar_name(rt::at(a, i), rt::at(b, i), rt::at(adj_a, i), rt::at(adj_b, i), rt::at(r, i));           \
    }
WEFT_RT_CMAP1(neg)
WEFT_RT_CMAP1(pos)
WEFT_RT_CMAP1(abs)
WEFT_RT_CMAP2(add, add)
WEFT_RT_CMAP2(sub, sub)
WEFT_RT_CMAP2(min, min)
WEFT_RT_CMAP2(max, max)
WEFT_RT_CMAP2(cw_mul, mul)
WEFT_RT_CMAP2(cw_div, div)
#undef WEFT_RT_CMAP1
#undef WEFT_RT_CMAP2
WEFT_RT_COMP void adj_lerp(const V &a, const V &b, rt::scalar_of<V> t, V &adj_a, V &adj_b, rt::scalar_of<V> &adj_t,
                           const V &r) {
    for (int i = 0; i < rt::comp<V>::n; ++i)
        adj_lerp(rt::at(a, i), rt::at(b, i), t, rt::at(adj_a, i), rt::at(adj_b, i), adj_t, rt::at(r, i));
}
WEFT_RT_COMP void adj_mul(const V &a, rt::scalar_of<V> s, V &adj_a, rt::scalar_of<V> &adj_s, const V &r) {
    for (int i = 0; i < rt::comp<V>::n; ++i) adj_mul(rt::at(a, i), s, rt::at(adj_a, i), adj_s, rt::at(r, i));
}
WEFT_RT_COMP void adj_mul(rt::scalar_of<V> s, const V &a, rt::scalar_of<V> &adj_s, V &adj_a, const V &r) {
    for (int i = 0; i < rt::comp<V>::n; ++i) adj_mul(s, rt::at(a, i), adj_s, rt::at(adj_a, i), rt::at(r, i));
}
WEFT_RT_COMP void adj_div(const V &a, rt::scalar_of<V> s, V &adj_a, rt::scalar_of<V> &adj_s, const V &r) {
    for (int i = 0; i < rt::comp<V>::n; ++i) adj_div(rt::at(a, i), s, rt::at(adj_a, i), adj_s, rt::at(r, i));
}

// -- vectors --------------------------------------------------------------------
template <int N, typename T>
WEFT_RT_FN void adj_dot(const vec_t<N, T> &a, const vec_t<N, T> &b, vec_t<N, T> &adj_a, vec_t<N, T> &adj_b, T r) {
    typedef rt::acc<T> A;
    for (int i = 0; i < N; ++i) {
        rt::addf(adj_a.c[i], A(b.c[i]) * A(r));
        rt::addf(adj_b.c[i], A(a.c[i]) * A(r));
    }
}
template <int N, typename T> WEFT_RT_FN void adj_length_sq(const vec_t<N, T> &a, vec_t<N, T> &adj_a, T r) {
    typedef rt::acc<T> A;
    for (int i = 0; i < N; ++i) rt::addf(adj_a.c[i], A(2) * A(a.c[i]) * A(r));
}
template <int N, typename T> WEFT_RT_FN void adj_length(const vec_t<N, T> &a, vec_t<N, T> &adj_a, T r) {
    typedef rt::acc<T> A;
    const A l = sqrt(rt::dot_acc<N>(a.c, a.c));
    if (l > A(0))
        for (int i = 0; i < N; ++i) rt::addf(adj_a.c[i], A(a.c[i]) / l * A(r));
}
template <int N, typename T> WEFT_RT_FN void adj_normalize(const vec_t<N, T> &a, vec_t<N, T> &adj_a, const vec_t<N, T> &r) {
    typedef rt::acc<T> A;
    const A l = sqrt(rt::dot_acc<N>(a.c, a.c));
    if (!(l > A(0))) return;
    // d(a/l) = (r - n (n . r)) / l, n = a / l.
    A nr = A(0);
    for (int i = 0; i < N; ++i) nr += A(a.c[i]) / l * A(r.c[i]);
    for (int i = 0; i < N; ++i) rt::addf(adj_a.c[i], (A(r.c[i]) - A(a.c[i]) / l * nr) / l);
}
template <typename T>
WEFT_RT_FN void adj_cross(const vec_t<3, T> &a, const vec_t<3, T> &b, vec_t<3, T> &adj_a, vec_t<3, T> &adj_b,
                          const vec_t<3, T> &r) {
    // a x b: adj_a += b x r, adj_b += r x a.
    adj_acc(adj_a, cross(b, r));
    adj_acc(adj_b, cross(r, a));
}

// -- matrices -------------------------------------------------------------------
template <int R, int K, int C, typename T>
WEFT_RT_FN void adj_mul(const mat_t<R, K, T> &a, const mat_t<K, C, T> &b, mat_t<R, K, T> &adj_a, mat_t<K, C, T> &adj_b,
                        const mat_t<R, C, T> &r) {
    adj_acc(adj_a, mul(r, transpose(b)));
    adj_acc(adj_b, mul(transpose(a), r));
}
template <int R, int C, typename T>
WEFT_RT_FN void adj_mul(const mat_t<R, C, T> &m, const vec_t<C, T> &v, mat_t<R, C, T> &adj_m, vec_t<C, T> &adj_v,
                        const vec_t<R, T> &r) {
    adj_acc(adj_m, outer(r, v));
    adj_acc(adj_v, mul(r, m));
}
template <int R, int C, typename T>
WEFT_RT_FN void adj_mul(const vec_t<R, T> &v, const mat_t<R, C, T> &m, vec_t<R, T> &adj_v, mat_t<R, C, T> &adj_m,
                        const vec_t<C, T> &r) {
    adj_acc(adj_v, mul(m, r));
    adj_acc(adj_m, outer(v, r));
}
template <int R, int C, typename T>
WEFT_RT_FN void adj_transpose(const mat_t<R, C, T> &, mat_t<R, C, T> &adj_m, const mat_t<C, R, T> &r) {
    adj_acc(adj_m, transpose(r));
}
template <int R, int C, typename T>
WEFT_RT_FN void adj_outer(const vec_t<R, T> &a, const vec_t<C, T> &b, vec_t<R, T> &adj_a, vec_t<C, T> &adj_b,
                          const mat_t<R, C, T> &r) {
    adj_acc(adj_a, mul(r, b));
    adj_acc(adj_b, mul(a, r));
}
template <int N, typename T> WEFT_RT_FN void adj_trace(const mat_t<N, N, T> &, mat_t<N, N, T> &adj_m, T r) {
    for (int i = 0; i < N; ++i) adj_acc(adj_m.c[i].c[i], r);
}
/// d det(m) / d m[i][j] is the cofactor C[i][j].
template <typename T> WEFT_RT_FN void adj_determinant(const mat_t<2, 2, T> &m, mat_t<2, 2, T> &adj_m, T r_) {
    typedef rt::acc<T> A;
    const A r = A(r_);
    rt::addf(adj_m.c[0].c[0], A(m.c[1].c[1]) * r);
    rt::addf(adj_m.c[0].c[1], -A(m.c[1].c[0]) * r);
    rt::addf(adj_m.c[1].c[0], -A(m.c[0].c[1]) * r);
    rt::addf(adj_m.c[1].c[1], A(m.c[0].c[0]) * r);
}
template <int N, typename T, WEFT_RT_IF(N == 3 || N == 4)>
WEFT_RT_FN void adj_determinant(const mat_t<N, N, T> &m, mat_t<N, N, T> &adj_m, T r_) {
    typedef rt::acc<T> A;
    for (int i = 0; i < N; ++i)
        for (int j = 0; j < N; ++j) {
            mat_t<N - 1, N - 1, A> minor;
            for (int a = 0, ra = 0; a < N; ++a) {
                if (a == i) continue;
                for (int b = 0, cb = 0; b < N; ++b)
                    if (b != j) minor.c[ra].c[cb++] = A(m.c[a].c[b]);
                ++ra;
            }
            const A cof = ((i + j) & 1) ? -A(determinant(minor)) : A(determinant(minor));
            rt::addf(adj_m.c[i].c[j], cof * A(r_));
        }
}

/// matrix_from_rows / _cols: each vector's adjoint is its row (column) of r
/// (K vectors of length C: a K x C matrix of rows, a C x K one of columns).
template <int C, typename T>
WEFT_RT_FN void adj_matrix_from_rows(const vec_t<C, T> &, const vec_t<C, T> &, vec_t<C, T> &a0, vec_t<C, T> &a1,
                                     const mat_t<2, C, T> &r) {
    adj_acc(a0, r.c[0]);
    adj_acc(a1, r.c[1]);
}
template <int C, typename T>
WEFT_RT_FN void adj_matrix_from_rows(const vec_t<C, T> &, const vec_t<C, T> &, const vec_t<C, T> &, vec_t<C, T> &a0,
                                     vec_t<C, T> &a1, vec_t<C, T> &a2, const mat_t<3, C, T> &r) {
    adj_acc(a0, r.c[0]);
    adj_acc(a1, r.c[1]);
    adj_acc(a2, r.c[2]);
}
template <int C, typename T>
WEFT_RT_FN void adj_matrix_from_rows(const vec_t<C, T> &, const vec_t<C, T> &, const vec_t<C, T> &, const vec_t<C, T> &,
                                     vec_t<C, T> &a0, vec_t<C, T> &a1, vec_t<C, T> &a2, vec_t<C, T> &a3,
                                     const mat_t<4, C, T> &r) {
    adj_acc(a0, r.c[0]);
    adj_acc(a1, r.c[1]);
    adj_acc(a2, r.c[2]);
    adj_acc(a3, r.c[3]);
}
template <int C, typename T>
WEFT_RT_FN void adj_matrix_from_cols(const vec_t<C, T> &x0, const vec_t<C, T> &x1, vec_t<C, T> &a0, vec_t<C, T> &a1,
                                     const mat_t<C, 2, T> &r) {
    adj_matrix_from_rows(x0, x1, a0, a1, transpose(r));
}
template <int C, typename T>
WEFT_RT_FN void adj_matrix_from_cols(const vec_t<C, T> &x0, const vec_t<C, T> &x1, const vec_t<C, T> &x2,
                                     vec_t<C, T> &a0, vec_t<C, T> &a1, vec_t<C, T> &a2, const mat_t<C, 3, T> &r) {
    adj_matrix_from_rows(x0, x1, x2, a0, a1, a2, transpose(r));
}
template <int C, typename T>
WEFT_RT_FN void adj_matrix_from_cols(const vec_t<C, T> &x0, const vec_t<C, T> &x1, const vec_t<C, T> &x2,
                                     const vec_t<C, T> &x3, vec_t<C, T> &a0, vec_t<C, T> &a1, vec_t<C, T> &a2,
                                     vec_t<C, T> &a3, const mat_t<C, 4, T> &r) {
    adj_matrix_from_rows(x0, x1, x2, x3, a0, a1, a2, a3, transpose(r));
}

/// d inverse(m) = -inverse(m) dm inverse(m): adj_m -= inv^T r inv^T (Giles,
/// "An extended collection of matrix derivative results", 2.2.3; as Warp's).
template <int N, typename T>
WEFT_RT_FN void adj_inverse(const mat_t<N, N, T> &m, mat_t<N, N, T> &adj_m, const mat_t<N, N, T> &r) {
    const mat_t<N, N, T> inv_t = transpose(inverse(m));
    adj_m = sub(adj_m, mul(mul(inv_t, r), inv_t));
}
template <int N, typename T>
WEFT_RT_FN void adj_inverse_approx(const mat_t<N, N, T> &m, mat_t<N, N, T> &adj_m, const mat_t<N, N, T> &r) {
    adj_inverse(m, adj_m, r);
}

// -- quaternions ------------------------------------------------------------------
template <typename T>
WEFT_RT_FN void adj_mul(const quat_t<T> &a, const quat_t<T> &b, quat_t<T> &adj_a, quat_t<T> &adj_b, const quat_t<T> &r) {
    typedef rt::acc<T> A;
    const A ax = A(a.c[0]), ay = A(a.c[1]), az = A(a.c[2]), aw = A(a.c[3]);
    const A bx = A(b.c[0]), by = A(b.c[1]), bz = A(b.c[2]), bw = A(b.c[3]);
    const A rx = A(r.c[0]), ry = A(r.c[1]), rz = A(r.c[2]), rw = A(r.c[3]);
    // r = (aw bx + bw ax + ay bz - by az, aw by + bw ay + az bx - bz ax, aw bz + bw az + ax by - bx ay, aw bw - a.b)
    rt::addf(adj_a.c[0], rx * bw - ry * bz + rz * by - rw * bx);
    rt::addf(adj_a.c[1], rx * bz + ry * bw - rz * bx - rw * by);
    rt::addf(adj_a.c[2], -rx * by + ry * bx + rz * bw - rw * bz);
    rt::addf(adj_a.c[3], rx * bx + ry * by + rz * bz + rw * bw);
    rt::addf(adj_b.c[0], rx * aw + ry * az - rz * ay - rw * ax);
    rt::addf(adj_b.c[1], -rx * az + ry * aw + rz * ax - rw * ay);
    rt::addf(adj_b.c[2], rx * ay - ry * ax + rz * aw - rw * az);
    rt::addf(adj_b.c[3], rx * ax + ry * ay + rz * az + rw * aw);
}
template <typename T> WEFT_RT_FN void adj_length(const quat_t<T> &q, quat_t<T> &adj_q, T r) {
    typedef rt::acc<T> A;
    const A l = sqrt(rt::dot_acc<4>(q.c, q.c));
    if (l > A(0))
        for (int i = 0; i < 4; ++i) rt::addf(adj_q.c[i], A(q.c[i]) / l * A(r));
}
template <typename T> WEFT_RT_FN void adj_normalize(const quat_t<T> &q, quat_t<T> &adj_q, const quat_t<T> &r) {
    typedef rt::acc<T> A;
    const A l = sqrt(rt::dot_acc<4>(q.c, q.c));
    if (!(l > A(0))) return; // the identity substituted for zero is constant
    A nr = A(0);
    for (int i = 0; i < 4; ++i) nr += A(q.c[i]) / l * A(r.c[i]);
    for (int i = 0; i < 4; ++i) rt::addf(adj_q.c[i], (A(r.c[i]) - A(q.c[i]) / l * nr) / l);
}
/// quat_from_matrix's gradient: through Warp's normalize, then through the
/// branch's square root (diagonal elements) and its off-diagonal pairs
/// (d h / d s = -2 h^3 for h = 0.5 / sqrt(s)).
template <int N, typename T, WEFT_RT_IF(N == 3 || N == 4)>
WEFT_RT_FN void adj_quat_from_matrix(const mat_t<N, N, T> &m, mat_t<N, N, T> &adj_m, const quat_t<T> &r) {
    typedef rt::acc<T> A;
    const auto e = [&](int i, int j) { return A(m.c[i].c[j]); };
    const int big = rt::quat_from_matrix_branch(m);
    // The sign of each diagonal element in the branch's radicand s.
    A sign[3];
    for (int i = 0; i < 3; ++i) sign[i] = big == 3 || big == i ? A(1) : A(-1);
    const A s = A(1) + sign[0] * e(0, 0) + sign[1] * e(1, 1) + sign[2] * e(2, 2);
    const A root = sqrt(s), h = A(0.5) / root;
    // Each other component: (m[r1][c1] + sign m[r2][c2]) h.
    struct Pair {
        int component, r1, c1, r2, c2, sign;
    };
    const Pair table[4][3] = {
        {{1, 0, 1, 1, 0, 1}, {2, 2, 0, 0, 2, 1}, {3, 2, 1, 1, 2, -1}},  // x from the root
        {{2, 1, 2, 2, 1, 1}, {0, 0, 1, 1, 0, 1}, {3, 0, 2, 2, 0, -1}},  // y
        {{0, 2, 0, 0, 2, 1}, {1, 1, 2, 2, 1, 1}, {3, 1, 0, 0, 1, -1}},  // z
        {{0, 2, 1, 1, 2, -1}, {1, 0, 2, 2, 0, -1}, {2, 1, 0, 0, 1, -1}}, // w (the trace's branch)
    };
    A u[4];
    u[big] = A(0.5) * root;
    for (const Pair &p : table[big]) u[p.component] = (e(p.r1, p.c1) + A(p.sign) * e(p.r2, p.c2)) * h;
    const A l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2] + u[3] * u[3]);
    if (!(l > A(0))) return; // the identity substituted for zero is constant
    A qr = A(0);
    for (int i = 0; i < 4; ++i) qr += u[i] / l * A(r.c[i]);
    A adj_u[4];
    for (int i = 0; i < 4; ++i) adj_u[i] = (A(r.c[i]) - u[i] / l * qr) / l;
    for (int i = 0; i < 3; ++i) rt::addf(adj_m.c[i].c[i], adj_u[big] * A(0.5) * h * sign[i]);
    const A dh = A(-2) * h * h * h;
    for (const Pair &p : table[big]) {
        const A g = adj_u[p.component];
        rt::addf(adj_m.c[p.r1].c[p.c1], g * h);
        rt::addf(adj_m.c[p.r2].c[p.c2], g * h * A(p.sign));
        const A combo = e(p.r1, p.c1) + A(p.sign) * e(p.r2, p.c2);
        for (int i = 0; i < 3; ++i) rt::addf(adj_m.c[i].c[i], g * combo * dh * sign[i]);
    }
}
template <typename T> WEFT_RT_FN void adj_quat_inverse(const quat_t<T> &, quat_t<T> &adj_q, const quat_t<T> &r) {
    adj_sub_from(adj_q.c[0], r.c[0]);
    adj_sub_from(adj_q.c[1], r.c[1]);
    adj_sub_from(adj_q.c[2], r.c[2]);
    adj_acc(adj_q.c[3], r.c[3]);
}
template <typename T>
WEFT_RT_FN void adj_quat_rotate(const quat_t<T> &q, const vec_t<3, T> &p, quat_t<T> &adj_q, vec_t<3, T> &adj_p,
                                const vec_t<3, T> &r) {
    typedef rt::acc<T> A;
    const A x = A(q.c[0]), y = A(q.c[1]), z = A(q.c[2]), w = A(q.c[3]);
    const A px = A(p.c[0]), py = A(p.c[1]), pz = A(p.c[2]);
    const A rx = A(r.c[0]), ry = A(r.c[1]), rz = A(r.c[2]);
    const A c = A(2) * w * w - A(1), d = A(2) * (x * px + y * py + z * pz), w2 = A(2) * w;
    // out = p c + q.xyz d + (q.xyz x p) w2
    const A qr = x * rx + y * ry + z * rz;       // q.xyz . r
    const A pr = px * rx + py * ry + pz * rz;    // p . r
    // (q x p) . r = q . (p x r) = p . (r x q)
    const A pxr_x = py * rz - pz * ry, pxr_y = pz * rx - px * rz, pxr_z = px * ry - py * rx;
    const A rxq_x = ry * z - rz * y, rxq_y = rz * x - rx * z, rxq_z = rx * y - ry * x;
    const A qxp_r = x * pxr_x + y * pxr_y + z * pxr_z;
    rt::addf(adj_p.c[0], rx * c + A(2) * x * qr + w2 * rxq_x);
    rt::addf(adj_p.c[1], ry * c + A(2) * y * qr + w2 * rxq_y);
    rt::addf(adj_p.c[2], rz * c + A(2) * z * qr + w2 * rxq_z);
    rt::addf(adj_q.c[0], rx * d + A(2) * px * qr + w2 * pxr_x);
    rt::addf(adj_q.c[1], ry * d + A(2) * py * qr + w2 * pxr_y);
    rt::addf(adj_q.c[2], rz * d + A(2) * pz * qr + w2 * pxr_z);
    rt::addf(adj_q.c[3], A(4) * w * pr + A(2) * qxp_r);
}
template <int N, typename T> WEFT_RT_FN void adj_diag(const vec_t<N, T> &, vec_t<N, T> &adj_v, const mat_t<N, N, T> &r) {
    for (int i = 0; i < N; ++i) adj_acc(adj_v.c[i], r.c[i].c[i]);
}
template <int N, typename T> WEFT_RT_FN void adj_get_diag(const mat_t<N, N, T> &, mat_t<N, N, T> &adj_m, const vec_t<N, T> &r) {
    for (int i = 0; i < N; ++i) adj_acc(adj_m.c[i].c[i], r.c[i]);
}
template <int R, int C, typename T>
WEFT_RT_FN void adj_ddot(const mat_t<R, C, T> &a, const mat_t<R, C, T> &b, mat_t<R, C, T> &adj_a, mat_t<R, C, T> &adj_b, T r) {
    for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
            rt::addf(adj_a.c[i].c[j], rt::acc<T>(b.c[i].c[j]) * rt::acc<T>(r));
            rt::addf(adj_b.c[i].c[j], rt::acc<T>(a.c[i].c[j]) * rt::acc<T>(r));
        }
}
/// quat_rotate_inv(q, p) is quat_rotate(conj(q), p): its gradient through the conjugate.
template <typename T>
WEFT_RT_FN void adj_quat_rotate_inv(const quat_t<T> &q, const vec_t<3, T> &p, quat_t<T> &adj_q, vec_t<3, T> &adj_p,
                                    const vec_t<3, T> &r) {
    const quat_t<T> conj(-q.c[0], -q.c[1], -q.c[2], q.c[3]);
    quat_t<T> adj_conj{};
    adj_quat_rotate(conj, p, adj_conj, adj_p, r);
    for (int i = 0; i < 3; ++i) rt::addf(adj_q.c[i], -rt::acc<T>(adj_conj.c[i]));
    rt::addf(adj_q.c[3], rt::acc<T>(adj_conj.c[3]));
}
template <typename T> WEFT_RT_FN void adj_skew(const vec_t<3, T> &v, vec_t<3, T> &adj_v, const mat_t<3, 3, T> &r) {
    (void)v;
    typedef rt::acc<T> A;
    rt::addf(adj_v.c[0], A(r.c[2].c[1]) - A(r.c[1].c[2]));
    rt::addf(adj_v.c[1], A(r.c[0].c[2]) - A(r.c[2].c[0]));
    rt::addf(adj_v.c[2], A(r.c[1].c[0]) - A(r.c[0].c[1]));
}
template <typename T>
WEFT_RT_FN void adj_quat_rpy(T roll, T pitch, T yaw, T &adj_roll, T &adj_pitch, T &adj_yaw, const quat_t<T> &r) {
    // Warp's derivatives of its formula, component by component.
    typedef rt::acc<T> A;
    const A cy = cos(A(yaw) * A(0.5)), sy = sin(A(yaw) * A(0.5)), cr = cos(A(roll) * A(0.5)), sr = sin(A(roll) * A(0.5));
    const A cp = cos(A(pitch) * A(0.5)), sp = sin(A(pitch) * A(0.5));
    const A w = cy * cr * cp + sy * sr * sp, x = cy * sr * cp - sy * cr * sp;
    const A y = cy * cr * sp + sy * sr * cp, z = sy * cr * cp - cy * sr * sp;
    const A rx = A(r.c[0]), ry = A(r.c[1]), rz = A(r.c[2]), rw = A(r.c[3]);
    rt::addf(adj_roll, A(0.5) * (w * rx + z * ry - y * rz - x * rw));
    rt::addf(adj_pitch, (-A(0.5) * cy * sr * sp - A(0.5) * sy * cr * cp) * rx +
                            (A(0.5) * cy * cr * cp - A(0.5) * sy * sr * sp) * ry +
                            (-A(0.5) * sy * cr * sp - A(0.5) * cy * sr * cp) * rz +
                            (-A(0.5) * cy * cr * sp + A(0.5) * sy * sr * cp) * rw);
    rt::addf(adj_yaw, A(0.5) * (-y * rx + x * ry + w * rz - z * rw));
}
template <typename T> WEFT_RT_FN void adj_quat_to_matrix(const quat_t<T> &q, quat_t<T> &adj_q, const mat_t<3, 3, T> &r) {
    for (int k = 0; k < 3; ++k) {
        vec_t<3, T> axis, unused, col;
        axis.c[k] = T(1);
        for (int i = 0; i < 3; ++i) col.c[i] = r.c[i].c[k];
        adj_quat_rotate(q, axis, adj_q, unused, col);
    }
}
template <typename T>
WEFT_RT_FN void adj_quat_from_axis_angle(const vec_t<3, T> &axis, T angle, vec_t<3, T> &adj_axis, T &adj_angle,
                                         const quat_t<T> &r) {
    typedef rt::acc<T> A;
    const A h = A(angle) * A(0.5), s = sin(h), c = cos(h);
    A ds = A(0);
    for (int i = 0; i < 3; ++i) {
        rt::addf(adj_axis.c[i], A(r.c[i]) * s);
        ds += A(r.c[i]) * A(axis.c[i]);
    }
    rt::addf(adj_angle, (ds * c - A(r.c[3]) * s) * A(0.5));
}

/// quat_to_axis_angle's derivative (axis = flip v / |v|, angle = 2 atan2(|v|, |w|)).
template <typename T>
WEFT_RT_FN void adj_quat_to_axis_angle(const quat_t<T> &q, quat_t<T> &adj_q, const vec_t<3, T> &adj_axis, T adj_angle) {
    typedef rt::acc<T> A;
    const A v[3] = {A(q.c[0]), A(q.c[1]), A(q.c[2])}, w = A(q.c[3]);
    const A l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (!(l > A(0))) return;
    const A flip = w < A(0) ? A(-1) : A(1), aw = w < A(0) ? -w : w, den = l * l + aw * aw;
    A va = A(0);
    for (int i = 0; i < 3; ++i) va += v[i] * A(adj_axis.c[i]);
    const A dl = A(2) * aw / den * A(adj_angle);
    for (int i = 0; i < 3; ++i) rt::addf(adj_q.c[i], flip * (A(adj_axis.c[i]) / l - v[i] * va / (l * l * l)) + dl * v[i] / l);
    rt::addf(adj_q.c[3], A(adj_angle) * (-A(2) * l / den) * flip);
}
/// Through quat_slerp's steps in reverse (the exact derivative).
template <typename T>
WEFT_RT_FN void adj_quat_slerp(const quat_t<T> &q0, const quat_t<T> &q1, T t, quat_t<T> &adj_q0, quat_t<T> &adj_q1,
                               T &adj_t, const quat_t<T> &r) {
    const quat_t<T> q0i = quat_inverse(q0), qi = mul(q0i, q1);
    vec_t<3, T> axis;
    T angle;
    quat_to_axis_angle(qi, axis, angle);
    const T ta = T(t * angle);
    const quat_t<T> qt = quat_from_axis_angle(axis, ta);
    quat_t<T> adj_qt, adj_qi, adj_q0i;
    adj_mul(q0, qt, adj_q0, adj_qt, r);
    vec_t<3, T> adj_axis;
    T adj_ta = T(0);
    adj_quat_from_axis_angle(axis, ta, adj_axis, adj_ta, adj_qt);
    adj_acc(adj_t, T(adj_ta * angle));
    adj_quat_to_axis_angle(qi, adj_qi, adj_axis, T(adj_ta * t));
    adj_mul(q0i, q1, adj_q0i, adj_q1, adj_qi);
    adj_quat_inverse(q0, adj_q0, adj_q0i);
}

// -- construction -----------------------------------------------------------------
/// vecN(s) / matRC(s): every component from one scalar.
template <typename V, WEFT_RT_IF(rt::comp<V>::is)> WEFT_RT_FN void adj_fill(rt::scalar_of<V> &adj_s, const V &r) {
    for (int i = 0; i < rt::comp<V>::n; ++i) adj_acc(adj_s, rt::at(r, i));
}
/// Component k of a composite built from its components in order.
template <typename V, WEFT_RT_IF(rt::comp<V>::is)>
WEFT_RT_FN void adj_component(rt::scalar_of<V> &adj_s, const V &r, int k) {
    adj_acc(adj_s, rt::at(r, k));
}

// -- the backward pass's own storage ------------------------------------------------
namespace rt {
/// Byte copy (NVRTC has no __builtin_memcpy).
WEFT_RT_FN void copy_bytes(void *dst, const void *src, unsigned long n) {
    unsigned char *d = static_cast<unsigned char *>(dst);
    const unsigned char *s = static_cast<const unsigned char *>(src);
    for (unsigned long i = 0; i < n; ++i) d[i] = s[i];
}
/// Values a backward pass saves while it replays the forward statements (those
/// overwritten later, branch decisions, loop trip counts), restored in reverse.
/// On the CPU it starts on the stack and grows on the heap; under CUDA it is a
/// fixed per-thread buffer. Overflowing it (CUDA) or failing to grow it (the
/// CPU: malloc returned NULL, or the size would wrap) stops saving, and
/// adj_tape_overflow fails the launch with a message instead of writing
/// through a null pointer.
#if !defined(WEFT_RT_CUDA)
// The host keeps one spare heap block per worker thread (rt_calls.cpp):
// a block of at least `need` bytes (its size in *cap), or null; and back.
extern "C" void *weft_rt_tape_take(unsigned long need, unsigned long *cap);
extern "C" void weft_rt_tape_give(void *block, unsigned long cap);
#endif
struct adj_tape {
#if defined(WEFT_RT_CUDA)
    static constexpr unsigned long inline_bytes = 512; // per-thread local memory: kept small
#else
    static constexpr unsigned long inline_bytes = 4096; // on the worker's stack: heap only for long loops
#endif
    alignas(16) unsigned char local[inline_bytes];
    unsigned char *data = local;
    unsigned long top = 0, cap = inline_bytes;
    unsigned long wanted = 0; // the size it could not get
    bool overflowed = false;
    WEFT_RT_FN adj_tape() {}
    adj_tape(const adj_tape &) = delete;
    adj_tape &operator=(const adj_tape &) = delete;
#if !defined(WEFT_RT_CUDA)
    WEFT_RT_FN ~adj_tape() {
        if (data != local) weft_rt_tape_give(data, cap);
    }
#endif
    template <typename T> WEFT_RT_FN void push(const T &v) {
        if (overflowed) return;
        const unsigned long need = top + sizeof(T);
        if (need > cap) {
            wanted = need;
#if defined(WEFT_RT_CUDA)
            overflowed = true;
            return;
#else
            unsigned long grown = cap, got = 0;
            while (grown < need && grown <= (~0ul >> 2)) grown *= 2;
            unsigned char *next = grown >= need ? static_cast<unsigned char *>(weft_rt_tape_take(grown, &got)) : nullptr;
            if (!next) {
                wanted = grown;
                overflowed = true;
                return;
            }
            copy_bytes(next, data, top);
            if (data != local) weft_rt_tape_give(data, cap);
            data = next;
            cap = got;
#endif
        }
        copy_bytes(data + top, &v, sizeof(T));
        top = need;
    }
    template <typename T> WEFT_RT_FN void pop(T &v) {
        if (overflowed) return;
        top -= sizeof(T);
        copy_bytes(&v, data + top, sizeof(T));
    }
    template <typename T> WEFT_RT_FN T take() {
        T v{};
        pop(v);
        return v;
    }
};
/// Reports a backward pass whose saved values outgrew its per-thread buffer
/// (CUDA) or the memory it could allocate (the CPU): the launch fails.
WEFT_RT_FN void adj_tape_overflow(const adj_tape &t, const char *kernel, const char *file, int32 line) {
    if (!t.overflowed) return;
#if defined(WEFT_RT_CUDA)
    printf("backward pass of '%s' (%s:%d) saved more than %lu bytes per thread (a long dynamic loop?); its "
           "gradients are incomplete\n",
           kernel, file, line, adj_tape::inline_bytes);
    count_failure();
#else
    // Logged for the host, which fails the launch with it: no stdout here.
    count_failure();
    if (char *slot = failure_slot()) {
        Message m{slot, WEFT_RT_FAILURE_MESSAGE};
        m.text("backward pass of '").text(kernel).text("' (").text(file).text(":").number(line);
        m.text(") could not allocate ").number(int64(t.wanted));
        m.text(" bytes for the values it saves (a long dynamic loop?); its gradients are incomplete");
    }
#endif
}
} // namespace rt

/// closest_point_edge_edge's gradient: Warp's analytic adjoint (the forward
/// recomputed to find the branch, then the chain rule; near-parallel edges,
/// denom <= 1e-6 a e, take Warp's damped rule that keeps gradients bounded).
template <typename T>
WEFT_RT_FN void adj_closest_point_edge_edge(const vec_t<3, T> &p1, const vec_t<3, T> &q1, const vec_t<3, T> &p2,
                                            const vec_t<3, T> &q2, T epsilon, vec_t<3, T> &adj_p1,
                                            vec_t<3, T> &adj_q1, vec_t<3, T> &adj_p2, vec_t<3, T> &adj_q2,
                                            T &adj_epsilon, const vec_t<3, T> &adj_ret) {
    (void)adj_epsilon; // a tolerance: not differentiable
    typedef vec_t<3, T> V;
    const V d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    const T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    const bool degen1 = a <= epsilon, degen2 = e <= epsilon;
    T s = T(0.0), t = T(0.0), c = T(0.0), b = T(0.0), denom = T(0.0), s_uc = T(0.0), t_uc = T(0.0);
    enum { A, B, C, D, D_DEGEN, E, F } branch;
    if (degen1 && degen2) {
        branch = A;
    } else if (degen1) {
        branch = B;
        t_uc = f / e;
        t = clamp(t_uc, T(0.0), T(1.0));
    } else if (degen2) {
        branch = C;
        c = dot(d1, r);
        s_uc = -c / a;
        s = clamp(s_uc, T(0.0), T(1.0));
    } else {
        c = dot(d1, r);
        b = dot(d1, d2);
        denom = rt::diff_product(a, e, b, b);
        const bool positive = denom > T(0.0), stable = positive && denom > T(1.0e-6) * a * e;
        T s_init = T(0.0);
        if (positive) {
            s_uc = rt::diff_product(b, f, c, e) / denom;
            s_init = clamp(s_uc, T(0.0), T(1.0));
        }
        const T t_init = (b * s_init + f) / e;
        if (t_init < T(0.0)) {
            branch = E;
            s_uc = -c / a;
            s = clamp(s_uc, T(0.0), T(1.0));
        } else if (t_init > T(1.0)) {
            branch = F;
            s_uc = (b - c) / a;
            s = clamp(s_uc, T(0.0), T(1.0));
            t = T(1.0);
        } else {
            branch = stable ? D : D_DEGEN;
            s = s_init;
            t = t_init;
        }
    }
    const V c1 = add(p1, mul(s, d1)), c2 = add(p2, mul(t, d2));
    const V diff = sub(c2, c1);
    const T dist = length(diff);

    V adj_diff{};
    if (dist > T(0.0)) adj_diff = mul(adj_ret.c[2] / dist, diff);
    const V adj_c1 = neg(adj_diff), adj_c2 = adj_diff;
    V adj_d1{}, adj_d2{}, adj_r{};
    adj_p1 = add(adj_p1, adj_c1);
    adj_d1 = add(adj_d1, mul(s, adj_c1));
    T adj_s = dot(d1, adj_c1) + adj_ret.c[0];
    adj_p2 = add(adj_p2, adj_c2);
    adj_d2 = add(adj_d2, mul(t, adj_c2));
    T adj_t = dot(d2, adj_c2) + adj_ret.c[1];

    T adj_a = T(0.0), adj_e = T(0.0), adj_b = T(0.0), adj_c = T(0.0), adj_f = T(0.0);
    T lo = T(0.0), hi = T(0.0); // the clamps' constant bounds
    switch (branch) {
    case A: break;
    case B: {
        T adj_t_uc = T(0.0);
        adj_clamp(t_uc, T(0.0), T(1.0), adj_t_uc, lo, hi, adj_t);
        adj_f += adj_t_uc / e;
        adj_e += -adj_t_uc * t_uc / e;
        break;
    }
    case C:
    case E: {
        T adj_s_uc = T(0.0);
        adj_clamp(s_uc, T(0.0), T(1.0), adj_s_uc, lo, hi, adj_s);
        adj_c += -adj_s_uc / a;
        adj_a += -adj_s_uc * s_uc / a;
        break;
    }
    case F: {
        T adj_s_uc = T(0.0);
        adj_clamp(s_uc, T(0.0), T(1.0), adj_s_uc, lo, hi, adj_s);
        adj_b += adj_s_uc / a;
        adj_c += -adj_s_uc / a;
        adj_a += -adj_s_uc * s_uc / a;
        break;
    }
    case D: {
        adj_b += adj_t * s / e;
        adj_s += adj_t * b / e;
        adj_f += adj_t / e;
        adj_e += -adj_t * t / e;
        T adj_s_uc = T(0.0);
        adj_clamp(s_uc, T(0.0), T(1.0), adj_s_uc, lo, hi, adj_s);
        const T adj_num = adj_s_uc / denom, adj_denom = -adj_s_uc * s_uc / denom;
        adj_b += adj_num * f;
        adj_f += adj_num * b;
        adj_c -= adj_num * e;
        adj_e -= adj_num * c;
        adj_a += adj_denom * e;
        adj_e += adj_denom * a;
        adj_b -= T(2.0) * adj_denom * b;
        break;
    }
    case D_DEGEN:
        adj_b += adj_t * s / e;
        adj_f += adj_t / e;
        adj_e += -adj_t * t / e;
        break;
    }
    adj_d1 = add(adj_d1, add(add(mul(T(2.0) * adj_a, d1), mul(adj_b, d2)), mul(adj_c, r)));
    adj_d2 = add(adj_d2, add(add(mul(T(2.0) * adj_e, d2), mul(adj_b, d1)), mul(adj_f, r)));
    adj_r = add(adj_r, add(mul(adj_c, d1), mul(adj_f, d2)));
    adj_q1 = add(adj_q1, adj_d1);
    adj_p1 = sub(adj_p1, adj_d1);
    adj_q2 = add(adj_q2, adj_d2);
    adj_p2 = sub(adj_p2, adj_d2);
    adj_p1 = add(adj_p1, adj_r);
    adj_p2 = sub(adj_p2, adj_r);
}

#undef WEFT_RT_FLOAT

} // namespace weft

#include "weft/rt/spatial_adjoint.h"
#include "weft/rt/noise_adjoint.h"
