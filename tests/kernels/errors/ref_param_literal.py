# expect: 13:16: argument 'acc' of 'accumulate' is a wp.ref[float32]: pass a variable, array element or field
import warp as wp


@wp.func
def accumulate(acc: wp.ref[float], x: float):
    acc += x * x


@wp.kernel(enable_backward=False)
def k(x: wp.array(dtype=float)):
    i = wp.tid()
    accumulate(1.0, x[i])
