import warp as wp


@wp.struct
class Material:
    albedo: wp.vec3
    roughness: float
    flags: int


@wp.struct
class Particle:
    position: wp.vec3
    velocity: wp.vec3
    mass: float
    material: Material


@wp.struct
class SimParams:
    dt: float
    gravity: wp.vec3
    steps: int


@wp.func
def kinetic_energy(p: Particle) -> float:
    return 0.5 * p.mass * wp.dot(p.velocity, p.velocity)


@wp.func
def advance(p: Particle, params: SimParams) -> Particle:
    q = p
    q.velocity = q.velocity + params.gravity * params.dt
    q.position = q.position + q.velocity * params.dt
    return q


@wp.kernel
def step_particles(particles: wp.array(dtype=Particle), params: SimParams):
    i = wp.tid()
    p = particles[i]
    for s in range(params.steps):
        p = advance(p, params)
    particles[i] = p


@wp.kernel
def energies(particles: wp.array(dtype=Particle), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = kinetic_energy(particles[i])


@wp.kernel
def init_particles(particles: wp.array(dtype=Particle), spacing: float):
    i = wp.tid()
    m = Material()
    m.albedo = wp.vec3(0.8, 0.2, 0.2)
    m.roughness = 0.5
    m.flags = i & 3
    p = Particle()
    p.position = wp.vec3(float(i) * spacing, 0.0, 0.0)
    p.velocity = wp.vec3()
    p.mass = 1.0
    p.material = m
    particles[i] = p
    particles[i].material.roughness = 0.25
    particles[i].velocity.y = -1.0


@wp.kernel
def shiny_count(particles: wp.array(dtype=Particle), count: wp.array(dtype=int)):
    i = wp.tid()
    if particles[i].material.roughness < 0.3 and (particles[i].material.flags & 1) != 0:
        wp.atomic_add(count, 0, 1)
