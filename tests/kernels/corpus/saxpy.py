import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), out: wp.array(dtype=float), alpha: float):
    i = wp.tid()
    out[i] = alpha * x[i] + y[i]
