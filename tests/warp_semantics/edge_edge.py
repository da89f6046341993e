# closest_point_edge_edge on skew, crossing, parallel, touching and degenerate
# segment pairs, forward and backward: tests/unit/test_warp_semantics.cpp
# holds warp-lang 1.19's values.
import warp as wp


@wp.kernel
def edge_edge(p1: wp.array(dtype=wp.vec3), q1: wp.array(dtype=wp.vec3), p2: wp.array(dtype=wp.vec3),
              q2: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), loss: wp.array(dtype=float)):
    i = wp.tid()
    r = wp.closest_point_edge_edge(p1[i], q1[i], p2[i], q2[i], 1.0e-6)
    out[i] = r
    wp.atomic_add(loss, 0, r[2] * 2.0 + r[0] - 0.5 * r[1])
