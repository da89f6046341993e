import warp as wp

MAX_STEPS = wp.constant(64)


@wp.func
def sdf_sphere(p: wp.vec3, center: wp.vec3, radius: float) -> float:
    return wp.length(p - center) - radius


@wp.func
def sdf_box(p: wp.vec3, half: wp.vec3) -> float:
    q = wp.vec3(wp.abs(p[0]), wp.abs(p[1]), wp.abs(p[2])) - half
    outside = wp.length(wp.max(q, wp.vec3(0.0)))
    inside = wp.min(wp.max(q[0], wp.max(q[1], q[2])), 0.0)
    return outside + inside


@wp.func
def scene(p: wp.vec3) -> float:
    a = sdf_sphere(p, wp.vec3(0.0, 0.0, 5.0), 1.0)
    b = sdf_box(p - wp.vec3(2.0, 0.0, 6.0), wp.vec3(0.5, 0.5, 0.5))
    return wp.min(a, b)


@wp.func
def estimate_normal(p: wp.vec3) -> wp.vec3:
    e = 0.001
    dx = scene(p + wp.vec3(e, 0.0, 0.0)) - scene(p - wp.vec3(e, 0.0, 0.0))
    dy = scene(p + wp.vec3(0.0, e, 0.0)) - scene(p - wp.vec3(0.0, e, 0.0))
    dz = scene(p + wp.vec3(0.0, 0.0, e)) - scene(p - wp.vec3(0.0, 0.0, e))
    return wp.normalize(wp.vec3(dx, dy, dz))


@wp.kernel
def sphere_trace(width: int, height: int, depth: wp.array2d(dtype=float), normals: wp.array2d(dtype=wp.vec3)):
    y, x = wp.tid()
    u = (float(x) + 0.5) / float(width) * 2.0 - 1.0
    v = (float(y) + 0.5) / float(height) * 2.0 - 1.0
    ro = wp.vec3(0.0, 0.0, 0.0)
    rd = wp.normalize(wp.vec3(u, v, 1.5))
    t = float(0.0)
    hit = False
    for step in range(MAX_STEPS):
        d = scene(ro + rd * t)
        if d < 1.0e-4:
            hit = True
            break
        t += d
        if t > 100.0:
            break
    depth[y, x] = t if hit else -1.0
    if hit:
        normals[y, x] = estimate_normal(ro + rd * t)
    else:
        normals[y, x] = wp.vec3()
