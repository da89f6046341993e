# Module-level aliases of Warp names, as Warp code writes them: types
# (dtype = wp.float32) and builtins (f = wp.sin), aliases of aliases included.
import warp as wp

dtype = wp.float32
vec = wp.vec3
sine = wp.sin
wave = sine


@wp.kernel
def shaped(a: wp.array(dtype=dtype), b: wp.array(dtype=vec)):
    i = wp.tid()
    a[i] = dtype(1.0) + sine(a[i]) + wave(dtype(0.5))
    b[i] = vec(a[i], 0.0, 1.0)
