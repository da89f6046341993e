# expect: 8:13: strings are only supported as print() arguments in kernels
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    label = "particle"
