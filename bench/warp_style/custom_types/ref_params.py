# Helper functions that update their arguments in place through wp.ref[T]
# (forward-only kernels: Warp has no adjoint for reference parameters).
import warp as wp


@wp.func
def accumulate(acc: wp.ref[float], x: float):
    acc += x * x


@wp.func
def swap_if_greater(a: wp.ref[float], b: wp.ref[float]):
    if a > b:
        t = a
        a = b
        b = t


@wp.kernel(enable_backward=False)
def sum_squares(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(4):
        accumulate(acc, x[(i + k) % 64])
    out[i] = acc


@wp.kernel(enable_backward=False)
def sort_pairs(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    swap_if_greater(a[i], b[i])
