import warp as wp

N = wp.constant(16)
HALF_N = N // 2
TILE: int = 4
SCALE = 0.5
EPS = wp.constant(1.0e-6)
UP = wp.constant(wp.vec3(0.0, 1.0, 0.0))
BASIS = wp.constant(wp.mat22(1.0, 0.0, 0.0, 1.0))
MASK = wp.constant(0xFF)
ENABLED = wp.constant(True)
INV_SQRT2 = 1.0 / 1.4142135623730951


@wp.kernel
def tile_sums(data: wp.array(dtype=float), out: wp.array(dtype=float)):
    tile = wp.tid()
    total = float(0.0)
    for k in range(N):
        total += data[tile * N + k]
    out[tile] = total * SCALE


@wp.kernel
def project_up(v: wp.array(dtype=wp.vec3), heights: wp.array(dtype=float)):
    i = wp.tid()
    h = wp.dot(v[i], UP)
    if wp.abs(h) < EPS:
        h = 0.0
    heights[i] = h * INV_SQRT2


@wp.kernel
def masked(values: wp.array(dtype=int), pts: wp.array(dtype=wp.vec2)):
    i = wp.tid()
    if ENABLED:
        values[i] = values[i] & MASK
    if i < HALF_N:
        pts[i] = BASIS * pts[i]
    for t in range(0, N, TILE):
        values[i] = values[i] + t
