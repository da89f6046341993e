# A lattice walk: positions wrap around a periodic domain with % and //.
import warp as wp


@wp.func
def wrap(x: int, n: int):
    return x % n


@wp.kernel
def walk(steps: wp.array(dtype=int), pos: wp.array(dtype=int), lap: wp.array(dtype=int)):
    i = wp.tid()
    p = i
    laps = 0
    for k in range(5):
        d = steps[(i + k) % 64] - 3  # -3 .. 4
        p = p + d * 9
        laps = laps + p // 64
    pos[i] = wrap(p, 64)
    lap[i] = laps


@wp.kernel
def signed_mod(a: wp.array(dtype=wp.int64), out: wp.array(dtype=wp.int64)):
    i = wp.tid()
    x = a[i] - wp.int64(6)
    out[i] = x % wp.int64(4) + (x // wp.int64(4)) * wp.int64(10)
