# expect: 7:12: function 'half' returns int32, this returns 'float32'
import warp as wp


@wp.func
def half(n: int) -> int:
    return float(n) * 0.5
