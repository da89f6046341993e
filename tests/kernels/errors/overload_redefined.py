# expect: 11:1: function 'area' is redefined with the same parameter types (first at line 6)
import warp as wp


@wp.func
def area(w: float, h: float) -> float:
    return w * h


@wp.func
def area(width: float, height: float) -> float:
    return width * height
