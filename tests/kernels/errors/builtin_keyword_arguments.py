# expect: 8:27: no parameter list of 'clamp' takes these arguments (keyword 'lo')
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.clamp(a[i], lo=0.0, high=1.0)
