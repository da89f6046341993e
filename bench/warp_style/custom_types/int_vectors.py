# Integer user vector types: cell coordinates as a 3-int vector and an
# 8-wide uint8 flag vector.
import warp as wp

cell3 = wp.types.vector(length=3, dtype=wp.int32)
flags8 = wp.types.vector(length=8, dtype=wp.uint8)


@wp.kernel
def cells(p: wp.array(dtype=wp.vec3), c: wp.array(dtype=cell3), f: wp.array(dtype=flags8)):
    i = wp.tid()
    q = p[i] * 4.0
    c[i] = cell3(int(q[0]), int(q[1]), int(q[2]))
    fl = flags8()
    fl[i % 8] = wp.uint8(1)
    f[i] = fl
