# Warp's module options and launch hints, as Warp code writes them: the
# module's options (debug mode, fast math, optimization level, fma
# contraction, line info) apply to the file's kernels, a module="unique"
# kernel's module_options to that kernel's own module alone; launch hints are
# checked and applied where weft has the concept (launch_bounds on CUDA entries).
import warp as wp

wp.set_module_options({"enable_backward": True, "max_unroll": 4})
wp.set_module_options({"optimization_level": 3, "fuse_fp": True, "lineinfo": False, "cuda_output": None})


@wp.kernel(
    module="unique",
    module_options={
        "fast_math": False,
        "block_dim": 128,
    },
    launch_bounds=256,
)
def scaled(a: wp.array(dtype=float), s: float):
    i = wp.tid()
    a[i] = a[i] * s + float(i)


@wp.kernel(launch_bounds=(128, 2), grid_stride=True, cluster_dim=None)
def counts(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = i * 2
    wp.expect_eq(out[i], i + i)


@wp.kernel(module="unique", module_options={"enable_backward": False}, cuda_max_registers=64, enable_cuda_smem_spilling=False)
def own_module(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = wp.sin(a[i])
