# expect: 11:16: argument 'a': type mismatch: expected an array with ndim=1, got float32
import warp as wp
from typing import Any


@wp.kernel
def k(a: wp.array(dtype=Any), s: Any):
    i = wp.tid()


wp.overload(k, [float, float])
