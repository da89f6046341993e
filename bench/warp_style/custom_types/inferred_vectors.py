# wp.vector / wp.matrix with what Warp infers left out: the length from the
# values, the dtype from their type, a copy's shape and dtype from the copied.
import warp as wp


@wp.kernel
def assemble(x: wp.array(dtype=float), y: wp.array(dtype=float), v: wp.array(dtype=wp.vec3),
             m: wp.array(dtype=wp.mat22), counts: wp.array(dtype=wp.vec4i)):
    i = wp.tid()
    a = wp.vector(x[i], y[i], 1.0)
    b = wp.vector(a) * 2.0 + wp.vector(y[i], length=3)
    v[i] = b
    m[i] = wp.matrix(x[i], y[i], -y[i], x[i], shape=(2, 2)) + wp.matrix(shape=(2, 2), dtype=float)
    counts[i] = wp.vector(i, i + 1, 2 * i, 7)
