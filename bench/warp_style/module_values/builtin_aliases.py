# Builtins reached through module-level aliases (as code ported from NumPy
# style often does), and a type alias used as a constructor.
import warp as wp

sqrt = wp.sqrt
vlen = wp.length
real = wp.float32


@wp.kernel
def norms(v: wp.array(dtype=wp.vec3), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = vlen(v[i]) + sqrt(real(i))
