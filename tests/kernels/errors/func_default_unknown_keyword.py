# expect: 13:19: function 'f' has no parameter named 'scale'
import warp as wp


@wp.func
def f(x: float, k: float = 2.0):
    return x * k


@wp.kernel
def run(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = f(1.0, scale=2.0)
