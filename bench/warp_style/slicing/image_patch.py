# A patch of an image row taken with a[i, lo:hi], averaged into a blur.
import warp as wp


@wp.kernel
def horizontal_blur(img: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    lo = wp.max(j - 2, 0)
    hi = wp.min(j + 3, 16)
    patch = img[i, lo:hi]
    acc = float(0.0)
    for k in range(patch.shape[0]):
        acc += patch[k]
    out[i, j] = acc / float(hi - lo)
