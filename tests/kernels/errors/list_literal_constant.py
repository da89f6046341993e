# expect: 4:11: list literals are only supported in wp.overload(kernel, [types])
import warp as wp

WEIGHTS = [0.25, 0.5, 0.25]
