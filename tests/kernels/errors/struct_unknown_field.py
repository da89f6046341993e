# expect: 14:14: struct 'Body' has no field 'mass'
import warp as wp


@wp.struct
class Body:
    position: wp.vec3
    inv_mass: float


@wp.kernel
def k(bodies: wp.array(dtype=Body), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = bodies[i].mass
