# expect: 6:28: the default of parameter 'k' must be a constant: a literal, a module constant, or a type constructed from them
import warp as wp


@wp.func
def f(x: float, k: float = wp.sqrt(2.0)):
    return x * k
