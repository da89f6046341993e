# Builtins and user functions bound to local names before they are called.
import warp as wp


@wp.func
def soft_clip(x: float):
    return x / (1.0 + wp.abs(x))


@wp.kernel
def activations(x: wp.array(dtype=float), a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    act = wp.tanh
    clip = soft_clip
    a[i] = act(x[i] - 1.0)
    b[i] = clip(x[i] * 3.0) + act(0.5)
