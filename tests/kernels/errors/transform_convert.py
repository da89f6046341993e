# expect: 7:14: 'transformd' copies a transformd, got 'transform' (convert p and q
import warp as wp


@wp.kernel
def k(poses: wp.array(dtype=wp.transform), out: wp.array(dtype=wp.transformd)):
    out[0] = wp.transformd(poses[0])
