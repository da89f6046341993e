# A unique-module kernel calling functions from the file's main module.
import warp as wp


@wp.func
def hat(x: float):
    return wp.max(0.0, 1.0 - wp.abs(x - 1.0))


@wp.func(module="unique")
def hat2(x: float):
    return hat(x) * hat(x)


@wp.kernel(module="unique")
def basis(x: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = hat(x[i]) + hat2(x[i])


@wp.kernel
def basis_plain(x: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    b[i] = hat(x[i])
