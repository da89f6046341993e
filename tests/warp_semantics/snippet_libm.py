# A @wp.func_native snippet written against the C math library, as Warp's
# CPU snippets see <math.h>: tests/unit/test_warp_semantics.cpp holds
# warp-lang 1.19's values.
import warp as wp


@wp.func_native("""
float r = powf(x, 2.5f) + fabsf(-x) * sqrtf(x) + fmaf(x, 3.0f, 1.0f) + ldexpf(x, 3) + exp2f(x * 0.5f);
r += erff(x * 0.25f) + erfcf(x * 0.5f) + cbrtf(x) + fmodf(x, 0.75f) + rintf(x * 3.3f) + truncf(-x * 1.7f);
return r + (float)(fabs(-(double)x) + pow((double)x, 0.5)) + atan2f(x, 1.0f);
""")
def libm_mix(x: float) -> float: ...


@wp.kernel
def snippet_libm(x: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = libm_mix(x[i])
