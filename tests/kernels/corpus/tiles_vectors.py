# Tiles of vectors and matrices: loads and stores of vec3 arrays, per-element maps with vector
# builtins and functions, operators, sums (vector adds), atomic adds of vector tiles, an n-body
# style pairwise loop over a tile of positions, and a tile of 2x2 matrices.
import warp as wp

BLOCK = wp.constant(8)


@wp.func
def pull(p: wp.vec3, q: wp.vec3):
    d = q - p
    return d / (wp.dot(d, d) + 1.0)


@wp.kernel(enable_backward=False)  # tiles of vectors and matrices have no gradient yet
def vectors(p: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
            total: wp.array(dtype=wp.vec3), lengths: wp.array(dtype=float)):
    i = wp.tid()
    a = wp.tile_load(p, shape=BLOCK, offset=i * BLOCK)
    b = wp.tile_load(v, shape=BLOCK, offset=i * BLOCK)
    c = a * 2.0 - b + wp.tile_ones(shape=BLOCK, dtype=wp.vec3)
    wp.tile_store(out, wp.tile_map(wp.cross, c, b), offset=i * BLOCK)
    wp.tile_atomic_add(total, wp.tile_sum(c))
    wp.tile_store(lengths, wp.tile_map(wp.length, c), offset=i * BLOCK)


@wp.kernel(enable_backward=False)  # tiles of vectors and matrices have no gradient yet
def nbody(p: wp.array(dtype=wp.vec3), force: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    mine = wp.tile_load(p, shape=BLOCK, offset=i * BLOCK)
    acc = wp.tile_zeros(shape=BLOCK, dtype=wp.vec3)
    for j in range(8):
        other = wp.tile_load(p, shape=BLOCK, offset=j * BLOCK)
        for k in range(BLOCK):
            acc += wp.tile_map(pull, mine, wp.tile_full(BLOCK, other[k], dtype=wp.vec3))
    wp.tile_store(force, acc, offset=i * BLOCK)


@wp.kernel(enable_backward=False)  # tiles of vectors and matrices have no gradient yet
def matrices(m: wp.array(dtype=wp.mat22), out: wp.array(dtype=wp.mat22), dets: wp.array(dtype=float)):
    i = wp.tid()
    t = wp.tile_load(m, shape=BLOCK, offset=i * BLOCK)
    sq = wp.tile_map(wp.mul, t, t)
    wp.tile_store(out, sq + wp.tile_full(BLOCK, wp.identity(n=2, dtype=float), dtype=wp.mat22), offset=i * BLOCK)
    wp.tile_store(dets, wp.tile_map(wp.determinant, sq), offset=i * BLOCK)
