// weft runtime: geometric tests among Warp's core builtins (intersect_tri_tri).
#pragma once

#include "weft/rt/linalg.h"

namespace weft {
namespace rt {

/// Möller's triangle-triangle test without divisions ("A Fast Triangle-Triangle
/// Intersection Test", JGT 1997, and its 1999 revision; the reference code is
/// MIT-licensed), as warp-lang 1.19 runs it: the same operations in the same
/// order, so that the two agree on the near-degenerate cases too. Written as
/// functions where the reference uses macros.
template <typename T> struct tri_tri {
    typedef vec_t<3, T> V;
    /// The reference's EPSILON (a double): |d| below it counts as on the plane.
    static WEFT_RT_FN T snap(T d) { return double(d < T(0) ? T(-d) : d) < 0.000001 ? T(0) : d; }
    static WEFT_RT_FN T magnitude(T x) { return x < T(0) ? T(-x) : x; }

    /// Antonio's 2-D segment test ("Faster Line Segment Intersection", Graphics
    /// Gems III) of edge (v0, v0 + a) against edge (u0, u1) on axes i0, i1.
    static WEFT_RT_FN bool edge_edge(T ax, T ay, const V &v0, const V &u0, const V &u1, int i0, int i1) {
        const T bx = u0.c[i0] - u1.c[i0], by = u0.c[i1] - u1.c[i1];
        const T cx = v0.c[i0] - u0.c[i0], cy = v0.c[i1] - u0.c[i1];
        const T f = ay * bx - ax * by;
        const T d = by * cx - bx * cy;
        if ((f > T(0) && d >= T(0) && d <= f) || (f < T(0) && d <= T(0) && d >= f)) {
            const T e = ax * cy - ay * cx;
            if (f > T(0)) return e >= T(0) && e <= f;
            return e <= T(0) && e >= f;
        }
        return false;
    }
    static WEFT_RT_FN bool edge_against_edges(const V &v0, const V &v1, const V &u0, const V &u1, const V &u2, int i0,
                                              int i1) {
        const T ax = v1.c[i0] - v0.c[i0], ay = v1.c[i1] - v0.c[i1];
        return edge_edge(ax, ay, v0, u0, u1, i0, i1) || edge_edge(ax, ay, v0, u1, u2, i0, i1) ||
               edge_edge(ax, ay, v0, u2, u0, i0, i1);
    }
    /// Whether p lies inside triangle (u0, u1, u2) on axes i0, i1.
    static WEFT_RT_FN bool point_inside(const V &p, const V &u0, const V &u1, const V &u2, int i0, int i1) {
        const auto side = [&](const V &from, const V &to) {
            const T a = to.c[i1] - from.c[i1];
            const T b = -(to.c[i0] - from.c[i0]);
            const T c = -a * from.c[i0] - b * from.c[i1];
            return a * p.c[i0] + b * p.c[i1] + c;
        };
        const T d0 = side(u0, u1), d1 = side(u1, u2), d2 = side(u2, u0);
        return d0 * d1 > T(0) && d0 * d2 > T(0);
    }
    static WEFT_RT_FN int32 coplanar(const V &n, const V &v0, const V &v1, const V &v2, const V &u0, const V &u1,
                                     const V &u2) {
        // Project onto the axis-aligned plane where the triangles are largest.
        const T a0 = magnitude(n.c[0]), a1 = magnitude(n.c[1]), a2 = magnitude(n.c[2]);
        int i0, i1;
        if (a0 > a1) {
            if (a0 > a2) i0 = 1, i1 = 2;
            else i0 = 0, i1 = 1;
        } else {
            if (a2 > a1) i0 = 0, i1 = 1;
            else i0 = 0, i1 = 2;
        }
        if (edge_against_edges(v0, v1, u0, u1, u2, i0, i1) || edge_against_edges(v1, v2, u0, u1, u2, i0, i1) ||
            edge_against_edges(v2, v0, u0, u1, u2, i0, i1))
            return 1;
        // One inside the other.
        return point_inside(v0, u0, u1, u2, i0, i1) || point_inside(u0, v0, v1, v2, i0, i1) ? 1 : 0;
    }
    /// The interval a triangle covers on the intersection line, scaled
    /// (the reference's NEWCOMPUTE_INTERVALS): false when the triangles are coplanar.
    static WEFT_RT_FN bool interval(T p0, T p1, T p2, T d0, T d1, T d2, T d0d1, T d0d2, T &a, T &b, T &c, T &x0,
                                    T &x1) {
        const auto from = [&](T pa, T pb, T pc, T da, T db, T dc) {
            a = pa;
            b = (pb - pa) * da;
            c = (pc - pa) * da;
            x0 = da - db;
            x1 = da - dc;
        };
        if (d0d1 > T(0)) from(p2, p0, p1, d2, d0, d1);
        else if (d0d2 > T(0)) from(p1, p0, p2, d1, d0, d2);
        else if (d1 * d2 > T(0) || d0 != T(0)) from(p0, p1, p2, d0, d1, d2);
        else if (d1 != T(0)) from(p1, p0, p2, d1, d0, d2);
        else if (d2 != T(0)) from(p2, p0, p1, d2, d0, d1);
        else return false;
        return true;
    }
    static WEFT_RT_FN int32 test(const V &v0, const V &v1, const V &v2, const V &u0, const V &u1, const V &u2) {
        const auto cross3 = [](const V &x, const V &y) {
            return V(x.c[1] * y.c[2] - x.c[2] * y.c[1], x.c[2] * y.c[0] - x.c[0] * y.c[2],
                     x.c[0] * y.c[1] - x.c[1] * y.c[0]);
        };
        const auto dot3 = [](const V &x, const V &y) { return x.c[0] * y.c[0] + x.c[1] * y.c[1] + x.c[2] * y.c[2]; };
        const auto minus = [](const V &x, const V &y) { return V(x.c[0] - y.c[0], x.c[1] - y.c[1], x.c[2] - y.c[2]); };
        // The plane of (v0, v1, v2), and u's signed distances to it.
        const V n1 = cross3(minus(v1, v0), minus(v2, v0));
        const T e1 = -dot3(n1, v0);
        const T du0 = snap(dot3(n1, u0) + e1), du1 = snap(dot3(n1, u1) + e1), du2 = snap(dot3(n1, u2) + e1);
        const T du0du1 = du0 * du1, du0du2 = du0 * du2;
        if (du0du1 > T(0) && du0du2 > T(0)) return 0; // u on one side
        const V n2 = cross3(minus(u1, u0), minus(u2, u0));
        const T e2 = -dot3(n2, u0);
        const T dv0 = snap(dot3(n2, v0) + e2), dv1 = snap(dot3(n2, v1) + e2), dv2 = snap(dot3(n2, v2) + e2);
        const T dv0dv1 = dv0 * dv1, dv0dv2 = dv0 * dv2;
        if (dv0dv1 > T(0) && dv0dv2 > T(0)) return 0; // v on one side
        // The intersection line's direction, and the axis it is longest along.
        const V dir = cross3(n1, n2);
        T largest = magnitude(dir.c[0]);
        int axis = 0;
        if (magnitude(dir.c[1]) > largest) largest = magnitude(dir.c[1]), axis = 1;
        if (magnitude(dir.c[2]) > largest) axis = 2;
        T a, b, c, x0, x1, d, e, f, y0, y1;
        if (!interval(v0.c[axis], v1.c[axis], v2.c[axis], dv0, dv1, dv2, dv0dv1, dv0dv2, a, b, c, x0, x1))
            return coplanar(n1, v0, v1, v2, u0, u1, u2);
        if (!interval(u0.c[axis], u1.c[axis], u2.c[axis], du0, du1, du2, du0du1, du0du2, d, e, f, y0, y1))
            return coplanar(n1, v0, v1, v2, u0, u1, u2);
        const T xx = x0 * x1, yy = y0 * y1, xxyy = xx * yy;
        T t = a * xxyy;
        T s0 = t + b * x1 * yy, s1 = t + c * x0 * yy;
        t = d * xxyy;
        T r0 = t + e * xx * y1, r1 = t + f * xx * y0;
        if (s0 > s1) {
            const T k = s0;
            s0 = s1;
            s1 = k;
        }
        if (r0 > r1) {
            const T k = r0;
            r0 = r1;
            r1 = k;
        }
        return s1 < r0 || r1 < s0 ? 0 : 1;
    }
};

} // namespace rt

/// 1 when triangles (v0, v1, v2) and (u0, u1, u2) intersect (coplanar ones
/// when they overlap in their plane), else 0: Warp's intersect_tri_tri.
template <typename T>
WEFT_RT_FN int32 intersect_tri_tri(const vec_t<3, T> &v0, const vec_t<3, T> &v1, const vec_t<3, T> &v2,
                                   const vec_t<3, T> &u0, const vec_t<3, T> &u1, const vec_t<3, T> &u2) {
    return rt::tri_tri<T>::test(v0, v1, v2, u0, u1, u2);
}

namespace rt {
/// a * b - c * d with an FMA correction term (Warp's diff_product).
WEFT_RT_FN float32 diff_product(float32 a, float32 b, float32 c, float32 d) {
    const float32 cd = c * d;
    const float32 diff = WEFT_RT_MF(fma)(a, b, -cd);
    const float32 error = WEFT_RT_MF(fma)(-c, d, cd);
    return diff + error;
}
WEFT_RT_FN float64 diff_product(float64 a, float64 b, float64 c, float64 d) {
    const float64 cd = c * d;
    const float64 diff = WEFT_RT_MD(fma)(a, b, -cd);
    const float64 error = WEFT_RT_MD(fma)(-c, d, cd);
    return diff + error;
}
} // namespace rt

/// Closest points of segments p1-q1 and p2-q2: (s, t, distance) with the
/// points p1 + s (q1 - p1) and p2 + t (q2 - p2); a segment no longer than
/// epsilon (squared) is a point. Warp's closest_point_edge_edge (float32),
/// operation for operation; weft also has it in float64.
template <typename T>
WEFT_RT_FN vec_t<3, T> closest_point_edge_edge(const vec_t<3, T> &p1, const vec_t<3, T> &q1, const vec_t<3, T> &p2,
                                               const vec_t<3, T> &q2, T epsilon) {
    const vec_t<3, T> d1 = sub(q1, p1), d2 = sub(q2, p2), r = sub(p1, p2);
    const T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
    T s = T(0), t = T(0);
    const bool degen1 = a <= epsilon, degen2 = e <= epsilon;
    if (degen1 && degen2) {
    } else if (degen1) {
        t = clamp(T(f / e), T(0), T(1));
    } else if (degen2) {
        s = clamp(T(-dot(d1, r) / a), T(0), T(1));
    } else {
        const T c = dot(d1, r), b = dot(d1, d2);
        const T denom = rt::diff_product(a, e, b, b);
        T s_init = T(0);
        if (denom > T(0)) s_init = clamp(T(rt::diff_product(b, f, c, e) / denom), T(0), T(1));
        const T t_init = (b * s_init + f) / e;
        if (t_init < T(0)) {
            s = clamp(T(-c / a), T(0), T(1));
        } else if (t_init > T(1)) {
            s = clamp(T((b - c) / a), T(0), T(1));
            t = T(1);
        } else {
            s = s_init;
            t = t_init;
        }
    }
    const vec_t<3, T> c1 = add(p1, mul(s, d1)), c2 = add(p2, mul(t, d2));
    return vec_t<3, T>(s, t, length(sub(c2, c1)));
}

} // namespace weft
