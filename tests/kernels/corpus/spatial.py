import warp as wp


@wp.func
def cross_matrix(p: wp.vec3) -> wp.mat33:
    return wp.mat33(0.0, -p[2], p[1], p[2], 0.0, -p[0], -p[1], p[0], 0.0)


@wp.func
def rotation_matrix(q: wp.quat) -> wp.mat33:
    # Columns: the rotated basis vectors.
    c0 = wp.quat_rotate(q, wp.vec3(1.0, 0.0, 0.0))
    c1 = wp.quat_rotate(q, wp.vec3(0.0, 1.0, 0.0))
    c2 = wp.quat_rotate(q, wp.vec3(0.0, 0.0, 1.0))
    return wp.mat33(c0[0], c1[0], c2[0], c0[1], c1[1], c2[1], c0[2], c1[2], c2[2])


@wp.func
def twist_to_world(x: wp.transform, t: wp.spatial_vector) -> wp.spatial_vector:
    # A twist expressed in the body frame, moved to the world frame.
    w = wp.transform_vector(x, wp.spatial_top(t))
    v = wp.transform_vector(x, wp.spatial_bottom(t)) + wp.cross(wp.transform_get_translation(x), w)
    return wp.spatial_vector(w, v)


@wp.kernel
def wrench_power(twists: wp.array(dtype=wp.spatial_vector), wrenches: wp.array(dtype=wp.spatial_vector), power: wp.array(dtype=float)):
    i = wp.tid()
    power[i] = wp.spatial_dot(wrenches[i], twists[i])


@wp.kernel
def bias_forces(
    twists: wp.array(dtype=wp.spatial_vector),
    inertias: wp.array(dtype=wp.spatial_matrix),
    accel: wp.array(dtype=wp.spatial_vector),
    force: wp.array(dtype=wp.spatial_vector),
):
    i = wp.tid()
    v = twists[i]
    I = inertias[i]
    # Featherstone's RNEA step: a = v x v_joint, f = I a + v x* (I v)
    v_joint = wp.spatial_vector(0.0, 0.0, 1.0, 0.5, 0.0, 0.0)
    a = wp.spatial_cross(v, v_joint)
    accel[i] = a
    force[i] = I * a + wp.spatial_cross_dual(v, I * v)


@wp.kernel
def split_and_join(twists: wp.array(dtype=wp.spatial_vector), angular: wp.array(dtype=wp.vec3), linear: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.spatial_vector)):
    i = wp.tid()
    t = twists[i]
    angular[i] = wp.spatial_top(t)
    linear[i] = wp.spatial_bottom(t)
    s = wp.spatial_vector(linear[i], angular[i]) * 2.0 - t
    s[5] = s[5] + float(len(s))
    out[i] = s + wp.spatial_vector(1.0, 0.0, 0.0, 0.0, 0.0, 2.0)


@wp.kernel
def adjoint_transform(poses: wp.array(dtype=wp.transform), twists: wp.array(dtype=wp.spatial_vector), out: wp.array(dtype=wp.spatial_vector), by_matrix: wp.array(dtype=wp.spatial_vector), mats: wp.array(dtype=wp.spatial_matrix)):
    i = wp.tid()
    x = poses[i]
    x = wp.transform(x.p, wp.normalize(x.q))
    R = rotation_matrix(x.q)
    X = wp.spatial_adjoint(R, cross_matrix(x.p) * R)
    mats[i] = wp.transpose(X) + wp.outer(twists[i], twists[i])
    by_matrix[i] = X * twists[i]
    out[i] = twist_to_world(x, twists[i])
    wp.expect_near(by_matrix[i], out[i], tolerance=1.0e-3)


@wp.kernel
def accumulate_wrenches(contacts: wp.array(dtype=wp.vec3), body_wrench: wp.array(dtype=wp.spatial_vector)):
    i = wp.tid()
    f = contacts[i]
    r = wp.vec3(0.1, 0.2, 0.3)
    wp.atomic_add(body_wrench, i % 4, wp.spatial_vector(wp.cross(r, f), f))


@wp.kernel
def double_precision(a: wp.array(dtype=wp.spatial_vectord), b: wp.array(dtype=wp.spatial_vectord), m: wp.array(dtype=wp.spatial_matrixd), out: wp.array(dtype=wp.spatial_vectord)):
    i = wp.tid()
    out[i] = m[i] * wp.spatial_cross(a[i], b[i]) + wp.spatial_vectord(wp.float64(1.0), b[i][1], b[i][2], wp.spatial_bottom(a[i])[0], wp.float64(0.5), a[i][5])
