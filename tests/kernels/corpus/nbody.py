import warp as wp

SOFTENING = 0.01


@wp.kernel
def nbody_forces(
    positions: wp.array(dtype=wp.vec3),
    masses: wp.array(dtype=float),
    accelerations: wp.array(dtype=wp.vec3),
    count: int,
):
    i = wp.tid()
    p = positions[i]
    acc = wp.vec3(0.0, 0.0, 0.0)
    for j in range(count):
        if j == i:
            continue
        d = positions[j] - p
        r2 = wp.dot(d, d) + SOFTENING * SOFTENING
        inv_r = 1.0 / wp.sqrt(r2)
        acc = acc + d * (masses[j] * inv_r * inv_r * inv_r)
    accelerations[i] = acc


@wp.kernel
def nearest_direction(
    positions: wp.array(dtype=wp.vec3), directions: wp.array(dtype=wp.vec3), distances: wp.array(dtype=float)
):
    i = wp.tid()
    p = positions[i]
    best = float(1.0e30)
    best_dir = wp.vec3()
    n = len(positions)
    for j in range(n):
        if j != i:
            d = positions[j] - p
            dist = wp.length(d)
            if dist < best:
                best = dist
                best_dir = wp.normalize(d)
    directions[i] = best_dir
    distances[i] = best


@wp.kernel
def kick_drift(
    positions: wp.array(dtype=wp.vec3),
    velocities: wp.array(dtype=wp.vec3),
    accelerations: wp.array(dtype=wp.vec3),
    dt: float,
):
    i = wp.tid()
    v = velocities[i] + accelerations[i] * dt
    velocities[i] = v
    positions[i] = positions[i] + v * dt
