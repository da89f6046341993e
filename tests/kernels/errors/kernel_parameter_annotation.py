# expect: 6:33: kernel parameter 'scale' needs a type annotation
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), scale):
    i = wp.tid()
