# Tiles and @wp.func: tile parameters (wp.tile[...] and wp.tile(dtype=, shape=)) passed by
# reference, tile results, functions chaining functions, in-place changes (t += u) seen by the
# caller, `t = ...` rebinding a parameter without changing the caller's, and a function that
# loads and reduces tiles itself.
import warp as wp

TM = wp.constant(4)
TN = wp.constant(8)


@wp.func
def scale_tile(t: wp.tile[float, TM, TN]):
    return t * 2.0


@wp.func
def pass_through(t: wp.tile(dtype=float, shape=(TM, TN))):
    return t


@wp.func
def scale_then_pass(t: wp.tile[float, TM, TN]):
    s = scale_tile(t)
    return pass_through(s)


@wp.func
def add_in_place(t: wp.tile[float, TM, TN], u: wp.tile[float, TM, TN]):
    t += u
    t -= wp.tile_ones(shape=(TM, TN), dtype=float) * 0.5


@wp.func
def rebound(t: wp.tile[float, TM, TN]):
    t = t * 10.0
    return wp.tile_sum(t)[0]


@wp.func
def row_total(a: wp.array2d(dtype=float), row: int):
    r = wp.tile_load(a, shape=(1, 16), offset=(row, 0))
    return wp.tile_sum(r)[0]


# Tile functions have no gradient yet.
@wp.kernel(enable_backward=False)
def tile_functions(a: wp.array2d(dtype=float), b: wp.array2d(dtype=float), out: wp.array2d(dtype=float),
                   sums: wp.array(dtype=float)):
    i, j = wp.tid()
    x = wp.tile_load(a, shape=(TM, TN), offset=(i * TM, j * TN))
    y = wp.tile_load(b, shape=(TM, TN), offset=(i * TM, j * TN))
    z = scale_then_pass(x)
    add_in_place(z, y)
    s = rebound(z)
    wp.tile_store(out, z, offset=(i * TM, j * TN))
    if i < 4 and j < 2:
        sums[i * 2 + j] = s + row_total(a, i)
