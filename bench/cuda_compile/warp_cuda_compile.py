#!/usr/bin/env python3
"""Warp side of bench_cuda_compile: NVIDIA Warp compiling kernel files to CUDA
(PTX for compute_<arch> by default) without a GPU or driver.

Run with the venv python made by bench/vs_warp/setup_warp.sh:

    PY=${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}/bin/python
    $PY bench/cuda_compile/warp_cuda_compile.py --kernels bench/kernels --repeat 5 --arch 90 --cache-dir DIR

Each repetition runs in a fresh child process with a fresh, empty kernel cache
(wp.config.kernel_cache_dir) and module dir: wp.init() (outside the timed
region, printed as '# init_ms'), then the timed region

    import the kernel file + wp.compile_aot_module(module, device=None, arch=ARCH,
                                                   module_dir=..., use_ptx=True)

i.e. Warp's codegen and its in-process NVRTC compile (Warp's NVRTC PCH, on by
default, lives in a per-process temporary directory, so every repetition builds
it again, as a fresh process does). The child checks that the artifact was
written.  Backward (adjoint) kernels are off (wp.config.enable_backward = False)
so Warp compiles the forward kernels weft compiles; --backward turns them on.
--cubin compiles CUBIN for sm_ARCH instead of PTX.

Result lines on stdout, one per file, the value a median:

    warp_cuda_compile_ms <file> <ms>

Lines starting with '#' are context.  Exit 3 (with a reason on stdout) when
Warp cannot compile CUDA here.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import time

DEFAULT_FILES = ["saxpy.py", "ten_kernels.py"]


def child(args) -> int:
    import warp as wp

    cache = os.path.abspath(args.cache_dir)
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    wp.config.kernel_cache_dir = cache
    if hasattr(wp, "LOG_WARNING"):
        wp.config.log_level = wp.LOG_WARNING
    else:  # older warp-lang
        wp.config.quiet = True
    wp.config.enable_backward = bool(args.backward)
    t0 = time.perf_counter()
    wp.init()
    init_ms = (time.perf_counter() - t0) * 1e3

    path = os.path.join(args.kernels, args.child)
    name = os.path.splitext(os.path.basename(path))[0]
    module_dir = os.path.join(cache, "aot")
    t0 = time.perf_counter()
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    artifacts = wp.compile_aot_module(mod, device=None, arch=args.arch, module_dir=module_dir, use_ptx=not args.cubin)
    ms = (time.perf_counter() - t0) * 1e3
    missing = [str(a) for a in artifacts if not os.path.isfile(a)]
    if not artifacts or missing:
        print(f"no artifact written: {missing or artifacts}")
        return 1
    print(f"{ms:.3f} {init_ms:.3f} {os.path.basename(str(artifacts[0]))}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernels", default="bench/kernels")
    ap.add_argument("--files", nargs="*", default=DEFAULT_FILES)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--arch", type=int, default=90)
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--cubin", action="store_true")
    ap.add_argument("--backward", action="store_true")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.kernels = os.path.abspath(args.kernels)
    if args.child:
        return child(args)

    try:
        import importlib.metadata as md

        version = md.version("warp-lang")
    except Exception as e:  # noqa: BLE001
        print(f"warp-lang not importable: {e}")
        return 3
    cache_root = os.path.abspath(args.cache_dir or os.path.join("/tmp", f"weft_warp_cuda_{os.getpid()}"))
    out = "cubin sm" if args.cubin else "ptx compute"
    print(f"# warp-lang {version}; {out}_{args.arch}; backward {'on' if args.backward else 'off'}; "
          f"timed: import + compile_aot_module, fresh process and cache each time")
    for f in args.files:
        samples, inits, artifact = [], [], ""
        for r in range(max(1, args.repeat)):
            cmd = [sys.executable, os.path.abspath(__file__), "--child", f, "--kernels", args.kernels, "--arch",
                   str(args.arch), "--cache-dir", os.path.join(cache_root, f"{os.path.splitext(f)[0]}_{r}")]
            if args.cubin:
                cmd.append("--cubin")
            if args.backward:
                cmd.append("--backward")
            p = subprocess.run(cmd, capture_output=True, text=True)
            last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
            if p.returncode != 0:
                err = (p.stderr.strip().splitlines() or [last or "no output"])[-1]
                print(f"Warp cannot compile {f} for CUDA here: {err}")
                shutil.rmtree(cache_root, ignore_errors=True)
                return 3
            ms, init_ms, artifact = last.split()
            samples.append(float(ms))
            inits.append(float(init_ms))
        print(f"# {f}: samples {' '.join(f'{s:.1f}' for s in samples)}; init_ms {statistics.median_high(inits):.1f}; "
              f"artifact {artifact}")
        print(f"warp_cuda_compile_ms {f} {statistics.median_high(samples):.3f}")
    shutil.rmtree(cache_root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
