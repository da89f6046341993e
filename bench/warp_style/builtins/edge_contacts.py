# Edge-edge proximity as cloth and rod solvers compute it: closest points of
# segment pairs, contact normals and penetration depths.
import warp as wp


@wp.kernel
def edge_contacts(a0: wp.array(dtype=wp.vec3), a1: wp.array(dtype=wp.vec3), b0: wp.array(dtype=wp.vec3),
                  b1: wp.array(dtype=wp.vec3), thickness: float, depth: wp.array(dtype=float),
                  normal: wp.array(dtype=wp.vec3), params: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    p1 = a0[i]
    q1 = a1[i] + wp.vec3(0.0, float(i % 3), 0.0)
    p2 = b0[i] + wp.vec3(0.3, 0.0, float(i % 2))
    q2 = b1[i] - wp.vec3(0.0, 0.5, 0.0)
    st = wp.closest_point_edge_edge(p1, q1, p2, q2, 1.0e-8)
    c1 = p1 + (q1 - p1) * st[0]
    c2 = p2 + (q2 - p2) * st[1]
    depth[i] = thickness - st[2]
    normal[i] = wp.normalize(c2 - c1)
    params[i] = wp.vec2(st[0], st[1])
