# expect: 8:5: chained assignment (a = b = ...) is not supported in kernels
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    x = y = a[i]
