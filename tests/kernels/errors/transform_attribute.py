# expect: 8:14: 'transform' has no attribute 'x'; a transform has p (its translation) and q (its rotation)
import warp as wp


@wp.kernel
def k(poses: wp.array(dtype=wp.transform), out: wp.array(dtype=float)):
    t = poses[0]
    out[0] = t.x
