# intersect_tri_tri on random triangle pairs, a third of them coplanar (z = 0)
# and a third sharing a vertex: tests/unit/test_warp_semantics.cpp compares
# every answer with warp-lang 1.19's.
import warp as wp


@wp.func
def point(i: int, k: int, flat: bool):
    state = wp.rand_init(1234, i * 8 + k)
    x = wp.randf(state) * 2.0 - 1.0
    y = wp.randf(state) * 2.0 - 1.0
    z = wp.randf(state) * 2.0 - 1.0
    if flat:
        z = 0.0
    return wp.vec3(x, y, z)


@wp.kernel
def pairs(hits: wp.array(dtype=int), hits_d: wp.array(dtype=int)):
    i = wp.tid()
    flat = i % 3 == 0
    v0 = point(i, 0, flat)
    v1 = point(i, 1, flat)
    v2 = point(i, 2, flat)
    u0 = point(i, 3, flat) + wp.vec3(0.5, 0.0, 0.0)
    if i % 3 == 1:
        u0 = v1
    u1 = point(i, 4, flat)
    u2 = point(i, 5, flat)
    hits[i] = wp.intersect_tri_tri(v0, v1, v2, u0, u1, u2)
    hits_d[i] = wp.intersect_tri_tri(wp.vec3d(v0), wp.vec3d(v1), wp.vec3d(v2), wp.vec3d(u0), wp.vec3d(u1),
                                     wp.vec3d(u2))
