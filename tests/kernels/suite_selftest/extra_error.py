# Self-test of the error-suite driver (not part of tests/kernels/errors):
# two independent errors, only one expected, so `kernel_suite errors` must fail.
# expect: 10:5: 'break' outside a loop
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    break
    a[i] = wp.magic(a[i])
