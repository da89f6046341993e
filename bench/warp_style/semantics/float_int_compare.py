# Thresholds on floats; loops with float accumulators and int counters.
import warp as wp


@wp.kernel
def count_above(x: wp.array(dtype=float), counts: wp.array(dtype=int)):
    i = wp.tid()
    n = int(0)
    acc = float(0.0)
    for k in range(8):
        v = x[(i * 8 + k) % 64]
        acc += v
        if v > 1.0:
            n += 1
    counts[i] = n + int(acc)


@wp.kernel
def ramp(x: wp.array(dtype=float), level: int):
    i = wp.tid()
    x[i] = wp.min(x[i] * 2.0, float(level)) + float(i % 3)
