# The geometry benchmark's kernels, the same text in weft and warp-lang.
import warp as wp


@wp.kernel
def cast(mesh: wp.uint64, starts: wp.array(dtype=wp.vec3), dirs: wp.array(dtype=wp.vec3), ts: wp.array(dtype=float)):
    tid = wp.tid()
    q = wp.mesh_query_ray(mesh, starts[tid], dirs[tid], 1.0e6)
    if q.result:
        ts[tid] = q.t
    else:
        ts[tid] = -1.0


@wp.kernel
def neighbors(grid: wp.uint64, points: wp.array(dtype=wp.vec3), radius: float, counts: wp.array(dtype=int)):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    x = points[i]
    n = int(0)
    for j in wp.hash_grid_query(grid, x, radius):
        if wp.length(x - points[j]) <= radius:
            n += 1
    counts[i] = n
