# Windows of a signal as slices: a[lo:hi] views and strided views a[::2].
import warp as wp


@wp.kernel
def window_means(signal: wp.array(dtype=float), means: wp.array(dtype=float)):
    i = wp.tid()
    if i < 8:
        w = signal[i * 8 : i * 8 + 8]
        acc = float(0.0)
        for k in range(8):
            acc += w[k]
        means[i] = acc / 8.0


@wp.kernel
def downsample(signal: wp.array(dtype=float), half: wp.array(dtype=float)):
    i = wp.tid()
    evens = signal[::2]
    odds = signal[1::2]
    if i < 32:
        half[i] = 0.5 * (evens[i] + odds[i])


@wp.kernel
def inner_block(a: wp.array2d(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    block = a[1:4]
    if i < 16:
        out[i] = block[0, i] + block[2, i]
