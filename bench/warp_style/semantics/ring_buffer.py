# A ring buffer of samples: the newest sample lives at the end, older ones are
# read with negative offsets from it.
import warp as wp


@wp.kernel
def shift_history(history: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    newest = history[-1]
    oldest = history[0]
    out[i] = history[i] - 0.5 * (newest + oldest)


@wp.kernel
def smooth_wrap(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    prev = x[i - 1]  # i == 0 reads the last element
    y[i] = 0.25 * prev + 0.5 * x[i] + 0.25 * x[(i + 1) % 64]


@wp.kernel
def push_sample(buf: wp.array(dtype=float), sample: float):
    i = wp.tid()
    if i == 0:
        buf[-1] = sample
        buf[-2] = sample * 0.5
