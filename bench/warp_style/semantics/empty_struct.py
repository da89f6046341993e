# An empty struct used as a tag / placeholder state, next to a real one.
import warp as wp


@wp.struct
class NoState:
    pass


@wp.struct
class Params:
    gain: float
    bias: float


@wp.func
def apply(p: Params, s: NoState, x: float):
    return p.gain * x + p.bias


@wp.kernel
def affine(p: Params, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    s = NoState()
    y[i] = apply(p, s, x[i])


@wp.kernel
def tagged(tag: NoState, x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * 2.0
