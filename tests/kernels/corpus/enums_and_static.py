# Module-level values as Warp code writes them: IntEnum / IntFlag classes,
# classes holding constants, and wp.static() for values known when the
# module is built.
import enum
from enum import IntEnum

import warp as wp

SIZE = 3


class Shape(IntEnum):
    SPHERE = 0
    BOX = 1
    CAPSULE = 7


class Flags(enum.IntFlag):
    ACTIVE = enum.auto()
    FIXED = enum.auto()
    GHOST = enum.auto()


class Params:
    gravity = wp.constant(-9.81)
    steps = 4
    up = wp.constant(wp.vec3(0.0, 1.0, 0.0))


@wp.kernel
def classify(kind: wp.array(dtype=int), flags: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    k = kind[i]
    r = 0.0
    if k == Shape.SPHERE:
        r = 1.0
    elif k == Shape.BOX:
        r = 2.0
    elif k == int(Shape.CAPSULE):
        r = 3.0
    if (flags[i] & Flags.FIXED) != 0:
        r = r + 10.0
    if flags[i] & (Flags.ACTIVE | Flags.GHOST) == Flags.GHOST:
        r = r + 100.0
    total = 0.0
    for s in range(wp.static(Params.steps * 2)):
        total = total + Params.gravity
    out[i] = r + total * Params.up[1] + float(wp.static(SIZE * SIZE))
