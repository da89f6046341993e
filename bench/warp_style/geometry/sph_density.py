# plugins: hash_grid
# objects: grid=hash_grid(points,0.5)
# Warp's SPH example: densities from neighbours found through a hash grid.
import warp as wp


@wp.func
def square(x: float):
    return x * x


@wp.func
def cube(x: float):
    return x * x * x


@wp.func
def density_kernel(xyz: wp.vec3, smoothing_length: float):
    distance_sq = wp.dot(xyz, xyz)
    return wp.max(cube(square(smoothing_length) - distance_sq), 0.0)


@wp.kernel
def compute_density(grid: wp.uint64, points: wp.array(dtype=wp.vec3), rho: wp.array(dtype=float), smoothing_length: float):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    x = points[i]
    r = float(0.0)
    neighbors = wp.hash_grid_query(grid, x, smoothing_length * 0.3)
    for index in neighbors:
        r += density_kernel(x - points[index], smoothing_length * 0.3)
    rho[i] = r
