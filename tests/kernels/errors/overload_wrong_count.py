# expect: 11:16: wp.overload: kernel 'k' takes 2 arguments, the list gives 1 types
import warp as wp
from typing import Any


@wp.kernel
def k(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()


wp.overload(k, [wp.array(dtype=float)])
