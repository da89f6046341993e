#!/usr/bin/env python3
"""Warp side of the weft-vs-Warp benchmark (CPU device only).

Run with the venv python made by setup_warp.sh:

    PY=${WEFT_BENCH_VENV:-$HOME/.cache/weft/warp-venv}/bin/python
    $PY bench/vs_warp/warp_side.py --kernels KDIR --mode cold --cache-dir CDIR
    $PY bench/vs_warp/warp_side.py --kernels KDIR --mode warm --cache-dir CDIR
    $PY bench/vs_warp/warp_side.py --kernels KDIR --mode run  --cache-dir CDIR

Result lines on stdout (one per measurement, the value is a median):

    warp cold_compile_ms <file> <ms>
    warp warm_load_ms <file> <ms>
    warp saxpy_10M_ms <ms>
    warp launch_overhead_us <us>
    warp cold_compile_warm_headers_ms ten_kernels.py <ms>
    warp edit_one_kernel_ms ten_kernels.py <ms>
    warp edit_shared_func_ms ten_kernels.py <ms>

Lines starting with '#' are context (versions, samples, checks); parsers
should ignore them.

cold: each repetition runs in a fresh child process: wp.init() with
      wp.config.kernel_cache_dir = CDIR, remove this file's module dirs
      (wp_<stem>_<hash>) from the cache and check none is left, then time
      [import kernel file + wp.load_module(mod, device="cpu")]; afterwards
      check a new module dir appeared (it really compiled).  The last repetition leaves the cache populated for 'warm'.
warm: each repetition runs in a fresh child process with the populated cache;
      same timed region; checks that no new module dir appeared (cache hit).
edit: one process and a cache of its own (CDIR-edit): wp.init(), import + load
      saxpy.py (which builds the PCH), then time importing and loading
      ten_kernels.py (cold_compile_warm_headers_ms: a cold compile, headers
      warm), then for each edit in edits.txt and each repetition r, time
      [import the edited text (a new file, a new module name) +
      wp.load_module]: a recompile with everything else warm.
run:  saxpy (from <kernels>/saxpy.py) on 10M float32, median of 10 launches
      (+ wp.synchronize()) after 2 warm-ups; then 1000 launches with dim=1,
      each timed on its own, median in microseconds.

wp.init() itself (loading warp.so / warp-clang.so) is outside every timed
region; it is printed as '# init_ms'.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

DEFAULT_FILES = ["saxpy.py", "ten_kernels.py"]


def _import_file(path: str):
    """Import a kernel file as a Python module (the module's name is its stem)."""
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot import {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _init_warp(cache_dir: str, no_backward: bool, no_pch: bool = False):
    import warp as wp

    wp.config.kernel_cache_dir = os.path.abspath(cache_dir)
    # no init banner / per-module "load ... (compiled)" lines on stdout
    if hasattr(wp, "LOG_WARNING"):
        wp.config.log_level = wp.LOG_WARNING
    else:  # older warp-lang
        wp.config.quiet = True
    if no_backward:
        wp.config.enable_backward = False
    if no_pch:
        wp.config.use_precompiled_headers = False
    t0 = time.perf_counter()
    wp.init()
    init_ms = (time.perf_counter() - t0) * 1e3
    return wp, init_ms


def _module_dirs(wp) -> set[str]:
    """Module entries (wp_*) in the (versioned) kernel cache dir after wp.init()."""
    d = wp.config.kernel_cache_dir
    if not os.path.isdir(d):
        return set()
    return {e for e in os.listdir(d) if e.startswith("wp_")}


# --------------------------------------------------------------------------
# child: one cold or warm load of one kernel file, result as JSON on stdout
# --------------------------------------------------------------------------
def child_load(args) -> int:
    path = os.path.join(args.kernels, args.child_file)
    stem = os.path.splitext(os.path.basename(path))[0]
    wp, init_ms = _init_warp(args.cache_dir, args.no_backward, args.no_pch)

    mine = re.compile(rf"wp_{re.escape(stem)}_[0-9a-f]+")
    if args.mode == "cold":
        # Drop this file's cached modules (wp_<stem>_<hash>) only, so that the
        # other files' modules stay cached for a later --mode warm.  This is
        # what wp.clear_kernel_cache() does, restricted to one module name; the
        # cache holds nothing else that a CPU build reuses.
        for e in _module_dirs(wp):
            if mine.fullmatch(e):
                shutil.rmtree(os.path.join(wp.config.kernel_cache_dir, e))
        before = _module_dirs(wp)
        if any(mine.fullmatch(e) for e in before):
            print(json.dumps({"error": f"cache still holds wp_{stem}_* after clearing"}))
            return 1
    else:
        before = _module_dirs(wp)
        if not any(mine.fullmatch(e) for e in before):
            print(json.dumps({"error": f"warm run but {wp.config.kernel_cache_dir} holds no wp_{stem}_* "
                                       "module; run --mode cold first"}))
            return 1

    t0 = time.perf_counter()
    mod = _import_file(path)
    wp.load_module(mod, device="cpu")
    ms = (time.perf_counter() - t0) * 1e3

    after = _module_dirs(wp)
    new = sorted(after - before)
    n_kernels = sum(1 for v in vars(mod).values() if isinstance(v, wp.Kernel))
    res = {
        "ms": ms,
        "init_ms": init_ms,
        "new_module_dirs": new,
        "n_kernels": n_kernels,
        "cache_dir": wp.config.kernel_cache_dir,
    }
    if args.mode == "cold" and not new:
        res["error"] = "cold run produced no new module dir in the cache (did not compile?)"
    if args.mode == "warm" and new:
        res["error"] = f"warm run compiled (new module dirs {new}); cache miss"
    print(json.dumps(res))
    return 1 if "error" in res else 0


def parent_load(args) -> int:
    key = "cold_compile_ms" if args.mode == "cold" else "warm_load_ms"
    rc = 0
    for f in args.files:
        if not os.path.isfile(os.path.join(args.kernels, f)):
            print(f"warp_side: no kernel file {os.path.join(args.kernels, f)}", file=sys.stderr)
            return 2
        samples, inits = [], []
        for _ in range(args.repeat):
            cmd = [sys.executable, os.path.abspath(__file__), "--kernels", args.kernels,
                   "--mode", args.mode, "--cache-dir", args.cache_dir, "--child-file", f]
            if args.no_backward:
                cmd.append("--no-backward")
            if args.no_pch:
                cmd.append("--no-pch")
            p = subprocess.run(cmd, capture_output=True, text=True)
            try:
                res = json.loads(p.stdout.strip().splitlines()[-1])
            except Exception:  # noqa: BLE001
                res = {"error": f"child rc={p.returncode}: {p.stderr.strip()[-2000:]}"}
            if "error" in res:
                print(f"warp_side: {args.mode} {f}: {res['error']}", file=sys.stderr)
                rc = 1
                break
            samples.append(res["ms"])
            inits.append(res["init_ms"])
        if not samples:
            continue
        print(f"# {args.mode} {f}: kernels={res['n_kernels']} cache={res['cache_dir']} "
              f"samples_ms={[round(s, 1) for s in samples]} init_ms_median={statistics.median(inits):.1f}")
        print(f"warp {key} {f} {statistics.median(samples):.3f}", flush=True)
    return rc


# --------------------------------------------------------------------------
# edit: recompiles after an edit, PCH and cache warm
# --------------------------------------------------------------------------
def read_edits() -> list[tuple[str, str, str]]:
    out = []
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "edits.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            key, old, new = line.rstrip("\n").split("\t")
            out.append((key, old, new.replace("\\n", "\n")))
    return out


def edit_mode(args) -> int:
    import tempfile

    # A cache of its own: the other modes' entries would be hits.
    cache = args.cache_dir.rstrip("/") + "-edit"
    shutil.rmtree(cache, ignore_errors=True)
    wp, init_ms = _init_warp(cache, args.no_backward, args.no_pch)
    print(f"# init_ms {init_ms:.1f}")
    text = open(os.path.join(args.kernels, "ten_kernels.py")).read()
    work = tempfile.mkdtemp(prefix="warp-edit-")
    try:
        def load(name: str, source: str) -> float:
            path = os.path.join(work, name + ".py")
            with open(path, "w") as f:
                f.write(source)
            t0 = time.perf_counter()
            mod = _import_file(path)
            wp.load_module(mod, device="cpu")
            return (time.perf_counter() - t0) * 1e3

        saxpy = open(os.path.join(args.kernels, "saxpy.py")).read()
        print(f"# first load: saxpy.py, which builds the PCH, {load('saxpy', saxpy):.1f} ms")
        # Each under a module name of its own: a cold compile every time (median of 3).
        cold = [load(f"ten_kernels_cold{r}", text) for r in range(3)]
        print(f"# cold_compile_warm_headers: samples_ms={[round(c, 1) for c in cold]}")
        print(f"warp cold_compile_warm_headers_ms ten_kernels.py {statistics.median(cold):.3f}", flush=True)
        load("ten_kernels", text)
        for key, old, new in read_edits():
            if old not in text:
                print(f"warp_side: edit {key}: text not found in ten_kernels.py", file=sys.stderr)
                return 1
            samples = [load(f"ten_kernels_{key}_{r}", text.replace(old, new.replace("{r}", str(r))))
                       for r in range(1, args.repeat + 1)]
            print(f"# {key}: samples_ms={[round(s, 1) for s in samples]}")
            print(f"warp {key}_ms ten_kernels.py {statistics.median(samples):.3f}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


# --------------------------------------------------------------------------
# run: saxpy throughput and launch overhead
# --------------------------------------------------------------------------
def run_mode(args) -> int:
    import numpy as np

    wp, init_ms = _init_warp(args.cache_dir, args.no_backward)
    print(f"# init_ms {init_ms:.1f}")
    mod = _import_file(os.path.join(args.kernels, "saxpy.py"))
    saxpy = mod.saxpy
    wp.load_module(mod, device="cpu")  # compile/load outside the timed region

    n = args.n
    rng = np.random.default_rng(0)
    xh = rng.random(n, dtype=np.float32)
    yh = rng.random(n, dtype=np.float32)
    a = 2.0
    x = wp.array(xh, dtype=wp.float32, device="cpu")
    y = wp.array(yh, dtype=wp.float32, device="cpu")

    # correctness: one launch vs numpy
    wp.launch(saxpy, dim=n, inputs=[x, y, a], device="cpu")
    wp.synchronize()
    if not np.allclose(y.numpy(), np.float32(a) * xh + yh, rtol=1e-6, atol=1e-6):
        print("warp_side: saxpy result mismatch", file=sys.stderr)
        return 1

    for _ in range(2):  # warm-ups
        wp.launch(saxpy, dim=n, inputs=[x, y, a], device="cpu")
        wp.synchronize()
    times = []
    for _ in range(10):
        t0 = time.perf_counter()
        wp.launch(saxpy, dim=n, inputs=[x, y, a], device="cpu")
        wp.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    med = statistics.median(times)
    gbs = 3 * 4 * n / (med * 1e-3) / 1e9  # read x, read y, write y
    print(f"# saxpy n={n} samples_ms={[round(t, 2) for t in times]} ~{gbs:.1f} GB/s")
    print(f"warp saxpy_10M_ms {med:.3f}", flush=True)

    # launch overhead: dim=1, each launch timed on its own (CPU launches are synchronous)
    x1 = wp.array(xh[:1], dtype=wp.float32, device="cpu")
    y1 = wp.array(yh[:1], dtype=wp.float32, device="cpu")
    for _ in range(100):
        wp.launch(saxpy, dim=1, inputs=[x1, y1, a], device="cpu")
    wp.synchronize()
    lt = []
    pc = time.perf_counter
    for _ in range(args.launches):
        t0 = pc()
        wp.launch(saxpy, dim=1, inputs=[x1, y1, a], device="cpu")
        lt.append(pc() - t0)
    wp.synchronize()
    lt_us = [t * 1e6 for t in lt]
    print(f"# launch dim=1 x{args.launches}: mean_us={statistics.fmean(lt_us):.2f} "
          f"min_us={min(lt_us):.2f} p90_us={sorted(lt_us)[int(0.9 * len(lt_us))]:.2f}")
    print(f"warp launch_overhead_us {statistics.median(lt_us):.3f}", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", required=True, help="directory holding saxpy.py, ten_kernels.py")
    ap.add_argument("--mode", required=True, choices=["cold", "warm", "run", "edit"])
    ap.add_argument("--cache-dir", required=True,
                    help="Warp kernel cache dir (Warp adds a <warp-version>/ subdir); cold mode removes the measured files' modules from it")
    ap.add_argument("--files", nargs="+", default=DEFAULT_FILES, help="kernel files for cold/warm")
    ap.add_argument("--repeat", type=int, default=5, help="cold/warm: fresh processes per file (median)")
    ap.add_argument("--n", type=int, default=10_000_000, help="run: saxpy length")
    ap.add_argument("--launches", type=int, default=1000, help="run: dim=1 launches timed")
    ap.add_argument("--no-backward", action="store_true",
                    help="wp.config.enable_backward = False (Warp then skips adjoint kernels)")
    ap.add_argument("--no-pch", action="store_true",
                    help="wp.config.use_precompiled_headers = False (a fresh process then skips "
                         "building the Clang PCH; faster for a single cold module)")
    ap.add_argument("--child-file", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.kernels = os.path.abspath(args.kernels)

    if args.child_file:
        return child_load(args)

    import importlib.metadata as md

    print(f"# warp-lang {md.version('warp-lang')} numpy {md.version('numpy')} "
          f"python {sys.version.split()[0]} device cpu enable_backward={not args.no_backward} "
          f"pch={not args.no_pch} "
          f"cpus={os.cpu_count()} loadavg={_loadavg()}")
    rc = run_mode(args) if args.mode == "run" else edit_mode(args) if args.mode == "edit" else parent_load(args)
    # A busy machine (e.g. a parallel build) inflates every number; say so.
    print(f"# loadavg at end {_loadavg()}")
    return rc


def _loadavg() -> str:
    try:
        return "/".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "n/a"


if __name__ == "__main__":
    sys.exit(main())
