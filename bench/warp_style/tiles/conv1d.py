# A 1-D convolution with a 5-tap filter: shifted tile loads weighted by filter elements.
import warp as wp

BLOCK = wp.constant(16)


@wp.kernel
def conv(x: wp.array(dtype=float), w: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    acc = wp.tile_zeros(shape=BLOCK, dtype=float)
    for k in range(5):
        t = wp.tile_load(x, shape=BLOCK, offset=i * BLOCK + k - 2)
        acc = acc + t * w[k]
    wp.tile_store(y, acc, offset=i * BLOCK)
