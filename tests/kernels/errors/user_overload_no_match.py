# expect: 18:14: no overload of function 'magnitude' matches the argument types (int32); candidates:
import warp as wp


@wp.func
def magnitude(x: float) -> float:
    return wp.abs(x)


@wp.func
def magnitude(v: wp.vec3) -> float:
    return wp.length(v)


@wp.kernel
def k(a: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = magnitude(a[i])
