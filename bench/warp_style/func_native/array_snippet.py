# A native snippet that writes into arrays directly (the pattern from Warp's
# documentation), called from a kernel with the thread index.
import warp as wp

snippet = "out[tid] = x[tid] * 2.0f + 1.0f;"


@wp.func_native(snippet)
def double_plus_one(x: wp.array(dtype=float), out: wp.array(dtype=float), tid: int): ...


@wp.kernel
def apply(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    double_plus_one(x, out, i)
