# Double-precision transforms (transformd) for a long kinematic chain, and
# transformf spelled out.
import warp as wp


@wp.kernel
def chain_d(p: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    q = wp.quat_from_axis_angle(wp.vec3d(wp.float64(0.0), wp.float64(1.0), wp.float64(0.0)), wp.float64(0.1))
    X = wp.transformd(wp.vec3d(wp.float64(1.0), wp.float64(0.0), wp.float64(0.0)), q)
    v = p[i]
    for k in range(10):
        v = wp.transform_point(X, v)
    out[i] = v


@wp.kernel
def chain_f(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    X = wp.transformf(wp.vec3(0.0, 1.0, 0.0), wp.quat_identity())
    out[i] = wp.transform_point(X, p[i]) + wp.transform_vector(X, p[i])
