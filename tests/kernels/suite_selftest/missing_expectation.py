# Self-test of the error-suite driver (not part of tests/kernels/errors):
# the second expected error is never reported, so `kernel_suite errors` must fail.
# expect: 11:5: 'break' outside a loop
# expect: 12:5: 'continue' outside a loop
import warp as wp


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    break
    a[i] = 1.0
