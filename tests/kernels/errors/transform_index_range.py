# expect: 8:16: index 7 is out of range for 'transform' (-7 to 6)
import warp as wp


@wp.kernel
def k(poses: wp.array(dtype=wp.transform), out: wp.array(dtype=float)):
    t = poses[0]
    out[0] = t[7]
