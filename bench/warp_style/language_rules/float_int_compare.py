# Comparisons between float values and int literals or int variables.
import warp as wp


@wp.kernel
def classify(x: wp.array(dtype=float), n: int, cls: wp.array(dtype=int)):
    i = wp.tid()
    v = x[i]
    c = int(0)
    if v < 1:
        c = 1
    if v >= n:
        c = 2
    if 0 < v and v <= 1.5:
        c += 10
    cls[i] = c
