import warp as wp

# One simulation step: every particle moves by its velocity over dt.
@wp.kernel
def step(pos: wp.array(dtype=float), vel: wp.array(dtype=float), dt: float):
    i = wp.tid()
    pos[i] = pos[i] + vel[i] * dt
