# expect: 9:9: 'break' outside a loop
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if a[i] < 0.0:
        break
    a[i] = 1.0
