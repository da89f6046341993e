# User functions called with keyword arguments, in any order, and builtins
# with keyword arguments.
import warp as wp


@wp.func
def spring(x: float, rest: float, stiffness: float):
    return -stiffness * (x - rest)


@wp.kernel
def forces(x: wp.array(dtype=float), f: wp.array(dtype=float)):
    i = wp.tid()
    a = spring(x[i], rest=1.0, stiffness=20.0)
    b = spring(stiffness=5.0, x=x[i], rest=0.5)
    f[i] = a + b + wp.clamp(x=x[i], low=0.5, high=1.0)
