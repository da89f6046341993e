# Module-level tuples of weights and sizes read with wp.static, as Warp
# evaluates them when it builds the kernel: a fixed stencil and its length.
import warp as wp

WEIGHTS = (0.25, 0.5, 0.25)
OFFSETS = (-1, 0, 1)
TAPS = len(WEIGHTS)


@wp.kernel
def blur(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    n = x.shape[0]
    s = float(0.0)
    s += wp.static(WEIGHTS[0]) * x[(i + wp.static(OFFSETS[0]) + n) % n]
    s += wp.static(WEIGHTS[1]) * x[(i + wp.static(OFFSETS[1]) + n) % n]
    s += wp.static(WEIGHTS[-1]) * x[(i + wp.static(OFFSETS[-1]) + n) % n]
    y[i] = s * float(wp.static(len(WEIGHTS))) / float(TAPS)
