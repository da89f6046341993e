# A kernel that wants fast math in a module of its own.
import warp as wp


@wp.kernel(module_options={"fast_math": True}, module="unique")
def gelu(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    y[i] = 0.5 * v * (1.0 + wp.tanh(0.7978845608 * (v + 0.044715 * v * v * v)))


@wp.kernel
def relu(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.max(x[i] - 1.0, 0.0)
