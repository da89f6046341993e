# The meshes, points, rays and boxes the geometry tests use, computed the way
# tests/unit/test_geometry.cpp computes them (doubles rounded to float32 once),
# so warp-lang and weft see the same bytes.
import math


def frac(i, a):
    return math.fmod(i * a, 1.0)


def sphere(n_lat=16, n_lon=32, radius=1.0):
    points, indices = [], []
    for i in range(n_lat + 1):
        theta = math.pi * i / n_lat
        for j in range(n_lon):
            phi = 2.0 * math.pi * j / n_lon
            points.append((radius * math.sin(theta) * math.cos(phi), radius * math.cos(theta), radius * math.sin(theta) * math.sin(phi)))
    for i in range(n_lat):
        for j in range(n_lon):
            a, b = i * n_lon + j, i * n_lon + (j + 1) % n_lon
            c, d = (i + 1) * n_lon + j, (i + 1) * n_lon + (j + 1) % n_lon
            indices += [a, c, b, b, c, d]  # the pole rows give degenerate triangles, as generated spheres do
    return points, indices


def box_mesh(lo=(-0.5, -0.3, -0.2), hi=(0.7, 0.4, 0.9)):
    points = [(x, y, z) for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])]
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    indices = []
    for a, b, c, d in quads:
        indices += [a, b, c, a, c, d]
    return points, indices


def soup(n=300):
    # random-looking triangles, some degenerate (a repeated vertex, collinear)
    points, indices = [], []
    for t in range(n):
        base = (frac(t, 0.6180339887498949) * 4 - 2, frac(t, 0.7548776662466927) * 4 - 2, frac(t, 0.5698402909980532) * 4 - 2)
        for k in range(3):
            s = t * 3 + k
            points.append((base[0] + frac(s, 0.3819660112501051) * 0.6 - 0.3, base[1] + frac(s, 0.2451223337533073) * 0.6 - 0.3,
                           base[2] + frac(s, 0.4301597090019468) * 0.6 - 0.3))
        if t % 17 == 0:
            points[-1] = points[-2]  # a repeated vertex
        if t % 23 == 0:
            a, b = points[-3], points[-2]
            points[-1] = (2 * b[0] - a[0], 2 * b[1] - a[1], 2 * b[2] - a[2])  # collinear
        indices += [t * 3, t * 3 + 1, t * 3 + 2]
    return points, indices


def query_points(n, side):
    return [((frac(i, 0.6180339887498949) - 0.5) * side, (frac(i, 0.7548776662466927) - 0.5) * side,
             (frac(i, 0.5698402909980532) - 0.5) * side) for i in range(n)]


def rays(n, radius):
    starts, dirs = [], []
    for i in range(n):
        z = 1.0 - 2.0 * frac(i, 0.6180339887498949)
        phi = 2.0 * math.pi * frac(i, 0.7548776662466927)
        r = math.sqrt(max(0.0, 1.0 - z * z))
        s = (radius * r * math.cos(phi), radius * z, radius * r * math.sin(phi))
        target = ((frac(i, 0.5698402909980532) - 0.5) * 0.8, (frac(i, 0.3819660112501051) - 0.5) * 0.8, (frac(i, 0.2451223337533073) - 0.5) * 0.8)
        d = (target[0] - s[0], target[1] - s[1], target[2] - s[2])
        length = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
        starts.append(s)
        dirs.append((d[0] / length, d[1] / length, d[2] / length))
    return starts, dirs


def boxes(n, side, size):
    lo, hi = [], []
    for i, c in enumerate(query_points(n, side)):
        e = size * (0.25 + frac(i, 0.3819660112501051))
        lo.append((c[0] - e, c[1] - e, c[2] - e))
        hi.append((c[0] + e, c[1] + e, c[2] + e))
    return lo, hi
