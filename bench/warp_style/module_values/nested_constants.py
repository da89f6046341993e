# Constants derived from other constants, integer and bool constants, and a
# constant used as a loop bound and an array index.
import warp as wp

N = 8
HALF = wp.constant(N // 2)
SCALE = wp.constant(1.0 / float(N))
USE_BIAS = wp.constant(True)
BIAS = 0.25


@wp.kernel
def pooled(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(HALF):
        acc += x[(i + k) % 64]
    if USE_BIAS:
        acc += BIAS
    out[i] = acc * SCALE + x[N]
