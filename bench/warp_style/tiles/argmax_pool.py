# Max pooling with the position of the maximum (argmax) and the minimum, per block of 8.
import warp as wp

POOL = wp.constant(8)


@wp.kernel
def pool(x: wp.array(dtype=float), value: wp.array(dtype=float), where: wp.array(dtype=int), low: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_load(x, shape=POOL, offset=i * POOL)
    if i < 8:
        value[i] = wp.tile_max(t)[0]
        where[i] = wp.tile_argmax(t)[0] + i * POOL
        low[i] = wp.tile_argmin(t)[0]
