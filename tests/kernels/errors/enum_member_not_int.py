# expect: 6:12: enum member 'Mode.SLOW' must be an int32 value
from enum import IntEnum
import warp as wp

class Mode(IntEnum):
    SLOW = 0.5


@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = Mode.SLOW
