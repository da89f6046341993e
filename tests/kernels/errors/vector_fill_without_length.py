# expect: 8:9: the length of a vector cannot be inferred here: give it, wp.vector(..., length=3)
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    v = wp.vector(a[i])
