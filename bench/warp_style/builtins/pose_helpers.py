# Warp's warp.math helpers as pose code uses them: Euler angles both ways,
# roll-pitch-yaw, twist about an axis, 4x4 poses composed and decomposed,
# twists and wrenches moved between frames, and the vector norms.
import warp as wp


@wp.kernel
def euler_round_trip(q: wp.array(dtype=wp.quat), angles: wp.array(dtype=wp.vec3), back: wp.array(dtype=wp.quat),
                     twist: wp.array(dtype=float)):
    i = wp.tid()
    r = wp.normalize(q[i])
    e = wp.quat_to_euler(r, 0, 1, 2)
    angles[i] = e + wp.quat_to_rpy(r)
    back[i] = wp.quat_from_euler(e, 0, 1, 2) * wp.quat_twist(wp.vec3(0.0, 1.0, 0.0), r)
    twist[i] = wp.quat_twist_angle(wp.vec3(0.0, 0.0, 1.0), r) - wp.quat_twist_angle_signed(wp.vec3(1.0, 0.0, 0.0), r)


@wp.kernel
def poses(p: wp.array(dtype=wp.vec3), q: wp.array(dtype=wp.quat), m: wp.array(dtype=wp.mat44),
          scale: wp.array(dtype=wp.vec3), moved: wp.array(dtype=wp.spatial_vector)):
    i = wp.tid()
    r = wp.normalize(q[i])
    pose = wp.transform_compose(p[i], r, wp.vec3(1.0, 2.0, 0.5))
    m[i] = pose
    pos, rot, s = wp.transform_decompose(pose)
    scale[i] = s + pos
    t = wp.transform_from_matrix(wp.transform_to_matrix(wp.transform(p[i], rot)))
    v = wp.spatial_vector(p[i], wp.vec3(0.5, -1.0, 2.0))
    moved[i] = wp.transform_twist(t, v) - wp.transform_wrench(t, v) * wp.norm_huber(p[i], 0.5)


@wp.kernel
def norms(v: wp.array(dtype=wp.vec3), w: wp.array(dtype=wp.vec4), out: wp.array(dtype=float),
          unit: wp.array(dtype=wp.vec3), vel: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.norm_l1(v[i]) + wp.norm_l2(w[i]) + wp.norm_pseudo_huber(w[i], 0.25)
    unit[i] = wp.smooth_normalize(v[i], 0.1)
    vel[i] = wp.velocity_at_point(wp.spatial_vector(v[i], unit[i]), v[i])
