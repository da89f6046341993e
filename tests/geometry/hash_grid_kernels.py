# Neighbour queries over Warp's hash grid, as Warp's SPH example writes them:
# the `for index in wp.hash_grid_query(...)` form and the older
# `while wp.hash_grid_query_next(query, index)` form. Run unedited in weft
# (with the hash_grid plugin) and in warp-lang (warp_side_hash_grid.py).
import warp as wp


@wp.func
def falloff(d: float, radius: float):
    return (radius - d) * (radius - d)


@wp.kernel
def neighbor_sums(
    grid: wp.uint64,
    points: wp.array(dtype=wp.vec3),
    radius: float,
    counts: wp.array(dtype=int),
    sums: wp.array(dtype=float),
):
    tid = wp.tid()
    # threads in cell order, as the SPH example does
    i = wp.hash_grid_point_id(grid, tid)
    x = points[i]
    n = int(0)
    s = float(0.0)
    for index in wp.hash_grid_query(grid, x, radius):
        d = wp.length(x - points[index])
        if d <= radius:
            n += 1
            s += falloff(d, radius)
    counts[i] = n
    sums[i] = s


@wp.kernel
def neighbor_counts_while(grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, counts: wp.array(dtype=int)):
    tid = wp.tid()
    x = points[tid]
    query = wp.hash_grid_query(grid, x, radius)
    index = int(0)
    n = int(0)
    while wp.hash_grid_query_next(query, index):
        if wp.length(x - points[index]) <= radius:
            n += 1
    counts[tid] = n


@wp.kernel
def candidates(grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, first: wp.array(dtype=int), total: wp.array(dtype=int)):
    # every candidate the query yields, unfiltered: the cell walk itself must match
    tid = wp.tid()
    neighbors = wp.hash_grid_query(grid, points[tid], radius)
    n = int(0)
    f = int(-1)
    for index in neighbors:
        if n == 0:
            f = index
        n += 1
    first[tid] = f
    total[tid] = n
