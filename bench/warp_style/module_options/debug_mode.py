# A module compiled in debug mode while it is being developed.
import warp as wp

wp.set_module_options({"mode": "debug"})


@wp.func
def safe_div(a: float, b: float):
    if b == 0.0:
        return 0.0
    return a / b


@wp.kernel
def ratios(a: wp.array(dtype=float), b: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = safe_div(a[i], b[i] - 1.0)
