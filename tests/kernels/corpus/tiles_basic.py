# Tiles (Warp's tile model): construction, loads and stores with offsets and
# bounds, operators, tile_map, reductions, scans, transposes, broadcasts.
# Launched tiled (the harness's grid counts blocks); blocks past the arrays
# load zeros and store nothing.
import warp as wp

TILE = wp.constant(8)
TM = wp.constant(4)
TN = wp.constant(8)


@wp.func
def smooth(x: float, y: float):
    return 0.5 * x + 0.25 * y


@wp.kernel
def copy_scaled(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=TILE, offset=i * TILE)
    u = t * 2.0 + wp.tile_ones(shape=TILE, dtype=float)
    wp.tile_store(out, -u / 3.0, offset=i * TILE)


@wp.kernel
def blocks_2d(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    x = wp.tile_load(a, shape=(TM, TN), offset=(i * TM, j * TN))
    y = wp.tile_load(b, shape=(TM, TN), offset=(i * TM, j * TN))
    z = wp.tile_map(smooth, x, y) - x * y
    wp.tile_store(out, z, offset=(i * TM, j * TN))


@wp.kernel
def reductions(a: wp.array(dtype=float), sums: wp.array(dtype=float), mins: wp.array(dtype=float),
               maxs: wp.array(dtype=float), where: wp.array(dtype=int)):
    i = wp.tid()
    t = wp.tile_load(a, shape=16, offset=i * 16)
    if i < 4:
        wp.tile_store(sums, wp.tile_sum(t), offset=i)
        wp.tile_store(mins, wp.tile_min(t), offset=i)
        wp.tile_store(maxs, wp.tile_max(t), offset=i)
        wp.tile_store(where, wp.tile_argmax(t), offset=i)
        wp.tile_store(where, wp.tile_argmin(t), offset=i + 8)


@wp.kernel
def atomic_totals(a: wp.array2d(dtype=float), total: wp.array(dtype=float), cols: wp.array(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(4, 4), offset=(i * 4, j * 4))
    wp.tile_atomic_add(total, wp.tile_sum(t))
    wp.tile_atomic_add(cols, wp.tile_sum(t, axis=0), offset=j * 4)


@wp.kernel
def scans_and_ranges(out: wp.array(dtype=float), ints: wp.array(dtype=int)):
    i = wp.tid()
    r = wp.tile_arange(8, dtype=float)
    s = wp.tile_scan_inclusive(r)
    e = wp.tile_scan_exclusive(wp.tile_arange(1, 17, 2, dtype=int))
    if i == 0:
        wp.tile_store(out, s)
        wp.tile_store(out, wp.tile_full(8, 2.5, dtype=float) * r, offset=8)
        wp.tile_store(ints, e)
        wp.tile_store(ints, wp.tile_astype(s, dtype=int), offset=8)


@wp.kernel
def transpose_broadcast(a: wp.array2d(dtype=float), out: wp.array2d(dtype=float)):
    i, j = wp.tid()
    t = wp.tile_load(a, shape=(4, 8), offset=(i * 4, j * 8))
    row = wp.tile_load(a[0], shape=8)
    b = wp.tile_broadcast(wp.tile_reshape(row, shape=(1, 8)), shape=(4, 8))
    tt = wp.tile_transpose(t + b)
    wp.tile_store(out, tt, offset=(j * 8, i * 4))


@wp.kernel
def elements(a: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(a, shape=8, offset=i * 8)
    total = float(0.0)
    for k in range(8):
        total += t[k] * float(k)
    s = wp.tile_sum(t)
    out[i] = total + wp.tile_extract(s, 0) + float(wp.block_dim() - wp.block_dim())
