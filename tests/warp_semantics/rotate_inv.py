# quat_rotate_inv, float32 with a gradient and float64: the kernel
# tests/unit/test_warp_semantics.cpp runs, with warp-lang 1.19's values.
import warp as wp


@wp.kernel
def rotate_inv(q: wp.array(dtype=wp.quat), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
               out64: wp.array(dtype=wp.vec3d), loss: wp.array(dtype=float)):
    i = wp.tid()
    r = wp.quat_rotate_inv(q[i], p[i])
    out[i] = r
    qd = wp.quatd(wp.float64(q[i][0]), wp.float64(q[i][1]), wp.float64(q[i][2]), wp.float64(q[i][3]))
    out64[i] = wp.quat_rotate_inv(qd, wp.vec3d(wp.float64(p[i][0]), wp.float64(p[i][1]), wp.float64(p[i][2])))
    wp.atomic_add(loss, 0, r[0] * 2.0 - r[1] + 0.5 * r[2] + wp.dot(wp.quat_rotate(q[i], r), p[i]))
