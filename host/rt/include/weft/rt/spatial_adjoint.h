// weft runtime: adjoints of the transform and spatial-vector builtins
// (spatial.h), by adjoint.h's convention: adj_<builtin>(inputs...,
// adj_inputs&..., adj_result). The component-wise ones (add, sub, neg,
// scaling) come from adjoint.h through rt::comp.
#pragma once

#include "weft/rt/spatial.h"

namespace weft {

// -- transforms -------------------------------------------------------------------
template <typename T>
WEFT_RT_FN void adj_transform_get_translation(const transform_t<T> &, transform_t<T> &adj_t, const vec_t<3, T> &r) {
    adj_acc(adj_t.p, r);
}
template <typename T>
WEFT_RT_FN void adj_transform_get_rotation(const transform_t<T> &, transform_t<T> &adj_t, const quat_t<T> &r) {
    adj_acc(adj_t.q, r);
}
template <typename T>
WEFT_RT_FN void adj_transform_set_translation_copy(const transform_t<T> &, const vec_t<3, T> &, transform_t<T> &adj_t,
                                                   vec_t<3, T> &adj_p, const transform_t<T> &r) {
    adj_acc(adj_t.q, r.q);
    adj_acc(adj_p, r.p);
}
template <typename T>
WEFT_RT_FN void adj_transform_set_rotation_copy(const transform_t<T> &, const quat_t<T> &, transform_t<T> &adj_t,
                                                quat_t<T> &adj_q, const transform_t<T> &r) {
    adj_acc(adj_t.p, r.p);
    adj_acc(adj_q, r.q);
}
template <typename T>
WEFT_RT_FN void adj_transform_multiply(const transform_t<T> &a, const transform_t<T> &b, transform_t<T> &adj_a,
                                       transform_t<T> &adj_b, const transform_t<T> &r) {
    // p = quat_rotate(a.q, b.p) + a.p, q = a.q b.q
    adj_quat_rotate(a.q, b.p, adj_a.q, adj_b.p, r.p);
    adj_acc(adj_a.p, r.p);
    adj_mul(a.q, b.q, adj_a.q, adj_b.q, r.q);
}
template <typename T>
WEFT_RT_FN void adj_mul(const transform_t<T> &a, const transform_t<T> &b, transform_t<T> &adj_a, transform_t<T> &adj_b,
                        const transform_t<T> &r) {
    adj_transform_multiply(a, b, adj_a, adj_b, r);
}
template <typename T>
WEFT_RT_FN void adj_transform_inverse(const transform_t<T> &t, transform_t<T> &adj_t, const transform_t<T> &r) {
    // q' = quat_inverse(q), p' = -quat_rotate(q', p)
    const quat_t<T> q_inv = quat_inverse(t.q);
    quat_t<T> adj_q_inv = r.q;
    adj_quat_rotate(q_inv, t.p, adj_q_inv, adj_t.p, neg(r.p));
    adj_quat_inverse(t.q, adj_t.q, adj_q_inv);
}
template <typename T>
WEFT_RT_FN void adj_transform_point(const transform_t<T> &t, const vec_t<3, T> &x, transform_t<T> &adj_t,
                                    vec_t<3, T> &adj_x, const vec_t<3, T> &r) {
    adj_acc(adj_t.p, r);
    adj_quat_rotate(t.q, x, adj_t.q, adj_x, r);
}
template <typename T>
WEFT_RT_FN void adj_transform_vector(const transform_t<T> &t, const vec_t<3, T> &x, transform_t<T> &adj_t,
                                     vec_t<3, T> &adj_x, const vec_t<3, T> &r) {
    adj_quat_rotate(t.q, x, adj_t.q, adj_x, r);
}
namespace rt {
/// m (x, h), first three rows, for h = 1 (a point) or 0 (a vector).
template <typename T>
WEFT_RT_FN void adj_homogeneous(const mat_t<4, 4, T> &m, const vec_t<3, T> &x, mat_t<4, 4, T> &adj_m,
                                vec_t<3, T> &adj_x, const vec_t<3, T> &r, bool point) {
    typedef acc<T> A;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            addf(adj_m.c[i].c[j], A(r.c[i]) * A(x.c[j]));
            addf(adj_x.c[j], A(m.c[i].c[j]) * A(r.c[i]));
        }
        if (point) adj_acc(adj_m.c[i].c[3], r.c[i]);
    }
}
} // namespace rt
template <typename T>
WEFT_RT_FN void adj_transform_point(const mat_t<4, 4, T> &m, const vec_t<3, T> &x, mat_t<4, 4, T> &adj_m,
                                    vec_t<3, T> &adj_x, const vec_t<3, T> &r) {
    rt::adj_homogeneous(m, x, adj_m, adj_x, r, true);
}
template <typename T>
WEFT_RT_FN void adj_transform_vector(const mat_t<4, 4, T> &m, const vec_t<3, T> &x, mat_t<4, 4, T> &adj_m,
                                     vec_t<3, T> &adj_x, const vec_t<3, T> &r) {
    rt::adj_homogeneous(m, x, adj_m, adj_x, r, false);
}

// -- spatial vectors ----------------------------------------------------------------
namespace rt {
/// Adds a 3-vector's adjoint to components `first` .. first + 2 of a 6-vector's.
template <typename T> WEFT_RT_FN void adj_acc_part(vec_t<6, T> &adj, int first, const vec_t<3, T> &r) {
    for (int i = 0; i < 3; ++i) adj_acc(adj.c[first + i], r.c[i]);
}
} // namespace rt
template <typename T>
WEFT_RT_FN void adj_spatial_vector(const vec_t<3, T> &, const vec_t<3, T> &, vec_t<3, T> &adj_w, vec_t<3, T> &adj_v,
                                   const vec_t<6, T> &r) {
    adj_acc(adj_w, rt::top(r));
    adj_acc(adj_v, rt::bottom(r));
}
template <typename T> WEFT_RT_FN void adj_spatial_top(const vec_t<6, T> &, vec_t<6, T> &adj_a, const vec_t<3, T> &r) {
    rt::adj_acc_part(adj_a, 0, r);
}
template <typename T> WEFT_RT_FN void adj_spatial_bottom(const vec_t<6, T> &, vec_t<6, T> &adj_a, const vec_t<3, T> &r) {
    rt::adj_acc_part(adj_a, 3, r);
}
template <typename T>
WEFT_RT_FN void adj_spatial_dot(const vec_t<6, T> &a, const vec_t<6, T> &b, vec_t<6, T> &adj_a, vec_t<6, T> &adj_b, T r) {
    adj_dot(a, b, adj_a, adj_b, r);
}
template <typename T>
WEFT_RT_FN void adj_spatial_cross(const vec_t<6, T> &a, const vec_t<6, T> &b, vec_t<6, T> &adj_a, vec_t<6, T> &adj_b,
                                  const vec_t<6, T> &r) {
    // (w_a x w_b, v_a x w_b + w_a x v_b)
    const vec_t<3, T> wa = rt::top(a), va = rt::bottom(a), wb = rt::top(b), vb = rt::bottom(b);
    const vec_t<3, T> rw = rt::top(r), rv = rt::bottom(r);
    vec_t<3, T> d_wa, d_va, d_wb, d_vb;
    adj_cross(wa, wb, d_wa, d_wb, rw);
    adj_cross(va, wb, d_va, d_wb, rv);
    adj_cross(wa, vb, d_wa, d_vb, rv);
    rt::adj_acc_part(adj_a, 0, d_wa);
    rt::adj_acc_part(adj_a, 3, d_va);
    rt::adj_acc_part(adj_b, 0, d_wb);
    rt::adj_acc_part(adj_b, 3, d_vb);
}
template <typename T>
WEFT_RT_FN void adj_spatial_cross_dual(const vec_t<6, T> &a, const vec_t<6, T> &b, vec_t<6, T> &adj_a,
                                       vec_t<6, T> &adj_b, const vec_t<6, T> &r) {
    // (w_a x w_b + v_a x v_b, w_a x v_b)
    const vec_t<3, T> wa = rt::top(a), va = rt::bottom(a), wb = rt::top(b), vb = rt::bottom(b);
    const vec_t<3, T> rw = rt::top(r), rv = rt::bottom(r);
    vec_t<3, T> d_wa, d_va, d_wb, d_vb;
    adj_cross(wa, wb, d_wa, d_wb, rw);
    adj_cross(va, vb, d_va, d_vb, rw);
    adj_cross(wa, vb, d_wa, d_vb, rv);
    rt::adj_acc_part(adj_a, 0, d_wa);
    rt::adj_acc_part(adj_a, 3, d_va);
    rt::adj_acc_part(adj_b, 0, d_wb);
    rt::adj_acc_part(adj_b, 3, d_vb);
}
template <typename T>
WEFT_RT_FN void adj_spatial_adjoint(const mat_t<3, 3, T> &, const mat_t<3, 3, T> &, mat_t<3, 3, T> &adj_r,
                                    mat_t<3, 3, T> &adj_s, const mat_t<6, 6, T> &r) {
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            adj_acc(adj_r.c[i].c[j], r.c[i].c[j]);
            adj_acc(adj_r.c[i].c[j], r.c[i + 3].c[j + 3]);
            adj_acc(adj_s.c[i].c[j], r.c[i + 3].c[j]);
        }
}

} // namespace weft
