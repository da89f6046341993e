# Bit manipulation done natively: popcount and bit reversal of 32-bit ints.
import warp as wp


@wp.func_native("""
    int n = 0;
    unsigned int v = (unsigned int)x;
    while (v) { n += v & 1u; v >>= 1; }
    return n;
""")
def popcount(x: int) -> int: ...


@wp.func_native("""
    unsigned int v = (unsigned int)x, r = 0;
    for (int k = 0; k < 8; ++k) { r = (r << 1) | (v & 1u); v >>= 1; }
    return (int)r;
""")
def reverse8(x: int) -> int: ...


@wp.kernel
def bits(a: wp.array(dtype=int), pc: wp.array(dtype=int), rev: wp.array(dtype=int)):
    i = wp.tid()
    v = a[i] * 37 + i
    pc[i] = popcount(v)
    rev[i] = reverse8(v)
