# Runs corpus modules in weft and in warp-lang on the same inputs and compares
# every array afterwards.
#
#   diff_corpus.py KERNEL_SUITE FILE.py [FILE.py ...]
#
# weft's side is `kernel_suite run FILE.py` (tests/support/corpus_runs.hpp):
# every kernel launched once on the CPU, in debug mode, with inputs made from
# its parameter types alone; it prints the launch grid and every array after
# the launch as JSON. This script makes the same inputs for warp-lang (the
# formulas below mirror corpus_runs.cpp), launches the same kernels on the
# same grids, and compares. Kernels weft reports a bounds or expect_* failure
# for are not compared (Warp's release build would read outside the array).
#
# A generic kernel (`Any` parameters) is launched once per `wp.overload`, in
# the order Warp registered them: weft's runs named `NAME[KEY]` are matched to
# the overload whose Warp signature key is KEY (`a1f4_f4`), runs named `NAME`
# to the overloads in order. A run's name may also be a kernel's key (`name=`).
# An `indexedarray` parameter gets the array made for a plain array of its
# dimension, indexed along its first dimension in reverse (index k reads
# element n-1-k); the whole underlying array is compared. bfloat16 elements
# are made from the float values and compared like float16. Transforms are
# filled component by component like vectors (p then q, 7 components).
# Exits 77 (skipped) without warp-lang, 1 when any kernel differs.
import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import warp as wp
except ImportError:
    print("skipped: warp-lang is not installed for " + sys.executable)
    sys.exit(77)

wp.config.quiet = True
wp.init()


@wp.struct
class _Probe:
    x: float


STRUCT = type(_Probe)  # Warp's struct class (its module is private)

SHAPES = {1: (64,), 2: (16, 16), 3: (8, 8, 8), 4: (4, 4, 4, 4)}
BFLOAT16 = getattr(wp, "bfloat16", None)
FLOATS = (wp.float16, wp.float32, wp.float64) + ((BFLOAT16,) if BFLOAT16 else ())


def float_value(seed, k):
    return 0.25 + ((seed * 31 + k * 37) % 96) / 64.0


def int_value(seed, k):
    return (seed * 5 + k * 7) % 8


def scalar_value(t, seed, k):
    if t is wp.bool or t is bool:
        return bool((seed + k) % 2)
    if t in FLOATS or t is float:
        return float_value(seed, k)
    return int_value(seed, k)


def is_composite(t):
    return (wp.types.type_is_vector(t) or wp.types.type_is_matrix(t) or wp.types.type_is_quaternion(t)
            or wp.types.type_is_transformation(t))


def components(t, seed, k):
    n = t._length_
    return [scalar_value(t._wp_scalar_type_, seed, k * n + c) for c in range(n)]


def value_of(t, seed, k):
    if is_composite(t):
        return t(*components(t, seed, k))
    if isinstance(t, STRUCT):
        s = t()
        for f, (name, var) in enumerate(t.vars.items()):
            setattr(s, name, value_of(var.type, seed + f + 1, k))
        return s
    v = scalar_value(t, seed, k)
    return t(v) if t in (wp.float16, BFLOAT16, wp.float64, wp.int64, wp.uint64, wp.int8, wp.uint8, wp.int16, wp.uint16, wp.uint32) else v


def numpy_type(t):
    s = t._wp_scalar_type_ if is_composite(t) else t
    if BFLOAT16 is not None and s is BFLOAT16:
        return np.float32  # Warp converts when it makes the array
    return {wp.float16: np.float16, wp.float32: np.float32, wp.float64: np.float64, wp.int8: np.int8,
            wp.uint8: np.uint8, wp.int16: np.int16, wp.uint16: np.uint16, wp.int32: np.int32, wp.uint32: np.uint32,
            wp.int64: np.int64, wp.uint64: np.uint64, wp.bool: np.bool_, int: np.int32, float: np.float32,
            bool: np.bool_}[s]


def array_of(a, seed):
    if isinstance(a, wp.indexedarray):
        base = plain_array_of(a, seed)
        n = base.shape[0]
        reverse = wp.array(np.arange(n - 1, -1, -1, dtype=np.int32), dtype=wp.int32, device="cpu")
        view = wp.indexedarray(base, [reverse] + [None] * (base.ndim - 1))
        view.base_array = base  # what is compared: the whole array
        return view
    return plain_array_of(a, seed)


def plain_array_of(a, seed):
    shape = SHAPES[a.ndim]
    count = int(np.prod(shape))
    t = a.dtype
    if isinstance(t, STRUCT):
        return wp.array([value_of(t, seed, i) for i in range(count)], dtype=t, device="cpu").reshape(shape)
    if is_composite(t):
        data = np.array([components(t, seed, i) for i in range(count)], dtype=numpy_type(t))
        data = data.reshape(shape + tuple(t._shape_))
    else:
        data = np.array([scalar_value(t, seed, i) for i in range(count)], dtype=numpy_type(t)).reshape(shape)
    return wp.array(data, dtype=t, device="cpu")


def tolerance(t):
    s = t._wp_scalar_type_ if is_composite(t) else t
    return {wp.float16: 1e-2, BFLOAT16: 1e-2, wp.float64: 1e-9}.get(s, 1e-4) if s in FLOATS or s is float else 0


def compare(name, i, t, ours, theirs):
    tol = tolerance(t)
    for e, (x, y) in enumerate(zip(ours, theirs)):
        x = float(x) if not isinstance(x, str) else float(x)
        y = float(y)
        if x == y or (math.isnan(x) and math.isnan(y)):
            continue
        if tol and abs(x - y) <= tol * max(1.0, abs(x), abs(y)):
            continue
        return f"array {i} component {e}: weft {x!r}, warp {y!r}"
    if len(ours) != len(theirs):
        return f"array {i}: weft has {len(ours)} components, warp {len(theirs)}"
    return None


def read_back(a, t):
    """An array's elements after a launch, flattened to scalar components."""
    a = getattr(a, "base_array", a)
    data = a.numpy()
    s = t._wp_scalar_type_ if is_composite(t) else t
    if BFLOAT16 is not None and s is BFLOAT16:  # raw bits from Warp
        data = (data.astype(np.uint32) << 16).view(np.float32)
    return data.flatten().tolist()


def find_kernel(module, name):
    """The kernel weft's run `name` stands for (by attribute, function name or key) and its overload key or None."""
    base, key = name, None
    if name.endswith("]") and "[" in name:
        base, key = name[: name.index("[")], name[name.index("[") + 1 : -1]
    kernel = getattr(module, base, None)
    if not isinstance(kernel, wp.Kernel):
        kernel = next((k for k in vars(module).values()
                       if isinstance(k, wp.Kernel) and base in (k.key, k.func.__name__)), None)
    return kernel, key


def object_specs(path):
    """`# objects: NAME=KIND ...` (corpus_runs.hpp): {NAME: (KIND, ARRAY, RADIUS)}."""
    out = {}
    with open(path) as f:
        for line in f:
            if not line.startswith("# objects:"):
                continue
            for w in line[len("# objects:"):].split():
                name, kind = w.split("=", 1)
                array, radius = None, None
                if "(" in kind:
                    kind, inner = kind[:-1].split("(", 1)
                    array, radius = inner.split(",")
                    radius = float(radius)
                out[name] = (kind, array, radius)
    return out


def make_object(spec, named_arrays, keep):
    """The Warp object corpus_runs.cpp builds for `spec`; returns its id (kept alive in `keep`)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "geometry"))
    import geometry_inputs as gi

    kind, array, radius = spec

    def mesh(m):
        points, indices = m
        return wp.Mesh(points=wp.array(np.array(points, dtype=np.float32), dtype=wp.vec3, device="cpu"),
                       indices=wp.array(np.array(indices, dtype=np.int32), dtype=wp.int32, device="cpu"))

    if kind in ("sphere", "box", "soup"):
        obj = mesh({"sphere": gi.sphere, "box": gi.box_mesh, "soup": gi.soup}[kind]())
    elif kind == "soup_bvh":
        points, indices = gi.soup()
        tri = np.array(points, dtype=np.float32)[np.array(indices).reshape(-1, 3)]
        obj = wp.Bvh(wp.array(tri.min(axis=1), dtype=wp.vec3, device="cpu"),
                     wp.array(tri.max(axis=1), dtype=wp.vec3, device="cpu"))
    elif kind == "hash_grid":
        obj = wp.HashGrid(16, 16, 16, device="cpu")
        obj.build(named_arrays[array], radius)
    else:
        raise ValueError("unknown object kind " + kind)
    keep.append(obj)
    return obj.id


def kernel_inputs(kernel, objects=None, keep=None):
    """The arguments made from `kernel`'s parameter types, and (array, dtype) for each array parameter."""
    args, arrays, named, pending = [], [], {}, []
    for p, var in enumerate(kernel.adj.args):
        seed = p + 2
        if objects and var.label in objects and var.type is wp.uint64:
            pending.append((len(args), var.label))
            args.append(None)
        elif wp.types.is_array(var.type):
            a = array_of(var.type, seed)
            args.append(a)
            arrays.append((a, var.type.dtype))
            named[var.label] = a
        else:
            args.append(value_of(var.type, seed, 0))
    for position, name in pending:
        args[position] = make_object(objects[name], named, keep)
    return args, arrays


def run_module(suite, path, scratch):
    out = os.path.join(scratch, os.path.basename(path) + ".json")
    subprocess.run([suite, "run", path, out], check=True, capture_output=True)
    with open(out) as f:
        weft_runs = json.load(f)
    spec = importlib.util.spec_from_file_location("corpus_" + os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    results = []
    next_overload = {}
    for run in weft_runs:
        name = run["kernel"]
        if run["error"]:
            results.append((name, "not compared", "weft: " + run["error"].splitlines()[0][:120]))
            continue
        kernel, key = find_kernel(module, name)
        if kernel is None:
            results.append((name, "not compared", "no kernel of that name in Warp's module"))
            continue
        if kernel.is_generic:
            overloads = kernel.overloads
            if key is None:
                # weft's runs give the instance: its wp.overload declarations in source order, as Warp's.
                n = run.get("instance", next_overload.get(kernel, 0))
                next_overload[kernel] = n + 1
                name = "%s#%d" % (name, n)
                key = list(overloads)[n] if n < len(overloads) else None
            if key not in overloads:
                results.append((name, "not compared", "no such overload in Warp's module"))
                continue
            kernel = overloads[key]
        keep = []
        args, arrays = kernel_inputs(kernel, object_specs(path), keep)
        try:
            if run.get("block_dim"):  # a tile kernel: its grid counts blocks
                wp.launch_tiled(kernel, dim=tuple(run["dim"]), inputs=args, block_dim=run["block_dim"], device="cpu")
            else:
                wp.launch(kernel, dim=tuple(run["dim"]), inputs=args, device="cpu")
            wp.synchronize_device("cpu")
        except Exception as e:  # Warp rejects the kernel or the launch
            results.append((name, "warp error", str(e).splitlines()[0][:160]))
            continue
        problem = None
        for i, ((a, t), ours) in enumerate(zip(arrays, run["arrays"])):
            if ours is None:
                continue
            problem = compare(name, i, t, ours, read_back(a, t))
            if problem:
                break
        results.append((name, "differs" if problem else "agrees", problem or ""))
    return results


def main():
    if len(sys.argv) < 3:
        print(__doc__ or "usage: diff_corpus.py KERNEL_SUITE FILE.py ...")
        return 2
    suite, files = sys.argv[1], sys.argv[2:]
    counts = {}
    failed = False
    scratch = tempfile.mkdtemp(prefix="weft_warp_diff_")
    for path in files:
        try:
            results = run_module(suite, path, scratch)
        except Exception as e:
            print(f"{os.path.basename(path)}: warp cannot load the module: {str(e).splitlines()[0][:200]}")
            counts["module not loaded"] = counts.get("module not loaded", 0) + 1
            continue
        for name, verdict, detail in results:
            counts[verdict] = counts.get(verdict, 0) + 1
            print(f"{os.path.basename(path)}:{name}: {verdict}" + (f" ({detail})" if detail else ""))
            failed = failed or verdict == "differs"
    print("summary: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
