# expect: 8:13: wp.constant() is only valid at module level
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    scale = wp.constant(2.0)
    a[i] = a[i] * scale
