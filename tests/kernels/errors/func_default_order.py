# expect: 6:23: parameter 'y' without a default follows one with a default
import warp as wp


@wp.func
def f(x: float = 1.0, y: float):
    return x + y
