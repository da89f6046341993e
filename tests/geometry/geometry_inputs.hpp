// tests/geometry/geometry_inputs.py in C++: the same meshes, points, rays and
// boxes, computed in doubles and rounded to float32 once, so weft and
// warp-lang see the same bytes.
#pragma once

#include "weft/runtime/values.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace geometry_inputs {

using weft::values::vec3f;
using Points = std::vector<vec3f>;

inline double frac(long i, double a) { return std::fmod(static_cast<double>(i) * a, 1.0); }
inline vec3f v3(double x, double y, double z) { return vec3f{{static_cast<float>(x), static_cast<float>(y), static_cast<float>(z)}}; }

struct Mesh {
    Points points;
    std::vector<int> indices;
};

inline Mesh sphere(int n_lat = 16, int n_lon = 32, double radius = 1.0) {
    Mesh m;
    for (int i = 0; i <= n_lat; ++i) {
        const double theta = M_PI * i / n_lat;
        for (int j = 0; j < n_lon; ++j) {
            const double phi = 2.0 * M_PI * j / n_lon;
            m.points.push_back(v3(radius * std::sin(theta) * std::cos(phi), radius * std::cos(theta),
                                  radius * std::sin(theta) * std::sin(phi)));
        }
    }
    for (int i = 0; i < n_lat; ++i)
        for (int j = 0; j < n_lon; ++j) {
            const int a = i * n_lon + j, b = i * n_lon + (j + 1) % n_lon, c = (i + 1) * n_lon + j,
                      d = (i + 1) * n_lon + (j + 1) % n_lon;
            m.indices.insert(m.indices.end(), {a, c, b, b, c, d});
        }
    return m;
}

inline Mesh box_mesh() {
    const double lo[3] = {-0.5, -0.3, -0.2}, hi[3] = {0.7, 0.4, 0.9};
    Mesh m;
    for (double x : {lo[0], hi[0]})
        for (double y : {lo[1], hi[1]})
            for (double z : {lo[2], hi[2]}) m.points.push_back(v3(x, y, z));
    const int quads[6][4] = {{0, 1, 3, 2}, {4, 6, 7, 5}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 2, 6, 4}, {1, 5, 7, 3}};
    for (const auto &q : quads) m.indices.insert(m.indices.end(), {q[0], q[1], q[2], q[0], q[2], q[3]});
    return m;
}

inline Mesh soup(int n = 300) {
    Mesh m;
    std::vector<double> pts; // doubles, as Python keeps them until the array is made
    for (int t = 0; t < n; ++t) {
        const double base[3] = {frac(t, 0.6180339887498949) * 4 - 2, frac(t, 0.7548776662466927) * 4 - 2,
                                frac(t, 0.5698402909980532) * 4 - 2};
        for (int k = 0; k < 3; ++k) {
            const long s = t * 3 + k;
            pts.insert(pts.end(), {base[0] + frac(s, 0.3819660112501051) * 0.6 - 0.3,
                                   base[1] + frac(s, 0.2451223337533073) * 0.6 - 0.3,
                                   base[2] + frac(s, 0.4301597090019468) * 0.6 - 0.3});
        }
        double *last = &pts[pts.size() - 3], *mid = &pts[pts.size() - 6], *first = &pts[pts.size() - 9];
        if (t % 17 == 0) std::copy(mid, mid + 3, last);
        if (t % 23 == 0)
            for (int k = 0; k < 3; ++k) last[k] = 2 * mid[k] - first[k];
        m.indices.insert(m.indices.end(), {t * 3, t * 3 + 1, t * 3 + 2});
    }
    for (std::size_t i = 0; i < pts.size(); i += 3) m.points.push_back(v3(pts[i], pts[i + 1], pts[i + 2]));
    return m;
}

/// Each triangle's bounds (a BVH over a mesh's triangles, as wp.Bvh gets them from numpy's min and max).
inline void triangle_bounds(const Mesh &m, Points &lo, Points &hi) {
    for (std::size_t t = 0; t < m.indices.size(); t += 3) {
        vec3f l = m.points[static_cast<std::size_t>(m.indices[t])], h = l;
        for (std::size_t c = 1; c < 3; ++c)
            for (int k = 0; k < 3; ++k) {
                const float v = m.points[static_cast<std::size_t>(m.indices[t + c])].c[k];
                l.c[k] = std::min(l.c[k], v);
                h.c[k] = std::max(h.c[k], v);
            }
        lo.push_back(l);
        hi.push_back(h);
    }
}

inline Points query_points(int n, double side) {
    Points out;
    for (int i = 0; i < n; ++i)
        out.push_back(v3((frac(i, 0.6180339887498949) - 0.5) * side, (frac(i, 0.7548776662466927) - 0.5) * side,
                         (frac(i, 0.5698402909980532) - 0.5) * side));
    return out;
}

inline void rays(int n, double radius, Points &starts, Points &dirs) {
    for (int i = 0; i < n; ++i) {
        const double z = 1.0 - 2.0 * frac(i, 0.6180339887498949);
        const double phi = 2.0 * M_PI * frac(i, 0.7548776662466927);
        const double r = std::sqrt(std::max(0.0, 1.0 - z * z));
        const double s[3] = {radius * r * std::cos(phi), radius * z, radius * r * std::sin(phi)};
        const double target[3] = {(frac(i, 0.5698402909980532) - 0.5) * 0.8, (frac(i, 0.3819660112501051) - 0.5) * 0.8,
                                  (frac(i, 0.2451223337533073) - 0.5) * 0.8};
        const double d[3] = {target[0] - s[0], target[1] - s[1], target[2] - s[2]};
        const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        starts.push_back(v3(s[0], s[1], s[2]));
        dirs.push_back(v3(d[0] / length, d[1] / length, d[2] / length));
    }
}

inline void boxes(int n, double side, double size, Points &lo, Points &hi) {
    for (int i = 0; i < n; ++i) {
        const double c[3] = {(frac(i, 0.6180339887498949) - 0.5) * side, (frac(i, 0.7548776662466927) - 0.5) * side,
                             (frac(i, 0.5698402909980532) - 0.5) * side};
        const double e = size * (0.25 + frac(i, 0.3819660112501051));
        lo.push_back(v3(c[0] - e, c[1] - e, c[2] - e));
        hi.push_back(v3(c[0] + e, c[1] + e, c[2] + e));
    }
}

} // namespace geometry_inputs
