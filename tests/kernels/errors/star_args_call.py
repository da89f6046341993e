# expect: 13:19: argument unpacking (*args) is not supported in kernels
import warp as wp


@wp.func
def add3(a: float, b: float, c: float) -> float:
    return a + b + c


@wp.kernel
def k(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = add3(*v[i])
