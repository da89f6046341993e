# expect: 4:14: class 'Tables': only @wp.struct classes, enums (IntEnum, IntFlag) and classes holding constants are supported in kernels
import warp as wp

class Tables(dict):
    size = 3


@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
