# expect: 13:20: *v unpacks a vector or quaternion, not float32
import warp as wp


@wp.func
def add3(a: float, b: float, c: float) -> float:
    return a + b + c


@wp.kernel
def k(v: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = add3(*v[i])
