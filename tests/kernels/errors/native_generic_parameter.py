# expect: 7:10: @wp.func_native function 'f': parameter 'x' needs a concrete type
import warp as wp
from typing import Any


@wp.func_native("return x;")
def f(x: Any) -> float:
    ...
