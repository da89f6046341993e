# expect: 13:25: no parameter list of 'spring' takes these arguments (keyword 'k')
import warp as wp


@wp.func
def spring(x: float, rest: float, stiffness: float):
    return -stiffness * (x - rest)


@wp.kernel
def forces(x: wp.array(dtype=float), f: wp.array(dtype=float)):
    i = wp.tid()
    f[i] = spring(x[i], k=20.0, rest=1.0)
