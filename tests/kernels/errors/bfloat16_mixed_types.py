# expect: 18:8: no overload of operator < ('lt') matches the argument types (bfloat16, float32) (bfloat16 converts only when asked: compute in float32 with float(x), or convert with wp.bfloat16(x))
# expect: 20:9: no overload of operator + ('add') matches the argument types (bfloat16, float32) (bfloat16 converts only when asked
# expect: 21:9: no overload of operator * ('mul') matches the argument types (float16, bfloat16) (bfloat16 converts only when asked
# expect: 22:9: no overload of function 'twice' matches the argument types (float32); candidates:
# Warp converts nothing to or from bfloat16 implicitly: its C++ finds b < f
# ambiguous and its front end refuses b + f ("Input types must be the same").
import warp as wp


@wp.func
def twice(x: wp.bfloat16):
    return x + x


@wp.kernel
def mix(b: wp.array(dtype=wp.bfloat16), f: wp.array(dtype=float), h: wp.array(dtype=wp.float16)):
    i = wp.tid()
    if b[i] < f[i]:
        b[i] = wp.bfloat16(0.5) * b[i]
    c = b[i] + f[i]
    d = h[i] * b[i]
    e = twice(f[i])
