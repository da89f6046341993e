# expect: 8:22: wp.static() needs a value weft can compute when it builds the module: literals, module constants and arithmetic on them
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = wp.static(a[0] + 1)
