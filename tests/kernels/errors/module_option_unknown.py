# expect: 4:24: unknown module option 'fastmath' (expected enable_backward, mode, fast_math, fuse_fp, lineinfo, optimization_level, block_dim, max_unroll, cuda_output, strip_hash, compile_time_trace, deterministic, deterministic_max_records, default_grid_stride, enable_mathdx_gemm, enable_mathdx_solver, enable_mathdx_fft)
import warp as wp

wp.set_module_options({"fastmath": True})


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
