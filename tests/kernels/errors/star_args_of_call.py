# expect: 13:20: *v unpacks a variable or an element (v, a[i]): bind a call's result first
import warp as wp


@wp.func
def add3(a: float, b: float, c: float) -> float:
    return a + b + c


@wp.kernel
def k(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = add3(*wp.normalize(v[i]))
