# expect: 10:9: no overload of operator + ('add') matches the argument types (vec6, vec5)
import warp as wp
vec6 = wp.types.vector(length=6, dtype=wp.float32)
vec5 = wp.types.vector(length=5, dtype=wp.float32)


@wp.kernel
def k(a: wp.array(dtype=vec6), b: wp.array(dtype=vec5)):
    i = wp.tid()
    x = a[i] + b[i]
