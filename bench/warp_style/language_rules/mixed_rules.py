# A particle step that exercises several rules at once: an empty struct
# filled in, a float/int comparison, an assert and a static loop bound.
import warp as wp

SUBSTEPS = 3


@wp.struct
class State:
    x: float
    v: float


@wp.kernel
def substep(x: wp.array(dtype=float), v: wp.array(dtype=float), dt: float) -> None:
    i = wp.tid()
    s = State()
    s.x = x[i]
    s.v = v[i]
    for k in range(wp.static(SUBSTEPS)):
        s.v = s.v - 9.8 * dt
        s.x = s.x + s.v * dt
        if s.x < 0:
            s.x = -s.x
            s.v = -s.v
    assert s.x >= 0.0
    x[i] = s.x
    v[i] = s.v
