// Kernel side of the mesh plugin (Warp's mesh_query_* and mesh_eval_*),
// included into every module that uses the plugin, on the CPU and in CUDA.
// Results follow Warp's definitions: barycentrics (u, v) weight the face's
// first and second vertex, the closest point search skips sliver triangles,
// and ray hits use the watertight test.
#ifndef WEFT_MESH_H
#define WEFT_MESH_H

#include "weft_mesh_types.h"

namespace weft_mesh {

WEFT_CALLABLE inline const Mesh &get(unsigned long long id) { return *reinterpret_cast<const Mesh *>(id); }

WEFT_CALLABLE inline void vertex(const Mesh &m, int tri, int corner, float *out) {
    const float *p = m.points[m.indices[tri * 3 + corner]];
    out[0] = p[0];
    out[1] = p[1];
    out[2] = p[2];
}

/// The three corners of triangle `tri`.
WEFT_CALLABLE inline void corners(const Mesh &m, int tri, float *a, float *b, float *c) {
    vertex(m, tri, 0, a);
    vertex(m, tri, 1, b);
    vertex(m, tri, 2, c);
}

/// A triangle too thin for a well-defined closest point (Warp's test: its area
/// against its squared edges); the point queries skip it, as Warp's do.
WEFT_CALLABLE inline bool sliver(const float *a, const float *b, const float *c) {
    const weft::vec3 e0(b[0] - a[0], b[1] - a[1], b[2] - a[2]), e1(c[0] - a[0], c[1] - a[1], c[2] - a[2]),
        e2(c[0] - b[0], c[1] - b[1], c[2] - b[2]);
    return weft::length(weft::cross(e0, e1)) / (weft::dot(e0, e0) + weft::dot(e1, e1) + weft::dot(e2, e2)) < 1.e-6f;
}

/// The closest point within max_dist, its face and barycentrics; result false when none.
WEFT_CALLABLE inline QueryPoint query_point_no_sign(unsigned long long id, weft::vec3 point, float max_dist) {
    QueryPoint out{};
    const Mesh &m = get(id);
    if (m.tree.num_nodes == 0) return out;
    const float p[3] = {point[0], point[1], point[2]};
    float min_d = max_dist * max_dist;
    int min_face = 0;
    float min_v = 0.0f, min_w = 0.0f;
    int stack[weft_bvh::stack_size];
    int count = 0;
    stack[count++] = 0;
    while (count) {
        const weft_bvh::Node &n = m.tree.nodes[stack[--count]];
        if (weft_bvh::box_distance_sq(p, n.lower, n.upper) > min_d) continue;
        if (n.leaf) {
            for (int s = n.a; s < n.b; ++s) {
                const int tri = m.tree.primitives[s];
                float a[3], b[3], c[3];
                corners(m, tri, a, b, c);
                if (sliver(a, b, c)) continue;
                float u, v;
                weft_bvh::closest_point_barycentric(a, b, c, p, u, v);
                const float w = 1.0f - u - v;
                float d = 0.0f;
                for (int k = 0; k < 3; ++k) {
                    const float e = u * a[k] + v * b[k] + w * c[k] - p[k];
                    d += e * e;
                }
                if (d < min_d) {
                    min_d = d;
                    min_v = v;
                    min_w = w;
                    min_face = tri;
                }
            }
        } else {
            weft_bvh::push_nearer_last(m.tree, n, p, min_d, stack, count);
        }
    }
    if (min_d < max_dist * max_dist) {
        out.result = true;
        out.u = 1.0f - min_v - min_w;
        out.v = min_v;
        out.face = min_face;
    }
    return out;
}

/// The closest point within max_dist and its side: sign +1 where the point
/// lies on the side the angle-weighted pseudo-normal of the closest feature
/// (face, edge or vertex; Baerentzen and Aanaes 2005) points to, else -1.
/// Features within epsilon * the average edge length of the closest count as
/// one, as Warp's mesh_query_point_sign_normal does.
WEFT_CALLABLE inline QueryPoint query_point_sign_normal(unsigned long long id, weft::vec3 point, float max_dist,
                                                        float epsilon) {
    QueryPoint out{};
    const Mesh &m = get(id);
    if (m.tree.num_nodes == 0) return out;
    const weft::vec3 x = point;
    const float p_[3] = {point[0], point[1], point[2]};
    float min_dist = max_dist;
    int min_face = 0;
    float min_v = 0.0f, min_w = 0.0f;
    weft::vec3 normal_sum;
    const float tol = m.average_edge_length * epsilon, tol_sq = tol * tol;
    int stack[weft_bvh::stack_size];
    int count = 0;
    stack[count++] = 0;
    while (count) {
        const weft_bvh::Node &n = m.tree.nodes[stack[--count]];
        const float reach = (min_dist + tol) * (min_dist + tol);
        if (weft_bvh::box_distance_sq(p_, n.lower, n.upper) > reach) continue;
        if (!n.leaf) {
            weft_bvh::push_nearer_last(m.tree, n, p_, reach, stack, count);
            continue;
        }
        for (int s = n.a; s < n.b; ++s) {
            const int tri = m.tree.primitives[s];
            float a[3], b[3], c[3];
            corners(m, tri, a, b, c);
            const weft::vec3 P(a[0], a[1], a[2]), Q(b[0], b[1], b[2]), R(c[0], c[1], c[2]);
            const weft::vec3 e0 = weft::sub(Q, P), e1 = weft::sub(R, P), e2 = weft::sub(R, Q);
            const weft::vec3 normal = weft::cross(e0, e1);
            const float e0_sq = weft::dot(e0, e0), e1_sq = weft::dot(e1, e1), e2_sq = weft::dot(e2, e2);
            if (weft::length(normal) / (e0_sq + e1_sq + e2_sq) < 1.e-6f) continue; // a sliver
            float u, v;
            weft_bvh::closest_point_barycentric(a, b, c, p_, u, v);
            const float w = 1.0f - u - v;
            const weft::vec3 cp_point = weft::add(weft::add(weft::mul(u, P), weft::mul(v, Q)), weft::mul(w, R));
            const float dist = weft::sqrt(weft::length_sq(weft::sub(cp_point, x)));
            if (!(dist < min_dist + tol)) continue;
            // The face's share of the feature's pseudo-normal: its angle at a
            // vertex, pi along an edge (two faces), 2 pi inside the face.
            const weft::vec3 cp = weft::sub(cp_point, P), cq = weft::sub(cp_point, Q), cr = weft::sub(cp_point, R);
            const float cp_sq = weft::length_sq(cp), cq_sq = weft::length_sq(cq), cr_sq = weft::length_sq(cr);
            float weight;
            if (cp_sq < tol_sq) {
                weight = weft::acos(weft::dot(weft::normalize(e0), weft::normalize(e1)));
            } else if (cq_sq < tol_sq) {
                weight = weft::acos(weft::dot(weft::normalize(e2), weft::normalize(weft::neg(e0))));
            } else if (cr_sq < tol_sq) {
                weight = weft::acos(weft::dot(weft::normalize(weft::neg(e1)), weft::normalize(weft::neg(e2))));
            } else {
                const float e0cp = weft::dot(e0, cp), e2cq = weft::dot(e2, cq), e1cp = weft::dot(e1, cp);
                const bool on_edge = cp_sq * e0_sq - e0cp * e0cp < tol_sq * e0_sq ||
                                     cq_sq * e2_sq - e2cq * e2cq < tol_sq * e2_sq ||
                                     cp_sq * e1_sq - e1cp * e1cp < tol_sq * e1_sq;
                weight = on_edge ? 3.14159265359f : 2.0f * 3.14159265359f;
            }
            if (dist > min_dist - tol) { // the same feature as the closest so far: add its share
                normal_sum = weft::add(normal_sum, weft::mul(weight, weft::normalize(normal)));
                if (dist < min_dist) {
                    min_dist = dist;
                    min_v = v;
                    min_w = w;
                    min_face = tri;
                }
            } else { // a clearly closer feature: start over from it
                min_dist = dist;
                min_v = v;
                min_w = w;
                min_face = tri;
                normal_sum = weft::mul(weight, weft::normalize(normal));
            }
        }
    }
    if (!(min_dist < max_dist)) return out;
    out.result = true;
    out.u = 1.0f - min_v - min_w;
    out.v = min_v;
    out.face = min_face;
    float a[3], b[3], c[3];
    corners(m, min_face, a, b, c);
    const weft::vec3 closest = weft::add(weft::add(weft::mul(weft::vec3(a[0], a[1], a[2]), out.u),
                                                   weft::mul(weft::vec3(b[0], b[1], b[2]), out.v)),
                                         weft::mul(weft::vec3(c[0], c[1], c[2]), min_w));
    out.sign = weft::dot(normal_sum, weft::sub(x, closest)) > 0.0f ? 1.0f : -1.0f;
    return out;
}

/// The point of the mesh furthest from `point`, farther than min_dist (a
/// vertex of the furthest face, as Warp's mesh_query_furthest_point_no_sign).
WEFT_CALLABLE inline QueryPoint query_furthest_point_no_sign(unsigned long long id, weft::vec3 point, float min_dist) {
    QueryPoint out{};
    const Mesh &m = get(id);
    if (m.tree.num_nodes == 0) return out;
    const float p[3] = {point[0], point[1], point[2]};
    // Squared distance from p to the box's furthest corner.
    const auto far_sq = [&p](const float *lo, const float *hi) {
        float d = 0.0f;
        for (int k = 0; k < 3; ++k) {
            const float a = p[k] - lo[k] < 0.0f ? lo[k] - p[k] : p[k] - lo[k];
            const float b = p[k] - hi[k] < 0.0f ? hi[k] - p[k] : p[k] - hi[k];
            const float e = a > b ? a : b;
            d += e * e;
        }
        return d;
    };
    float best = min_dist * min_dist;
    int max_face = 0;
    float max_v = 0.0f, max_w = 0.0f;
    int stack[weft_bvh::stack_size];
    int count = 0;
    stack[count++] = 0;
    while (count) {
        const weft_bvh::Node &n = m.tree.nodes[stack[--count]];
        if (far_sq(n.lower, n.upper) < best) continue;
        if (!n.leaf) {
            const weft_bvh::Node &l = m.tree.nodes[n.a], &r = m.tree.nodes[n.b];
            const float dl = far_sq(l.lower, l.upper), dr = far_sq(r.lower, r.upper);
            // The farther child is searched first (pushed last).
            const int first = dl > dr ? n.b : n.a, second = dl > dr ? n.a : n.b;
            const float d_first = dl > dr ? dr : dl, d_second = dl > dr ? dl : dr;
            if (d_first > best && count < weft_bvh::stack_size) stack[count++] = first;
            if (d_second > best && count < weft_bvh::stack_size) stack[count++] = second;
            continue;
        }
        for (int s = n.a; s < n.b; ++s) {
            const int tri = m.tree.primitives[s];
            float a[3], b[3], c[3];
            corners(m, tri, a, b, c);
            if (sliver(a, b, c)) continue;
            float da = 0.0f, db = 0.0f, dc = 0.0f;
            for (int k = 0; k < 3; ++k) {
                da += (p[k] - a[k]) * (p[k] - a[k]);
                db += (p[k] - b[k]) * (p[k] - b[k]);
                dc += (p[k] - c[k]) * (p[k] - c[k]);
            }
            // The furthest vertex, ties to the later one as Warp's.
            const float u = da > db && da > dc ? 1.0f : 0.0f;
            const float v = u == 0.0f && db > dc ? 1.0f : 0.0f;
            const float w = 1.0f - u - v;
            float d = 0.0f;
            for (int k = 0; k < 3; ++k) {
                const float e = u * a[k] + v * b[k] + w * c[k] - p[k];
                d += e * e;
            }
            if (d > best) {
                best = d;
                max_v = v;
                max_w = w;
                max_face = tri;
            }
        }
    }
    if (best > min_dist * min_dist) {
        out.result = true;
        out.u = 1.0f - max_v - max_w;
        out.v = max_v;
        out.face = max_face;
    }
    return out;
}

/// Warp's default epsilon (a separate function: a builtin's native function has exactly its parameters).
WEFT_CALLABLE inline QueryPoint query_point_sign_normal_default(unsigned long long id, weft::vec3 point, float max_dist) {
    return query_point_sign_normal(id, point, max_dist, 1e-3f);
}

/// The first hit of the ray start + t dir, 0 <= t < max_t.
WEFT_CALLABLE inline QueryRay query_ray(unsigned long long id, weft::vec3 start, weft::vec3 dir, float max_t) {
    QueryRay out{};
    const Mesh &m = get(id);
    if (m.tree.num_nodes == 0) return out;
    const float s[3] = {start[0], start[1], start[2]}, d[3] = {dir[0], dir[1], dir[2]};
    const float inv[3] = {1.0f / d[0], 1.0f / d[1], 1.0f / d[2]};
    const weft_bvh::RayShear shear = weft_bvh::ray_shear(d);
    float min_t = max_t, min_u = 0.0f, min_v = 0.0f, min_sign = 1.0f;
    int min_face = -1;
    int stack[weft_bvh::stack_size];
    int count = 0;
    float t_root;
    if (weft_bvh::ray_box(s, inv, m.tree.nodes[0].lower, m.tree.nodes[0].upper, t_root)) stack[count++] = 0;
    while (count) {
        const weft_bvh::Node &n = m.tree.nodes[stack[--count]];
        if (n.leaf) {
            for (int k = n.a; k < n.b; ++k) {
                const int tri = m.tree.primitives[k];
                float a[3], b[3], c[3];
                corners(m, tri, a, b, c);
                float t, u, v, det;
                if (weft_bvh::ray_triangle(s, shear, a, b, c, t, u, v, det) && t < min_t && t >= 0.0f) {
                    min_t = t;
                    min_u = u;
                    min_v = v;
                    min_sign = det;
                    min_face = tri;
                }
            }
            continue;
        }
        const weft_bvh::Node &l = m.tree.nodes[n.a], &r = m.tree.nodes[n.b];
        float tl = 0.0f, tr = 0.0f;
        const bool hl = weft_bvh::ray_box(s, inv, l.lower, l.upper, tl) && tl < min_t;
        const bool hr = weft_bvh::ray_box(s, inv, r.lower, r.upper, tr) && tr < min_t;
        if (hl && hr && count + 2 <= weft_bvh::stack_size) {
            // Nearer first: pushed last.
            stack[count++] = tl < tr ? n.b : n.a;
            stack[count++] = tl < tr ? n.a : n.b;
        } else if (hl && count < weft_bvh::stack_size) {
            stack[count++] = n.a;
        } else if (hr && count < weft_bvh::stack_size) {
            stack[count++] = n.b;
        }
    }
    if (min_face < 0) return out;
    float a[3], b[3], c[3];
    corners(m, min_face, a, b, c);
    const weft::vec3 normal = weft::normalize(weft::cross(weft::vec3(b[0] - a[0], b[1] - a[1], b[2] - a[2]),
                                                          weft::vec3(c[0] - a[0], c[1] - a[1], c[2] - a[2])));
    out.result = true;
    out.sign = min_sign;
    out.face = min_face;
    out.t = min_t;
    out.u = min_u;
    out.v = min_v;
    out.normal = normal;
    return out;
}

/// The closest point within max_dist, and its side by a vote of three rays
/// from the point along +x, +y and +z: inside (sign -1) when at least two
/// first hits are back faces, as Warp's mesh_query_point decides it.
WEFT_CALLABLE inline QueryPoint query_point(unsigned long long id, weft::vec3 point, float max_dist) {
    QueryPoint out = query_point_no_sign(id, point, max_dist);
    if (!out.result) return out;
    int votes = 0;
    for (int i = 0; i < 3; ++i) {
        const QueryRay r = query_ray(id, point, weft::vec3(float(i == 0), float(i == 1), float(i == 2)), 3.402823466e38f);
        if (r.result && r.sign < 0.0f) ++votes;
    }
    out.sign = votes >= 2 ? -1.0f : 1.0f;
    return out;
}

WEFT_CALLABLE inline QueryAABB query_aabb(unsigned long long id, weft::vec3 lower, weft::vec3 upper) {
    const Mesh &m = get(id);
    const float lo[3] = {lower[0], lower[1], lower[2]}, hi[3] = {upper[0], upper[1], upper[2]};
    QueryAABB q{};
    q.walk = weft_bvh::begin_query(&m.tree, lo, hi, false);
    q.mesh = id;
    return q;
}

/// The next face whose bounds overlap the box, into index.
WEFT_CALLABLE inline bool query_aabb_next(QueryAABB &q, int &index) {
    int tri;
    while (weft_bvh::next_primitive(q.walk, tri)) {
        float a[3], b[3], c[3], lo[3], hi[3];
        const Mesh &m = get(q.mesh);
        corners(m, tri, a, b, c);
        for (int k = 0; k < 3; ++k) {
            lo[k] = a[k] < b[k] ? (a[k] < c[k] ? a[k] : c[k]) : (b[k] < c[k] ? b[k] : c[k]);
            hi[k] = a[k] > b[k] ? (a[k] > c[k] ? a[k] : c[k]) : (b[k] > c[k] ? b[k] : c[k]);
        }
        if (weft_bvh::boxes_overlap(lo, hi, q.walk.lower.v, q.walk.upper.v)) {
            index = tri;
            return true;
        }
    }
    return false;
}

WEFT_CALLABLE inline weft::vec3 eval_position(unsigned long long id, int face, float u, float v) {
    const Mesh &m = get(id);
    float a[3], b[3], c[3];
    corners(m, face, a, b, c);
    const float w = 1.0f - u - v;
    return weft::vec3(a[0] * u + b[0] * v + c[0] * w, a[1] * u + b[1] * v + c[1] * w, a[2] * u + b[2] * v + c[2] * w);
}

WEFT_CALLABLE inline weft::vec3 eval_velocity(unsigned long long id, int face, float u, float v) {
    const Mesh &m = get(id);
    if (!m.velocities) return weft::vec3();
    const float *a = m.velocities[m.indices[face * 3 + 0]], *b = m.velocities[m.indices[face * 3 + 1]],
                *c = m.velocities[m.indices[face * 3 + 2]];
    const float w = 1.0f - u - v;
    return weft::vec3(a[0] * u + b[0] * v + c[0] * w, a[1] * u + b[1] * v + c[1] * w, a[2] * u + b[2] * v + c[2] * w);
}

/// The point at face-vertex `index` (face * 3 + corner), as Warp's mesh_get_point.
WEFT_CALLABLE inline weft::vec3 get_point(unsigned long long id, int index) {
    const Mesh &m = get(id);
    const float *p = m.points[m.indices[index]];
    return weft::vec3(p[0], p[1], p[2]);
}

/// The velocity at face-vertex `index` (zero without velocities).
WEFT_CALLABLE inline weft::vec3 get_velocity(unsigned long long id, int index) {
    const Mesh &m = get(id);
    if (!m.velocities) return weft::vec3();
    const float *p = m.velocities[m.indices[index]];
    return weft::vec3(p[0], p[1], p[2]);
}

/// The vertex index at position `index` of the flat index array (face * 3 + corner).
WEFT_CALLABLE inline int get_index(unsigned long long id, int index) { return get(id).indices[index]; }

} // namespace weft_mesh

#endif
