# Kernels registered under explicit names (stable native symbols).
import warp as wp


@wp.kernel(name="axpy_f32")
def axpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


@wp.kernel(name="scale_inplace")
def scale(x: wp.array(dtype=float), a: float):
    i = wp.tid()
    x[i] = x[i] * a
