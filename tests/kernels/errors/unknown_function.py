# expect: 8:12: unknown function 'frobnicate'
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.frobnicate(a[i])
