import warp as wp


@wp.func
def min_max(a: float, b: float):
    if a < b:
        return a, b
    return b, a


@wp.func
def polar(v: wp.vec2):
    r = wp.length(v)
    theta = wp.atan2(v[1], v[0])
    return r, theta


@wp.func
def divmod_int(a: int, b: int):
    q = a // b
    r = a - q * b
    return q, r


@wp.func
def split_vec(v: wp.vec3):
    return v[0], wp.vec2(v[1], v[2]), wp.length(v) > 1.0


@wp.kernel
def sort_pairs(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    lo, hi = min_max(a[i], b[i])
    a[i] = lo
    b[i] = hi


@wp.kernel
def to_polar(points: wp.array(dtype=wp.vec2), radii: wp.array(dtype=float), angles: wp.array(dtype=float)):
    i = wp.tid()
    r, theta = polar(points[i])
    radii[i] = r
    angles[i] = theta


@wp.kernel
def tiles(out_q: wp.array(dtype=int), out_r: wp.array(dtype=int), width: int):
    i = wp.tid()
    q, r = divmod_int(i, width)
    out_q[i] = q
    out_r[i] = r


@wp.kernel
def unpack_three(vs: wp.array(dtype=wp.vec3), xs: wp.array(dtype=float), flags: wp.array(dtype=int)):
    i = wp.tid()
    x, yz, big = split_vec(vs[i])
    xs[i] = x + yz[0] + yz[1]
    flags[i] = wp.select(big, 0, 1)


@wp.func
def ordered(a: float, b: float):
    x = a
    y = b
    if x > y:
        x, y = y, x
    return x, y


@wp.kernel
def sort_pairs_swap(a: wp.array(dtype=float), b: wp.array(dtype=float)):
    i = wp.tid()
    lo, hi = ordered(a[i], b[i])
    wp.expect_eq(lo <= hi, True)
    a[i] = lo
    b[i] = hi
