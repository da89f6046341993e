# expect: 7:17: the snippet must be a string, or the name of a module-level string; 'SNIPPET' is not one
import warp as wp

SNIPPET = wp.constant(3)


@wp.func_native(SNIPPET)
def f(x: float) -> float:
    ...
