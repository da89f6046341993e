# bench/autodiff: the same math over a differentiable native type (a plugin's
# complex number) and over its float parts; bench_autodiff times both passes.
import warp as wp


@wp.kernel
def native_complex(re: wp.array(dtype=float), im: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    z = bench_complex.Complex(re[i], im[i])
    w = wp.bc_mul(z, z)
    loss[i] = wp.bc_abs(w) + w.re


@wp.kernel
def float_parts(re: wp.array(dtype=float), im: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    a = re[i]
    b = im[i]
    wr = a * a - b * b
    wi = a * b + b * a
    loss[i] = wp.sqrt(wr * wr + wi * wi) + wr
