# expect: 7:5: a @wp.func_native function's body is '...', pass or a docstring
import warp as wp


@wp.func_native("return x + 1.0f;")
def f(x: float) -> float:
    return x + 1.0
