import warp as wp


@wp.func
def rotation_angle(q: wp.quat) -> float:
    w = wp.clamp(q.w, -1.0, 1.0)
    return 2.0 * wp.acos(w)


@wp.kernel
def rotate_vectors(vectors: wp.array(dtype=wp.vec3), axis: wp.vec3, angle: float, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = wp.quat_from_axis_angle(wp.normalize(axis), angle)
    out[i] = wp.quat_rotate(q, vectors[i])


@wp.kernel
def compose_rotations(a: wp.array(dtype=wp.quat), b: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.quat)):
    i = wp.tid()
    q = a[i] * b[i]
    out[i] = wp.normalize(q)


@wp.kernel
def undo_rotation(rotations: wp.array(dtype=wp.quat), points: wp.array(dtype=wp.vec3), angles: wp.array(dtype=float)):
    i = wp.tid()
    q = rotations[i]
    p = wp.quat_rotate(q, points[i])
    back = wp.quat_rotate(wp.quat_inverse(q), p)
    wp.expect_near(back, points[i], tolerance=1.0e-4)
    angles[i] = rotation_angle(q)


@wp.kernel
def identity_rotation(points: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    q = wp.quat(0.0, 0.0, 0.0, 1.0)
    half = q * 0.5
    points[i] = wp.quat_rotate(wp.normalize(half + half), points[i])
    wp.expect_near(wp.length(q), 1.0)
