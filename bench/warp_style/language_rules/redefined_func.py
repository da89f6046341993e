# A helper redefined further down the file (e.g. a tuned version replacing a
# first draft): later kernels use the latest definition.
import warp as wp


@wp.func
def falloff(r: float):
    return 1.0 / (1.0 + r)


@wp.kernel
def field_v1(r: wp.array(dtype=float), f: wp.array(dtype=float)):
    i = wp.tid()
    f[i] = falloff(r[i])


@wp.func
def falloff(r: float):
    return wp.exp(-r * r)


@wp.kernel
def field_v2(r: wp.array(dtype=float), f: wp.array(dtype=float)):
    i = wp.tid()
    f[i] = falloff(r[i])
