# Two kernels built from one template function, each in its own unique module
# (a common pattern for specialization by closure).
import warp as wp


def make_scale(factor: float):
    @wp.kernel(module="unique")
    def scale(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = x[i] * factor

    return scale


double = make_scale(2.0)
halve = make_scale(0.5)
