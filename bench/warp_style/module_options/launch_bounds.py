# Kernels carrying CUDA launch hints (ignored on the CPU).
import warp as wp


@wp.kernel(launch_bounds=256)
def scale(x: wp.array(dtype=float), s: float):
    i = wp.tid()
    x[i] = x[i] * s


@wp.kernel(launch_bounds=(128, 2))
def offset(x: wp.array(dtype=float), s: float):
    i = wp.tid()
    x[i] = x[i] + s


@wp.kernel(cuda_max_registers=64)
def square(x: wp.array(dtype=float)):
    i = wp.tid()
    x[i] = x[i] * x[i]
