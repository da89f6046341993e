import warp as wp


@wp.func
def gaussian(x: float, sigma: float) -> float:
    return exp(-(x * x) / (2.0 * sigma * sigma)) / (sigma * sqrt(2.0 * 3.14159265))


@wp.kernel
def gaussian_weights(xs: wp.array(dtype=float), sigma: float, out: wp.array(dtype=float)):
    i = tid()
    out[i] = gaussian(xs[i], sigma)


@wp.kernel
def unit_vectors(vs: wp.array(dtype=vec3)):
    i = tid()
    v = vs[i]
    l = length(v)
    vs[i] = select(l > 0.0, vec3(1.0, 0.0, 0.0), v / l)
