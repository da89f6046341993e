# expect: 7:14: transform_identity() takes only dtype= (e.g. dtype=wp.float64), got 1 positional argument
import warp as wp


@wp.kernel
def k(out: wp.array(dtype=wp.transform)):
    out[0] = wp.transform_identity(1)
