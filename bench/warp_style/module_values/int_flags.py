# Particle state bits as an IntFlag, tested and set with bit operations.
import enum

import warp as wp


class Flags(enum.IntFlag):
    ACTIVE = 1
    FIXED = 2
    COLLIDED = 4


@wp.kernel
def update_flags(flags: wp.array(dtype=int), y: wp.array(dtype=float), moved: wp.array(dtype=int)):
    i = wp.tid()
    f = flags[i]
    if y[i] < 1.0:
        f = f | Flags.COLLIDED
    if (f & Flags.ACTIVE) != 0 and (f & Flags.FIXED) == 0:
        moved[i] = 1
    flags[i] = f & ~int(Flags.FIXED)
