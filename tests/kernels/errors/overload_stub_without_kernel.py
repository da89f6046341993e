# expect: 12:1: there is no @wp.kernel named 'double'
import warp as wp
from typing import Any


@wp.func
def double(x: Any):
    return x + x


@wp.overload
def double(x: float):
    ...
