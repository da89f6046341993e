import warp as wp


@wp.kernel
def waves(t: float, xs: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    x = xs[i]
    y = wp.sin(x + t) * wp.cos(2.0 * x - t)
    y = y + 0.1 * wp.exp(-x * x) - 0.05 * wp.log(1.0 + wp.abs(x))
    y = wp.clamp(y, -1.0, 1.0)
    out[i] = wp.floor(y * 100.0) / 100.0 + wp.sqrt(wp.max(x, 0.0)) * wp.min(t, 1.0)


@wp.kernel
def softplus(x: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    x[i] = wp.log(wp.float64(1.0) + wp.exp(v))


@wp.kernel
def int_math(a: wp.array(dtype=int), b: wp.array(dtype=int), out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = max(abs(a[i]), abs(b[i])) - min(a[i], b[i]) + wp.clamp(a[i] * b[i], -100, 100)
    out[i] = out[i] // 3 + out[i] % 3 - wp.sign(a[i])


@wp.kernel
def trig(angles: wp.array(dtype=float), out: wp.array(dtype=wp.vec4)):
    i = wp.tid()
    a = angles[i]
    s = wp.sin(a)
    c = wp.cos(a)
    out[i] = wp.vec4(wp.atan2(s, c), wp.tan(a * 0.5), a ** 2.0, wp.pow(2.0, a))
    out[i] = out[i] + wp.vec4(wp.ceil(a), wp.trunc(a), wp.log2(1.0 + c * c), wp.tanh(s))
