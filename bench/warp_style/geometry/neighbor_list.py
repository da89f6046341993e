# plugins: hash_grid
# objects: grid=hash_grid(points,0.3)
# A neighbour count, the nearest neighbour and its distance, through the older while form.
import warp as wp


@wp.kernel
def nearest(grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, counts: wp.array(dtype=int), best: wp.array(dtype=int), best_d: wp.array(dtype=float)):
    tid = wp.tid()
    x = points[tid]
    r = radius * 0.25
    query = wp.hash_grid_query(grid, x, r)
    index = int(0)
    n = int(0)
    b = int(-1)
    bd = float(1.0e9)
    while wp.hash_grid_query_next(query, index):
        if index != tid:
            d = wp.length(x - points[index])
            if d <= r:
                n += 1
                if d < bd:
                    bd = d
                    b = index
    counts[tid] = n
    best[tid] = b
    best_d[tid] = bd
