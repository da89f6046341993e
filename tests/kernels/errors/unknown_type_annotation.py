# expect: 6:30: unknown type 'wp.vec5'
import warp as wp


@wp.kernel
def k(points: wp.array(dtype=wp.vec5)):
    i = wp.tid()
