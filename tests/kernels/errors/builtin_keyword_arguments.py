# expect: 8:27: builtin 'clamp' takes no keyword arguments (got 'low')
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.clamp(a[i], low=0.0, high=1.0)
