# expect: 8:9: 'continue' outside a loop
import warp as wp


@wp.func
def f(x: float) -> float:
    if x < 0.0:
        continue
    return x
