# expect: 8:14: lambda is not supported in kernels
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    double = lambda x: x * 2.0
    a[i] = double(a[i])
