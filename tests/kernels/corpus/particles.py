import warp as wp

GRAVITY = wp.constant(wp.vec3(0.0, -9.81, 0.0))
DAMPING = wp.constant(0.98)
RESTITUTION = 0.5


@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), inv_mass: wp.array(dtype=float), dt: float):
    tid = wp.tid()
    if inv_mass[tid] == 0.0:
        return
    vel = v[tid] + GRAVITY * dt
    vel = vel * DAMPING
    pos = x[tid] + vel * dt
    # bounce off the ground plane
    if pos[1] < 0.0:
        pos[1] = 0.0
        vel[1] = -vel[1] * RESTITUTION
    x[tid] = pos
    v[tid] = vel


@wp.kernel
def apply_wind(v: wp.array(dtype=wp.vec3), wind: wp.vec3, drag: float, dt: float):
    tid = wp.tid()
    rel = wind - v[tid]
    v[tid] = v[tid] + rel * (drag * dt)


@wp.kernel
def collide_sphere(x: wp.array(dtype=wp.vec3), center: wp.vec3, radius: float):
    tid = wp.tid()
    d = x[tid] - center
    dist = wp.length(d)
    if dist < radius and dist > 0.0:
        x[tid] = center + d * (radius / dist)
