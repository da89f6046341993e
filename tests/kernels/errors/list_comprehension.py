# expect: 8:14: list comprehensions are not supported in kernels
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    values = [a[j] * 2.0 for j in range(4)]
    out[i] = values[0]
