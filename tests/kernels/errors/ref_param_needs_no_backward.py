# expect: 11:1: kernel 'k' calls a function with wp.ref parameters, which have no adjoint
import warp as wp


@wp.func
def accumulate(acc: wp.ref[float], x: float):
    acc += x * x


@wp.kernel
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    s = float(0.0)
    accumulate(s, x[i])
    x[i] = s
