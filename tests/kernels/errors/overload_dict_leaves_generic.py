# expect: 11:16: argument 's' is generic and the dict gives it no type
import warp as wp
from typing import Any


@wp.kernel
def k(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()


wp.overload(k, {"a": wp.array(dtype=float)})
