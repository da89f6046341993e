# expect: 11:40: argument 's' cannot be generic: give a concrete type
import warp as wp
from typing import Any


@wp.kernel
def k(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()


wp.overload(k, [wp.array(dtype=float), Any])
