// Bounding volume hierarchy shared by the bvh and mesh plugins: the layout
// their hosts build and their kernels traverse, the box and triangle tests,
// and the box/ray query iterator. Plain floats and ints only, so the plugins'
// host code, Clang (CPU kernels) and NVRTC (CUDA kernels) compile the same
// text. Copied into each plugin's include/ at build time.
#ifndef WEFT_BVH_CORE_H
#define WEFT_BVH_CORE_H

#ifndef WEFT_CALLABLE
#include <weft/callable.h>
#endif

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define WEFT_BVH_FMAF fmaf
#else
#define WEFT_BVH_FMAF __builtin_fmaf
#endif

namespace weft_bvh {

/// Deepest tree the builders make; traversal stacks hold this many entries.
constexpr int max_depth = 60;
constexpr int stack_size = 64;

/// A node: its box, and either two children (inner) or a run of primitive
/// slots [a, b) in Tree::primitives (leaf).
struct Node {
    float lower[3];
    int a;
    float upper[3];
    int b;
    int leaf;
    int reserved;
};

/// What a tree's id points to (device memory). Node 0 is the root.
struct Tree {
    const Node *nodes;
    const int *primitives; // leaf slots -> primitive index
    int num_nodes;
    int num_primitives;
    // The items' own boxes, where the tree keeps them (the bvh plugin: the
    // caller's lowers and uppers); NULL where the owner computes them (mesh).
    const float (*item_lowers)[3];
    const float (*item_uppers)[3];
};

WEFT_CALLABLE inline bool boxes_overlap(const float *lo, const float *hi, const float *qlo, const float *qhi) {
    return !(qlo[0] > hi[0] || qlo[1] > hi[1] || qlo[2] > hi[2] || qhi[0] < lo[0] || qhi[1] < lo[1] || qhi[2] < lo[2]);
}

/// Squared distance from p to the box (0 inside).
WEFT_CALLABLE inline float box_distance_sq(const float *p, const float *lo, const float *hi) {
    float d = 0.0f;
    for (int k = 0; k < 3; ++k) {
        const float e = p[k] < lo[k] ? lo[k] - p[k] : (p[k] > hi[k] ? p[k] - hi[k] : 0.0f);
        d += e * e;
    }
    return d;
}

/// Pushes the children of inner node `n` whose boxes lie within `reach`
/// (squared distance from p), the nearer one last so that it is searched first.
WEFT_CALLABLE inline void push_nearer_last(const Tree &tree, const Node &n, const float *p, float reach, int *stack,
                                           int &count) {
    const Node &l = tree.nodes[n.a], &r = tree.nodes[n.b];
    const float dl = box_distance_sq(p, l.lower, l.upper), dr = box_distance_sq(p, r.lower, r.upper);
    const int first = dl < dr ? n.b : n.a, second = dl < dr ? n.a : n.b;
    const float d_first = dl < dr ? dr : dl, d_second = dl < dr ? dl : dr;
    if (d_first < reach && count < stack_size) stack[count++] = first;
    if (d_second < reach && count < stack_size) stack[count++] = second;
}

/// Slab test: whether the ray start + t dir (t >= 0) meets the box, and the entry t.
WEFT_CALLABLE inline bool ray_box(const float *start, const float *inv_dir, const float *lo, const float *hi, float &t_enter) {
    float t0 = 0.0f, t1 = 3.402823466e38f;
    for (int k = 0; k < 3; ++k) {
        float a = (lo[k] - start[k]) * inv_dir[k];
        float b = (hi[k] - start[k]) * inv_dir[k];
        if (a > b) {
            const float s = a;
            a = b;
            b = s;
        }
        // NaN (0 * inf: the ray lies in a slab's plane) keeps the current bounds.
        if (a > t0) t0 = a;
        if (b < t1) t1 = b;
    }
    t_enter = t0;
    return t0 <= t1;
}

WEFT_CALLABLE inline float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/// Barycentrics (u, v) of the point of triangle (a, b, c) closest to p, the
/// point being u a + v b + (1 - u - v) c: the Voronoi-region walk of Ericson,
/// Real-Time Collision Detection, 5.1.5, in the form Warp uses.
WEFT_CALLABLE inline void closest_point_barycentric(const float *a, const float *b, const float *c, const float *p,
                                                    float &u, float &v) {
    const float ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    const float ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    const float ap[3] = {p[0] - a[0], p[1] - a[1], p[2] - a[2]};
    float w;
    const float d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    if (d1 <= 0.0f && d2 <= 0.0f) { // vertex a
        u = 1.0f;
        v = 0.0f;
        return;
    }
    const float bp[3] = {p[0] - b[0], p[1] - b[1], p[2] - b[2]};
    const float d3 = dot3(ab, bp), d4 = dot3(ac, bp);
    if (d3 >= 0.0f && d4 <= d3) { // vertex b
        v = 1.0f;
        u = 1.0f - v - 0.0f;
        return;
    }
    const float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0f && d1 >= 0.0f && d3 <= 0.0f) { // edge ab
        v = d1 / (d1 - d3);
        u = 1.0f - v - 0.0f;
        return;
    }
    const float cp[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    const float d5 = dot3(ab, cp), d6 = dot3(ac, cp);
    if (d6 >= 0.0f && d5 <= d6) { // vertex c
        v = 0.0f;
        u = 1.0f - v - 1.0f;
        return;
    }
    const float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0f && d2 >= 0.0f && d6 <= 0.0f) { // edge ac
        v = 0.0f;
        w = d2 / (d2 - d6);
        u = 1.0f - v - w;
        return;
    }
    const float va = d3 * d6 - d5 * d4;
    if (va <= 0.0f && (d4 - d3) >= 0.0f && (d5 - d6) >= 0.0f) { // edge bc
        w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        v = 1.0f - w;
        u = 1.0f - v - w;
        return;
    }
    const float denom = 1.0f / (va + vb + vc); // inside the face
    v = vb * denom;
    w = vc * denom;
    u = 1.0f - v - w;
}

/// a*b - c*d with one rounding error: Kahan's algorithm where FMA is an
/// instruction (CUDA, a CPU build for the host's own features); else in
/// double, where the products are exact (the same value but in rare double
/// roundings, without a call to the C library's fmaf per use).
WEFT_CALLABLE inline float difference_of_products(float a, float b, float c, float d) {
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(__FMA__)
    const float cd = c * d;
    return WEFT_BVH_FMAF(a, b, -cd) + WEFT_BVH_FMAF(-c, d, cd);
#else
    return static_cast<float>(static_cast<double>(a) * b - static_cast<double>(c) * d);
#endif
}

/// What the watertight test derives from a ray alone, once per ray: the axis
/// the ray is longest along (kz) and the shear that maps it onto +z.
struct RayShear {
    int kx, ky, kz;
    float sx, sy, sz;
};

WEFT_CALLABLE inline RayShear ray_shear(const float *dir) {
    const float ax = dir[0] < 0 ? -dir[0] : dir[0], ay = dir[1] < 0 ? -dir[1] : dir[1], az = dir[2] < 0 ? -dir[2] : dir[2];
    RayShear r;
    r.kz = ax > ay ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
    r.kx = r.kz + 1 == 3 ? 0 : r.kz + 1;
    r.ky = r.kx + 1 == 3 ? 0 : r.kx + 1;
    if (dir[r.kz] < 0.0f) {
        const int s = r.kx;
        r.kx = r.ky;
        r.ky = s;
    }
    r.sx = dir[r.kx] / dir[r.kz];
    r.sy = dir[r.ky] / dir[r.kz];
    r.sz = 1.0f / dir[r.kz];
    return r;
}

/// Watertight ray/triangle intersection (Woop, Benthin and Wald, JCGT 2013):
/// t along dir, barycentrics (u, v) weighting a and b, and det (its sign
/// tells the side the ray comes from), as Warp's mesh_query_ray reports.
WEFT_CALLABLE inline bool ray_triangle(const float *p, const RayShear &r, const float *a, const float *b, const float *c,
                                       float &t, float &u, float &v, float &det_out) {
    const int kx = r.kx, ky = r.ky, kz = r.kz;
    const float sx = r.sx, sy = r.sy, sz = r.sz;
    const float A[3] = {a[0] - p[0], a[1] - p[1], a[2] - p[2]};
    const float B[3] = {b[0] - p[0], b[1] - p[1], b[2] - p[2]};
    const float C[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
    const float Ax = A[kx] - sx * A[kz], Ay = A[ky] - sy * A[kz];
    const float Bx = B[kx] - sx * B[kz], By = B[ky] - sy * B[kz];
    const float Cx = C[kx] - sx * C[kz], Cy = C[ky] - sy * C[kz];
    float U = difference_of_products(Cx, By, Cy, Bx);
    float V = difference_of_products(Ax, Cy, Ay, Cx);
    float W = difference_of_products(Bx, Ay, By, Ax);
    if (U == 0.0f || V == 0.0f || W == 0.0f) { // on an edge: decide in double, as the paper does
        U = static_cast<float>(static_cast<double>(Cx) * By - static_cast<double>(Cy) * Bx);
        V = static_cast<float>(static_cast<double>(Ax) * Cy - static_cast<double>(Ay) * Cx);
        W = static_cast<float>(static_cast<double>(Bx) * Ay - static_cast<double>(By) * Ax);
    }
    if ((U < 0.0f || V < 0.0f || W < 0.0f) && (U > 0.0f || V > 0.0f || W > 0.0f)) return false;
    const float det = U + V + W;
    if (det == 0.0f) return false;
    const float T = U * (sz * A[kz]) + V * (sz * B[kz]) + W * (sz * C[kz]);
    if ((det < 0.0f) != (T < 0.0f) && T != 0.0f) return false; // behind the start (t = 0 counts as a hit)
    const float rcp = 1.0f / det;
    u = U * rcp;
    v = V * rcp;
    t = T * rcp;
    det_out = det;
    return true;
}

/// A box or ray query in progress (bvh_query_aabb, bvh_query_ray,
/// mesh_query_aabb): a traversal stack, and the leaf slots being walked.
// Kernels pass queries by value, and NVRTC checks a native type's layout
// with a constexpr probe that cannot read pointers or assign bare arrays: the
// tree is an address, the arrays are wrapped.
struct Stack {
    int entries[stack_size];
};
struct Float3 {
    float v[3];
};

struct Query {
    unsigned long long tree; // const Tree *
    Stack stack;
    int count;
    int slot;     // next leaf slot to report
    int slot_end; // one past the leaf's last
    int is_ray;
    int reserved;
    Float3 lower; // the box, or the ray's start
    Float3 upper; // the box, or 1 / the ray's direction
};

WEFT_CALLABLE inline const Tree &tree_of(const Query &q) { return *reinterpret_cast<const Tree *>(q.tree); }

WEFT_CALLABLE inline Query begin_query(const Tree *tree, const float *lo_or_start, const float *hi_or_inv, bool ray) {
    Query q{};
    q.tree = reinterpret_cast<unsigned long long>(tree);
    q.is_ray = ray ? 1 : 0;
    for (int k = 0; k < 3; ++k) {
        q.lower.v[k] = lo_or_start[k];
        q.upper.v[k] = hi_or_inv[k];
    }
    if (tree && tree->num_nodes > 0) q.stack.entries[q.count++] = 0;
    return q;
}

/// The next primitive whose node boxes the query meets (a superset of the
/// primitives it meets: test each one, as with Warp), into `index`.
WEFT_CALLABLE inline bool next_primitive(Query &q, int &index) {
    if (!q.tree) return false;
    const Tree &tree = tree_of(q);
    for (;;) {
        if (q.slot < q.slot_end) {
            index = tree.primitives[q.slot++];
            return true;
        }
        if (q.count == 0) return false;
        const Node &n = tree.nodes[q.stack.entries[--q.count]];
        float t;
        const bool hit = q.is_ray ? ray_box(q.lower.v, q.upper.v, n.lower, n.upper, t)
                                  : boxes_overlap(n.lower, n.upper, q.lower.v, q.upper.v);
        if (!hit) continue;
        if (n.leaf) {
            q.slot = n.a;
            q.slot_end = n.b;
        } else if (q.count + 2 <= stack_size) {
            q.stack.entries[q.count++] = n.b;
            q.stack.entries[q.count++] = n.a;
        }
    }
}

} // namespace weft_bvh

#endif
