# plugins: bvh
# objects: tree=soup_bvh
# Items whose boxes a ray from each point toward the origin meets.
import warp as wp


@wp.kernel
def rays(tree: wp.uint64, origins: wp.array(dtype=wp.vec3), counts: wp.array(dtype=int), nearest: wp.array(dtype=int)):
    i = wp.tid()
    ro = origins[i] * 2.0
    query = wp.bvh_query_ray(tree, ro, wp.normalize(-ro))
    item = int(0)
    n = int(0)
    lo = int(1000000)
    while wp.bvh_query_next(query, item):
        n += 1
        lo = wp.min(lo, item)
    counts[i] = n
    nearest[i] = lo
