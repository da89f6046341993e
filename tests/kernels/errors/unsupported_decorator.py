# expect: 6:1: unsupported decorator '@functools.lru_cache'
import warp as wp
import functools


@functools.lru_cache
@wp.func
def f(x: float) -> float:
    return x
