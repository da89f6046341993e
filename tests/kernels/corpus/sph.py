import warp as wp

PI = 3.14159265
SMOOTHING = wp.constant(0.1)
REST_DENSITY = 1000.0
STIFFNESS = wp.constant(200.0)


@wp.func
def poly6(r2: float, h: float) -> float:
    h2 = h * h
    if r2 >= h2:
        return 0.0
    diff = h2 - r2
    return 315.0 / (64.0 * PI * wp.pow(h, 9.0)) * diff * diff * diff


@wp.func
def spiky_grad(d: wp.vec3, h: float) -> wp.vec3:
    r = wp.length(d)
    if r <= 0.0 or r >= h:
        return wp.vec3()
    c = -45.0 / (PI * wp.pow(h, 6.0)) * (h - r) * (h - r)
    return d * (c / r)


@wp.kernel
def compute_density(pos: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float), mass: float):
    i = wp.tid()
    p = pos[i]
    total = float(0.0)
    for j in range(pos.shape[0]):
        d = pos[j] - p
        total += mass * poly6(wp.length_sq(d), SMOOTHING)
    rho[i] = total


@wp.kernel
def compute_pressure_force(
    pos: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float), force: wp.array(dtype=wp.vec3), mass: float
):
    i = wp.tid()
    pi = STIFFNESS * (rho[i] - REST_DENSITY)
    f = wp.vec3()
    for j in range(len(pos)):
        if j == i:
            continue
        pj = STIFFNESS * (rho[j] - REST_DENSITY)
        f -= spiky_grad(pos[i] - pos[j], SMOOTHING) * (mass * (pi + pj) / (2.0 * rho[j]))
    force[i] = f
