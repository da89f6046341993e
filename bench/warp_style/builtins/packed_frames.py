# Frames packed from column and row vectors, and counters in Warp's unsigned
# and 64-bit integer vectors (vec3ui, vec2l).
import warp as wp


@wp.kernel
def pack(t: wp.array(dtype=wp.vec3), n: wp.array(dtype=wp.vec3), p: wp.array(dtype=wp.vec3), out: wp.array(dtype=wp.vec3),
         rows: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    b = wp.cross(n[i], t[i])
    tbn = wp.matrix_from_cols(t[i], b, n[i])
    out[i] = wp.transpose(tbn) * p[i]
    rows[i] = wp.matrix_from_rows(wp.vec2(t[i][0], t[i][1]), wp.vec2(n[i][0], n[i][1]))


@wp.kernel
def tally(keys: wp.array(dtype=int), counts: wp.array(dtype=wp.vec3ui), sums: wp.array(dtype=wp.vec2l)):
    i = wp.tid()
    k = wp.abs(keys[i]) % counts.shape[0]
    wp.atomic_add(counts, k, wp.vec3ui(wp.uint32(1), wp.uint32(k), wp.uint32(3000000000)))
    wp.atomic_add(sums, k, wp.vec2l(wp.int64(keys[i]), wp.int64(keys[i]) * wp.int64(100000)))
