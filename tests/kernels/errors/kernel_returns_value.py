# expect: 8:12: kernels cannot return a value
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    return a[i] * 2.0
