# expect: 7:17: struct fields cannot have default values
import warp as wp


@wp.struct
class Params:
    dt: float = 0.01
    steps: int
