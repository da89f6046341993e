# Per-thread scratch arrays made with wp.zeros inside kernels and functions:
# a small histogram, a sliding window and an insertion sort, Warp's
# fixed-size arrays.
import warp as wp


@wp.func
def window_mean(x: wp.array(dtype=float), i: int) -> float:
    w = wp.zeros(shape=5, dtype=float)
    n = x.shape[0]
    for k in range(5):
        w[k] = x[(i + k) % n]
    s = float(0.0)
    for k in range(w.shape[0]):
        s += w[k]
    return s / 5.0


@wp.func
def sort_small(a: wp.array(dtype=float)):
    for i in range(1, a.shape[0]):
        key = a[i]
        j = i - 1
        while j >= 0 and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key


@wp.kernel
def scratch(x: wp.array(dtype=float), bins: wp.array(dtype=int), mean: wp.array(dtype=float),
            median: wp.array(dtype=float)):
    i = wp.tid()
    hist = wp.zeros(shape=(4,), dtype=int)
    tmp = wp.zeros(shape=5, dtype=float)
    n = x.shape[0]
    for k in range(5):
        v = x[(i * 3 + k) % n]
        tmp[k] = v
        hist[wp.min(int(v * 2.0), 3)] += 1
    sort_small(tmp)
    median[i] = tmp[2]
    mean[i] = window_mean(x, i)
    bins[i] = hist[0] * 1000 + hist[1] * 100 + hist[2] * 10 + hist[3]
