# module_options given on the decorator, with the option set applied to the
# kernel's own unique module.
import warp as wp


@wp.func
def sigmoid(x: float):
    return 1.0 / (1.0 + wp.exp(-x))


@wp.kernel(module="unique", module_options={"enable_backward": False, "max_unroll": 4})
def gate(x: wp.array(dtype=float), g: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = x[i] * sigmoid(g[i])


@wp.kernel(enable_backward=True)
def residual(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = y[i] + x[i]
