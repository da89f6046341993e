# A local bound to a function (f = wp.sin, g = a @wp.func) is that function: f(x) calls it.
import warp as wp


@wp.func
def twice(x: float):
    return x * 2.0


@wp.kernel
def bound(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    f = wp.sin
    g = twice
    h = wp.max
    out[i] = f(a[i]) + g(a[i]) + h(a[i], 0.5)
