# plugins: hash_grid
# objects: grid=hash_grid(points,0.4)
# SPH-style pressure and viscosity accelerations summed over hash-grid neighbours.
import warp as wp


@wp.kernel
def accelerate(grid: wp.uint64, points: wp.array(dtype=wp.vec3), velocities: wp.array(dtype=wp.vec3), h: float, acc: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    x = points[i]
    v = velocities[i]
    radius = h * 0.25
    a = wp.vec3(0.0, 0.0, 0.0)
    for j in wp.hash_grid_query(grid, x, radius):
        if j != i:
            d = x - points[j]
            r = wp.length(d)
            if r < radius and r > 0.0:
                w = (radius - r) * (radius - r)
                a = a + d / r * w - (v - velocities[j]) * w * 0.1
    acc[i] = a
