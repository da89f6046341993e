# A named kernel with its own backward switch and launch hint.
import warp as wp


@wp.kernel(name="leaky_relu_fwd", enable_backward=False, launch_bounds=128)
def leaky_relu(x: wp.array(dtype=float), y: wp.array(dtype=float), slope: float):
    i = wp.tid()
    v = x[i] - 1.0
    y[i] = wp.where(v > 0.0, v, v * slope * 0.1)


@wp.kernel(name="leaky_relu_bwd_count")
def count_negative(x: wp.array(dtype=float), n: wp.array(dtype=int)):
    i = wp.tid()
    if x[i] < 1.0:
        wp.atomic_add(n, 0, 1)
