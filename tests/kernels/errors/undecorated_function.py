# expect: 5:1: function 'helper' has no @wp.func or @wp.kernel decorator; host code is not supported in a kernel module
import warp as wp


def helper(x: float) -> float:
    return x * 2.0


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = helper(a[i])
