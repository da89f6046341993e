# expect: 6:10: 'wp.array' needs a dtype
import warp as wp


@wp.kernel
def k(a: wp.array):
    i = wp.tid()
