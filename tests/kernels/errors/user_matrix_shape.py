# expect: 3:30: shape must be a tuple of two integer constants: shape=(rows, cols)
import warp as wp
mat3 = wp.types.matrix(shape=3, dtype=wp.float32)


@wp.kernel
def k(a: wp.array(dtype=mat3)):
    i = wp.tid()
