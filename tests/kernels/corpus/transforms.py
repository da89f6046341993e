import warp as wp

MOUNT = wp.constant(wp.transform(wp.vec3(0.0, 0.5, 1.0), wp.quat(0.0, 0.0, 0.6, 0.8)))
OFFSET = wp.constant(wp.transform(1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0))
SHIFT = wp.constant(wp.transform(wp.vec3(0.25, 0.0, 0.0)))

@wp.struct
class Body:
    pose: wp.transform
    twist: wp.spatial_vector
    mass: float


@wp.func
def unit_pose(t: wp.transform) -> wp.transform:
    # Inputs carry arbitrary quaternions: rigid-body code keeps q unit length.
    return wp.transform(t.p, wp.normalize(t.q))


@wp.func
def body_point(body: Body, local: wp.vec3) -> wp.vec3:
    return wp.transform_point(body.pose, local)


@wp.kernel
def integrate_bodies(
    poses: wp.array(dtype=wp.transform),
    velocities: wp.array(dtype=wp.spatial_vector),
    dt: float,
    out: wp.array(dtype=wp.transform),
):
    i = wp.tid()
    pose = unit_pose(poses[i])
    v = velocities[i]
    w = wp.spatial_top(v)
    lin = wp.spatial_bottom(v)
    p = wp.transform_get_translation(pose) + lin * dt
    q = wp.transform_get_rotation(pose)
    # q' = q + 0.5 (w, 0) q dt, renormalized
    dq = wp.quat(w[0], w[1], w[2], 0.0) * q * (0.5 * dt)
    out[i] = wp.transform(p, wp.normalize(q + dq))


@wp.kernel
def compose_chain(parents: wp.array(dtype=wp.transform), joints: wp.array(dtype=wp.transform), out: wp.array(dtype=wp.transform)):
    i = wp.tid()
    a = unit_pose(parents[i])
    b = unit_pose(joints[i])
    ab = a * b
    out[i] = wp.transform_multiply(ab, wp.transform_identity())
    wp.expect_near(wp.transform_point(ab, wp.vec3(1.0, 2.0, 3.0)), wp.transform_point(a, wp.transform_point(b, wp.vec3(1.0, 2.0, 3.0))), tolerance=1.0e-4)


@wp.kernel
def to_world_and_back(
    poses: wp.array(dtype=wp.transform),
    points: wp.array(dtype=wp.vec3),
    world: wp.array(dtype=wp.vec3),
    dirs: wp.array(dtype=wp.vec3),
):
    i = wp.tid()
    x = unit_pose(poses[i])
    world[i] = wp.transform_point(x, points[i])
    dirs[i] = wp.transform_vector(x, points[i])
    back = wp.transform_point(wp.transform_inverse(x), world[i])
    wp.expect_near(back, points[i], tolerance=1.0e-4)


@wp.kernel
def raw_transforms(poses: wp.array(dtype=wp.transform), points: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), inv: wp.array(dtype=wp.transform)):
    # Arbitrary (non-unit) rotations: the formulas as written, compared with Warp.
    i = wp.tid()
    t = poses[i]
    out[i] = wp.transform_point(t, points[i]) + wp.transform_vector(t, points[i])
    inv[i] = wp.transform_inverse(t) * t


@wp.kernel
def build_forms(p: wp.vec3, s: float, out: wp.array(dtype=wp.transform), comps: wp.array(dtype=float)):
    i = wp.tid()
    q = wp.quat_from_axis_angle(wp.vec3(0.0, 0.0, 1.0), 0.5 * s)
    forms = wp.transform(p, q)
    if i % 4 == 1:
        forms = wp.transform(p)
    elif i % 4 == 2:
        forms = wp.transform(1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0)
    elif i % 4 == 3:
        forms = wp.transform(p=p, q=q)
    t = forms
    t.p = t.p + wp.vec3(s, 0.0, 0.0)
    t.q = wp.normalize(t.q)
    t[2] = t[2] * 2.0
    out[i] = t * 2.0 + wp.transform(s) - wp.transform() + wp.transformation(p, q)
    comps[i] = t[i % 7] + float(len(t))
    if t == forms:
        comps[i] = -1.0


@wp.kernel
def rigid_body_points(bodies: wp.array(dtype=Body), locals: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    b = bodies[i]
    b.pose = unit_pose(b.pose)
    com = body_point(b, locals[i])
    out[i] = com + wp.spatial_bottom(b.twist) * b.mass


@wp.kernel
def homogeneous(m: wp.array(dtype=wp.mat44), points: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    out[i] = wp.transform_point(m[i], points[i]) - wp.transform_vector(m[i], points[i])


@wp.kernel
def double_precision(poses: wp.array(dtype=wp.transformd), points: wp.array(dtype=wp.vec3d), out: wp.array(dtype=wp.vec3d), ids: wp.array(dtype=wp.transformd)):
    i = wp.tid()
    t = poses[i]
    out[i] = wp.transform_point(t, points[i])
    ids[i] = wp.transform_identity(dtype=wp.float64) * wp.transformd(t)


@wp.kernel
def mounted_points(points: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    x = MOUNT * OFFSET * SHIFT
    out[i] = wp.transform_point(x, points[i]) + wp.transform_get_translation(MOUNT)
