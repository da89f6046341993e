// weft runtime: Warp's rigid-transform and spatial (6-D) vector builtins.
// transform_t<T> (linalg.h) is Warp's: a translation p then a rotation q, 7
// packed T (p.x, p.y, p.z, q.x, q.y, q.z, q.w). Spatial vectors and matrices are plain
// vec_t<6, T> / mat_t<6, 6, T>: the top three components are the angular part
// (w), the bottom three the linear part (v). Formulas follow Warp's spatial.h.
#pragma once

#include "weft/rt/linalg.h"

namespace weft {

// -- transforms -------------------------------------------------------------------
template <typename T> WEFT_RT_FN int32 len(const transform_t<T> &) { return 7; }
template <typename T> WEFT_RT_FN transform_t<T> transform_identity() {
    return transform_t<T>(vec_t<3, T>(), quat_identity<T>());
}
template <typename T> WEFT_RT_FN vec_t<3, T> transform_get_translation(const transform_t<T> &t) { return t.p; }
template <typename T> WEFT_RT_FN quat_t<T> transform_get_rotation(const transform_t<T> &t) { return t.q; }
/// Warp's setters: in place on a local (xform.p = p), and the copy forms.
template <typename T> WEFT_RT_FN void transform_set_translation(transform_t<T> &t, const vec_t<3, T> &p) { t.p = p; }
template <typename T> WEFT_RT_FN void transform_set_rotation(transform_t<T> &t, const quat_t<T> &q) { t.q = q; }
template <typename T>
WEFT_RT_FN transform_t<T> transform_set_translation_copy(const transform_t<T> &t, const vec_t<3, T> &p) {
    return transform_t<T>(p, t.q);
}
template <typename T>
WEFT_RT_FN transform_t<T> transform_set_rotation_copy(const transform_t<T> &t, const quat_t<T> &q) {
    return transform_t<T>(t.p, q);
}
/// a b: b applied first, then a.
template <typename T> WEFT_RT_FN transform_t<T> transform_multiply(const transform_t<T> &a, const transform_t<T> &b) {
    return transform_t<T>(add(quat_rotate(a.q, b.p), a.p), mul(a.q, b.q));
}
template <typename T> WEFT_RT_FN transform_t<T> mul(const transform_t<T> &a, const transform_t<T> &b) {
    return transform_multiply(a, b);
}
template <typename T> WEFT_RT_FN transform_t<T> transform_inverse(const transform_t<T> &t) {
    const quat_t<T> q_inv = quat_inverse(t.q);
    return transform_t<T>(neg(quat_rotate(q_inv, t.p)), q_inv);
}
template <typename T> WEFT_RT_FN vec_t<3, T> transform_point(const transform_t<T> &t, const vec_t<3, T> &x) {
    return add(t.p, quat_rotate(t.q, x));
}
template <typename T> WEFT_RT_FN vec_t<3, T> transform_vector(const transform_t<T> &t, const vec_t<3, T> &x) {
    return quat_rotate(t.q, x);
}
/// The 4x4 homogeneous forms: m (x, 1) and m (x, 0), first three rows.
template <typename T> WEFT_RT_FN vec_t<3, T> transform_point(const mat_t<4, 4, T> &m, const vec_t<3, T> &x) {
    typedef rt::acc<T> A;
    vec_t<3, T> r;
    for (int i = 0; i < 3; ++i)
        r.c[i] = T(A(m.c[i].c[0]) * A(x.c[0]) + A(m.c[i].c[1]) * A(x.c[1]) + A(m.c[i].c[2]) * A(x.c[2]) + A(m.c[i].c[3]));
    return r;
}
template <typename T> WEFT_RT_FN vec_t<3, T> transform_vector(const mat_t<4, 4, T> &m, const vec_t<3, T> &x) {
    typedef rt::acc<T> A;
    vec_t<3, T> r;
    for (int i = 0; i < 3; ++i)
        r.c[i] = T(A(m.c[i].c[0]) * A(x.c[0]) + A(m.c[i].c[1]) * A(x.c[1]) + A(m.c[i].c[2]) * A(x.c[2]));
    return r;
}

// -- spatial vectors ----------------------------------------------------------------
namespace rt {
template <typename T> WEFT_RT_FN vec_t<3, T> top(const vec_t<6, T> &a) { return vec_t<3, T>(a.c[0], a.c[1], a.c[2]); }
template <typename T> WEFT_RT_FN vec_t<3, T> bottom(const vec_t<6, T> &a) { return vec_t<3, T>(a.c[3], a.c[4], a.c[5]); }
template <typename T> WEFT_RT_FN vec_t<6, T> join(const vec_t<3, T> &w, const vec_t<3, T> &v) {
    return vec_t<6, T>(w.c[0], w.c[1], w.c[2], v.c[0], v.c[1], v.c[2]);
}
} // namespace rt
/// spatial_vector(w, v): (w.x, w.y, w.z, v.x, v.y, v.z).
template <typename T> WEFT_RT_FN vec_t<6, T> spatial_vector(const vec_t<3, T> &w, const vec_t<3, T> &v) {
    return rt::join(w, v);
}
template <typename T> WEFT_RT_FN vec_t<3, T> spatial_top(const vec_t<6, T> &a) { return rt::top(a); }
template <typename T> WEFT_RT_FN vec_t<3, T> spatial_bottom(const vec_t<6, T> &a) { return rt::bottom(a); }
template <typename T> WEFT_RT_FN T spatial_dot(const vec_t<6, T> &a, const vec_t<6, T> &b) { return dot(a, b); }
/// Twist x twist: (w_a x w_b, v_a x w_b + w_a x v_b).
template <typename T> WEFT_RT_FN vec_t<6, T> spatial_cross(const vec_t<6, T> &a, const vec_t<6, T> &b) {
    const vec_t<3, T> wa = rt::top(a), va = rt::bottom(a), wb = rt::top(b), vb = rt::bottom(b);
    return rt::join(cross(wa, wb), add(cross(va, wb), cross(wa, vb)));
}
/// Twist x wrench: (w_a x w_b + v_a x v_b, w_a x v_b).
template <typename T> WEFT_RT_FN vec_t<6, T> spatial_cross_dual(const vec_t<6, T> &a, const vec_t<6, T> &b) {
    const vec_t<3, T> wa = rt::top(a), va = rt::bottom(a), wb = rt::top(b), vb = rt::bottom(b);
    return rt::join(add(cross(wa, wb), cross(va, vb)), cross(wa, vb));
}
/// The 6x6 block matrix [[r, 0], [s, r]].
template <typename T> WEFT_RT_FN mat_t<6, 6, T> spatial_adjoint(const mat_t<3, 3, T> &r, const mat_t<3, 3, T> &s) {
    mat_t<6, 6, T> m;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            m.c[i].c[j] = r.c[i].c[j];
            m.c[i + 3].c[j + 3] = r.c[i].c[j];
            m.c[i + 3].c[j] = s.c[i].c[j];
        }
    return m;
}

} // namespace weft
