# N-body accelerations with tiles of vec3: each block loads its bodies, then every other block's
# bodies tile by tile, and sums softened inverse-square pulls per element.
import warp as wp

BLOCK = wp.constant(16)


@wp.func
def accel(p: wp.vec3, q: wp.vec3):
    d = q - p
    r2 = wp.dot(d, d) + 0.01
    return d / (r2 * wp.sqrt(r2))


@wp.kernel
def nbody(pos: wp.array(dtype=wp.vec3), acc: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    mine = wp.tile_load(pos, shape=BLOCK, offset=i * BLOCK)
    total = wp.tile_zeros(shape=BLOCK, dtype=wp.vec3)
    for j in range(4):
        others = wp.tile_load(pos, shape=BLOCK, offset=j * BLOCK)
        for k in range(BLOCK):
            total += wp.tile_map(accel, mine, wp.tile_full(BLOCK, others[k], dtype=wp.vec3))
    wp.tile_store(acc, total, offset=i * BLOCK)
