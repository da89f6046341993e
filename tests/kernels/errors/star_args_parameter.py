# expect: 6:11: variadic parameters are not supported in kernels: *args
import warp as wp


@wp.func
def total(*args):
    return 0.0
