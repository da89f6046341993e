# expect: 14:5: a @wp.overload stub's body is '...', pass or a docstring
import warp as wp
from typing import Any


@wp.kernel
def k(a: wp.array(dtype=Any)):
    i = wp.tid()
    a[i] = a[i] + a[i]


@wp.overload
def k(a: wp.array(dtype=float)):
    i = wp.tid()
