# Vector norms of blocks: L1, L2 and max norms, and normalization by the L2 norm.
import warp as wp

BLOCK = wp.constant(16)


@wp.kernel
def norms(x: wp.array(dtype=float), l1: wp.array(dtype=float), l2: wp.array(dtype=float), linf: wp.array(dtype=float),
          unit: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(x, shape=BLOCK, offset=i * BLOCK)
    a = wp.tile_map(wp.abs, t)
    n2 = wp.sqrt(wp.tile_dot(t, t)[0])
    if i < 4:
        l1[i] = wp.tile_sum(a)[0]
        l2[i] = n2
        linf[i] = wp.tile_max(a)[0]
        wp.tile_store(unit, t / n2, offset=i * BLOCK)
