# Vector, matrix and quaternion slices, as Warp users write them: the xy of a
# vec3, a row or column of a matrix, a block of a matrix, a reversed vector,
# and slice assignment (v[0:2] = ..., m[1, :] += ...). Bounds are compile-time
# constants (the result's length is part of its type); a matrix slice may
# take one run-time row or column index.
import warp as wp

HALF = wp.constant(2)


@wp.func
def planar_length(p: wp.vec3) -> float:
    return wp.length(p[0:2])


@wp.func
def next_row(counter: wp.array(dtype=int)) -> int:
    return wp.atomic_add(counter, 0, 1) % 3


@wp.kernel
def vector_slices(p: wp.array(dtype=wp.vec3), xy: wp.array(dtype=wp.vec2), out: wp.array(dtype=float)):
    i = wp.tid()
    v = p[i]
    a = v[0:2]
    b = v[1:]
    r = v[::-1]
    last = v[-1:]
    xy[i] = a + b * 2.0
    out[i] = planar_length(v) + r[0] + last[0] + wp.dot(v[:HALF], v[1:3])
    v[0:2] = wp.vec2(r[1], float(i))
    v[1:] += wp.vec2(1.0, 2.0)
    v[::2] = v[::2] * 3.0
    p[i] = v


@wp.kernel
def matrix_slices(m: wp.array(dtype=wp.mat33), rows: wp.array(dtype=wp.vec3), blocks: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    mm = m[i]
    k = i % 3
    row = mm[1, :]
    col = mm[:, 0]
    blk = mm[0:2, 0:2]
    dyn = mm[k, 1:]
    lower = mm[1:]
    rows[i] = row + col + wp.vec3(dyn[0], dyn[1], lower[1, 2])
    blocks[i] = blk + mm[1:, 1:] + mm[::2, ::-2]
    mm[2, :] = row
    mm[0:2, 0:2] = blk * 2.0
    mm[:, 1] += col
    mm[k, 0:2] = wp.vec2(float(k), 1.0)
    m[i] = mm


@wp.kernel
def quaternion_slices(q: wp.array(dtype=wp.quat), out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    r = q[i]
    xyz = r[0:3]
    w = r[3:]
    out[i] = xyz * r[3] + wp.vec3(w[0])


@wp.kernel
def slice_store_order(m: wp.array(dtype=wp.mat33), counter: wp.array(dtype=int)):
    # The row index of a slice store is evaluated once (after the value; for
    # +=, before it), as Python and Warp do.
    i = wp.tid()
    if i == 0:
        mm = m[0]
        mm[next_row(counter), 0:2] = wp.vec2(100.0, 200.0)
        mm[next_row(counter), 1:] += wp.vec2(10.0, 20.0)
        m[0] = mm
