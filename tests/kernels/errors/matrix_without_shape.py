# expect: 7:9: the shape of a matrix cannot be inferred here: give it, wp.matrix(..., shape=(2, 2))
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    m = wp.matrix(1.0, 2.0, 3.0, 4.0)
