# expect: 5:1: class 'Body': classes other than @wp.struct are not supported in kernels
import warp as wp


class Body:
    position: wp.vec3
    mass: float


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
