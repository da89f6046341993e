# A kernel placed in a module of its own, so that editing it does not
# recompile its neighbours.
import warp as wp


@wp.func
def wave(x: float, t: float):
    return wp.sin(x * 3.0 + t)


@wp.kernel(module="unique")
def surface(x: wp.array(dtype=float), h: wp.array(dtype=float), t: float):
    i = wp.tid()
    h[i] = wave(x[i], t) * 0.1


@wp.kernel
def settle(h: wp.array(dtype=float)):
    i = wp.tid()
    h[i] = h[i] * 0.9
