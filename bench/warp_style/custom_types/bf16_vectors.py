# Half and bfloat16 values converted and mixed through float32.
import warp as wp


@wp.func
def to_bf16(x: float):
    return wp.bfloat16(x)


@wp.kernel
def quantize(x: wp.array(dtype=float), q: wp.array(dtype=wp.bfloat16), err: wp.array(dtype=float)):
    i = wp.tid()
    b = to_bf16(x[i] * 3.0)
    q[i] = b
    err[i] = wp.abs(float(b) - x[i] * 3.0)


@wp.kernel
def add_bf16(a: wp.array(dtype=wp.bfloat16), b: wp.array(dtype=wp.bfloat16), c: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    c[i] = a[i] + b[i] * wp.bfloat16(2.0)
