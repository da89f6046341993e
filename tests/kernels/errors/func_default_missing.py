# expect: 13:12: call to 'f' is missing parameter 'x' (it has no default)
import warp as wp


@wp.func
def f(x: float, k: float = 2.0):
    return x * k


@wp.kernel
def run(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = f(k=1.0)
