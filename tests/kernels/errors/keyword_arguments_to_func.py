# expect: 13:27: keyword arguments to @wp.func functions are not supported
import warp as wp


@wp.func
def lerp(a: float, b: float, t: float) -> float:
    return a + (b - a) * t


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = lerp(0.0, 1.0, t=x[i])
