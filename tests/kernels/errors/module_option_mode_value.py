# expect: 5:72: module option 'mode' must be "debug" or "release"
import warp as wp


@wp.kernel(module="unique", module_options={"fast_math": True, "mode": "fast"})
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
