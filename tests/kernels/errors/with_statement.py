# expect: 8:5: with statements are not supported in kernels
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    with wp.ScopedTimer("step"):
        a[i] = 0.0
