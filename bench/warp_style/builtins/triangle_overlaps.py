# Triangle soup overlap counting with intersect_tri_tri: each triangle tested
# against a few neighbours in the list, in float32 and float64.
import warp as wp


@wp.func
def corner(points: wp.array(dtype=wp.vec3), tri: int, k: int):
    n = points.shape[0]
    return points[(tri * 3 + k) % n]


@wp.kernel
def overlaps(points: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int), total: wp.array(dtype=int)):
    t = wp.tid()
    c = int(0)
    for s in range(1, 4):
        o = t + s
        c += wp.intersect_tri_tri(corner(points, t, 0), corner(points, t, 1), corner(points, t, 2),
                                  corner(points, o, 0), corner(points, o, 1), corner(points, o, 2))
    counts[t] = c
    wp.atomic_add(total, 0, c)


@wp.kernel
def overlaps_double(points: wp.array(dtype=wp.vec3d), flags: wp.array(dtype=int)):
    t = wp.tid()
    n = points.shape[0]
    flags[t] = wp.intersect_tri_tri(points[t % n], points[(t + 1) % n], points[(t + 2) % n],
                                    points[(t + 3) % n], points[(t + 5) % n], points[(t + 7) % n])
