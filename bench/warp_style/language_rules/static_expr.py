# Compile-time values with wp.static: a table size, a branch removed at
# compile time, and a Python-evaluated constant.
import math

import warp as wp

TAPS = 5
USE_GAMMA = False


@wp.kernel
def fir(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    acc = float(0.0)
    for k in range(wp.static(TAPS)):
        acc += x[(i + k) % 64] * wp.static(1.0 / TAPS)
    if wp.static(USE_GAMMA):
        acc = wp.pow(acc, 2.2)
    y[i] = acc * wp.static(math.sqrt(2.0))
