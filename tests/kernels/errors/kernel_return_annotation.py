# expect: 6:36: kernels cannot return a value
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)) -> float:
    i = wp.tid()
