import warp as wp


@wp.kernel
def relu(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = wp.select(x[i] > 0.0, 0.0, x[i])


@wp.kernel
def clamp_vectors(v: wp.array(dtype=wp.vec3), max_len: float):
    i = wp.tid()
    p = v[i]
    l = wp.length(p)
    v[i] = wp.where(l > max_len, p * (max_len / l), p)


@wp.kernel
def leaky(x: wp.array(dtype=wp.float64), slope: wp.float64):
    i = wp.tid()
    xi = x[i]
    x[i] = wp.where(xi < wp.float64(0.0), xi * slope, xi)


@wp.kernel
def sign_counts(x: wp.array(dtype=float), pos: wp.array(dtype=int)):
    i = wp.tid()
    wp.atomic_add(pos, 0, wp.select(x[i] > 0.0, 0, 1))
    flag = x[i] != 0.0
    pos[i + 1] = 1 if flag else 0
