# @wp.func parameters with default values, bound as Python binds them:
# by position, by keyword, or left to their defaults (evaluated where the
# function is defined: literals, module constants, constructors of them).
import warp as wp

REST = 0.5
UP = wp.constant(wp.vec3(0.0, 1.0, 0.0))


@wp.func
def spring(x: float, rest: float = 1.0, k: float = 2.0):
    return -k * (x - rest)


@wp.func
def lift(p: wp.vec3, by: float = REST, axis: wp.vec3 = UP, scale: wp.vec3 = wp.vec3(1.0, 2.0, 3.0)):
    return wp.cw_mul(p + axis * by, scale)


@wp.func
def clamp_count(n: int, low: int = -2, high: int = 4):
    return wp.min(wp.max(n, low), high)


@wp.kernel
def forces(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = spring(x[i]) + spring(x[i], 0.5) + spring(x[i], k=3.0) + spring(k=1.5, x=x[i], rest=REST)


@wp.kernel
def lifted(p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3), n: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = lift(p[i]) + lift(p[i], 2.0) + lift(p[i], axis=wp.vec3(1.0, 0.0, 0.0), by=-1.0)
    n[i] = clamp_count(n[i]) + clamp_count(n[i], high=1)
