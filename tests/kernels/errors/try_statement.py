# expect: 8:5: try statements are not supported in kernels
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    try:
        a[i] = 1.0 / a[i]
    except ZeroDivisionError:
        a[i] = 0.0
