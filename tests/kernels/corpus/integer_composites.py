# Vectors and matrices of scalars the runtime has no typedef for (int8
# vectors, int32 matrices, as bfloat16 ones): generated code spells the
# templates (weft::vec_t<3, weft::int8>), not a name like weft::vec3_int8.
import warp as wp

vec3b = wp.types.vector(length=3, dtype=wp.int8)
mat22i = wp.types.matrix(shape=(2, 2), dtype=wp.int32)


@wp.kernel
def integer_composites(a: wp.array(dtype=vec3b), m: wp.array(dtype=mat22i), n: wp.array(dtype=int)):
    i = wp.tid()
    v = a[i] + a[i]
    v[2] = wp.int8(i % 100)
    a[i] = v
    m[i] = m[i] + m[i]
    n[i] = int(v[0]) + m[i][1, 0]
