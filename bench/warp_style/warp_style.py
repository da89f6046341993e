# How much Warp-style code weft runs: every program of bench/warp_style/<family>/
# in warp-lang (the ground truth: each must compile and launch there), then
# `weft check`, then every kernel launched in weft by `kernel_suite run` and its
# arrays compared with warp-lang's on the same inputs (the input rules and the
# comparison are tests/warp_semantics/diff_corpus.py's).
#
#   warp_style.py BUILD_DIR [FILE.py ...]   (default: every program of the set)
#   warp_style.py --warp-only [FILE.py ...] (only check that warp-lang runs them)
#
# Prints one line per program, a table per family, then `ratio warp_style_<family>
# <fraction>` and `ratio warp_style_all <fraction>`: the fraction of the set's
# valid programs that weft accepts, runs and agrees on. Programs warp-lang
# cannot run are set defects: reported, not counted.
import ast
import glob
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DIFF_CORPUS = os.path.join(ROOT, "tests", "warp_semantics", "diff_corpus.py")
TIMEOUT = 300


def first_line(text, prefer=("error",)):
    """The first line of `text` that names an error, else its first non-empty line."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    for l in lines:
        if any(p in l.lower() for p in prefer):
            return l[:200]
    return lines[0][:200] if lines else ""


# ---- Warp's side (in a child process per program: `--warp-side FILE WEFT_JSON|-`) ----


def tid_dims(wp, kernel):
    """How many indices the kernel unpacks from wp.tid() (or a local alias of it): 0 or 1 -> a 1-D launch."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(kernel.func)))
    except (OSError, TypeError, SyntaxError):
        return 1

    def is_warp(node):
        try:
            return eval(ast.unparse(node), kernel.func.__globals__) is wp
        except Exception:
            return False

    aliases = set()
    for node in ast.walk(tree):  # t = wp.tid
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "tid" \
                and is_warp(node.value.value) and isinstance(node.targets[0], ast.Name):
            aliases.add(node.targets[0].id)
    dims = 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            if (isinstance(f, ast.Attribute) and f.attr == "tid" and is_warp(f.value)) or \
                    (isinstance(f, ast.Name) and f.id in aliases):
                t = node.targets[0]
                dims = max(dims, len(t.elts) if isinstance(t, (ast.Tuple, ast.List)) else 1)
    return dims


def uses_tiles(kernel):
    """Whether the kernel calls a tile builtin: a tile kernel, launched tiled (its grid counts blocks)."""
    try:
        return re.search(r"\btile_\w+\(", inspect.getsource(kernel.func)) is not None
    except (OSError, TypeError):
        return False


def warp_side(path, weft_json):
    spec = importlib.util.spec_from_file_location("diff_corpus", DIFF_CORPUS)
    dc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dc)  # imports warp, wp.init()
    wp = dc.wp
    if os.environ.get("WEFT_WARP_STYLE_CACHE"):
        wp.config.kernel_cache_dir = os.environ["WEFT_WARP_STYLE_CACHE"]
    if os.environ.get("WEFT_WARP_STYLE_DEBUG") == "1":  # bounds-checked launches, to validate the set
        wp.config.mode = "debug"
    family = os.path.basename(os.path.dirname(path))
    stem = os.path.basename(path)[:-3]
    out = {"warp": "", "compare": None}
    try:
        spec = importlib.util.spec_from_file_location(f"warp_style_{family}_{stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found = [v for v in vars(module).values() if isinstance(v, wp.Kernel)]
        instances = {id(o) for k in found if k.is_generic for o in k.overloads.values()}
        kernels, seen = [], set()
        for k in found:
            if id(k) not in seen and id(k) not in instances:
                seen.add(id(k))
                kernels.append(k)
        kernels.sort(key=lambda k: k.func.__name__)
        if not kernels:
            raise RuntimeError("no kernels")
        launches = {}  # (id(kernel), overload key or None) -> arrays after the launch
        keep = []  # host objects (`# objects:`) alive until the launches are read back
        for kernel in kernels:
            n = tid_dims(wp, kernel)
            dim = dc.SHAPES[n] if n >= 2 else (64,)
            if kernel.is_generic:
                if not kernel.overloads:
                    raise RuntimeError(f"generic kernel '{kernel.key}' has no overloads")
                targets = list(kernel.overloads.items())
            else:
                targets = [(None, kernel)]
            for key, k in targets:
                args, arrays = dc.kernel_inputs(k, dc.object_specs(path), keep)
                if uses_tiles(kernel):  # weft launches it tiled too (kernel_suite run's block_dim)
                    wp.launch_tiled(k, dim=dim, inputs=args, block_dim=64, device="cpu")
                else:
                    wp.launch(k, dim=dim, inputs=args, device="cpu")
                wp.synchronize_device("cpu")
                launches[(id(kernel), key)] = [(dc.read_back(a, t), t) for a, t in arrays]
    except Exception as e:
        lines = [l.strip() for l in (type(e).__name__ + ": " + str(e)).splitlines() if l.strip()]
        out["warp"] = (lines[0] + (" ... " + lines[-1] if len(lines) > 1 else ""))[:300]
        return out
    if weft_json is None:
        return out
    with open(weft_json) as f:
        runs = json.load(f)
    covered, next_overload = set(), {}
    for run in runs:
        name = run["kernel"]
        if run["error"]:
            out["compare"] = f"kernel {name}: " + first_line(run["error"])
            return out
        kernel, key = dc.find_kernel(module, name)
        if kernel is None:
            out["compare"] = f"weft ran kernel {name}, which Warp's module does not have"
            return out
        if kernel.is_generic and key is None:
            i = next_overload.get(id(kernel), 0)
            next_overload[id(kernel)] = i + 1
            key = list(kernel.overloads)[i] if i < len(kernel.overloads) else None
        if (id(kernel), key) not in launches:
            out["compare"] = f"weft ran kernel {name}, which matches no launch of Warp's"
            return out
        covered.add((id(kernel), key))
        for i, ((theirs, t), ours) in enumerate(zip(launches[(id(kernel), key)], run["arrays"])):
            if ours is None:
                continue
            problem = dc.compare(name, i, t, ours, theirs)
            if problem:
                out["compare"] = f"kernel {name}: {problem}"
                return out
    missing = [f"{k.func.__name__}" + (f"[{key}]" if key else "") for k in kernels
               for key in ([*k.overloads] if k.is_generic else [None]) if (id(k), key) not in covered]
    out["compare"] = f"weft did not run {', '.join(missing)}" if missing else "agrees"
    return out


# ---- the driver ----


def run_program(build, path, scratch, warp_only):
    """One program's row: (status, detail), status one of set-defect, rejected, fails, differs, agrees, valid."""
    env = dict(os.environ, WEFT_PLUGIN_PATH="")
    weft_json = None
    rejected = failed = None
    if not warp_only:
        weft = os.path.join(build, "bin", "weft")
        suite = os.path.join(build, "tests", "tools", "kernel_suite")
        try:
            # `# plugins:` names bundled plugins (the geometry objects' kernels).
            plugins = []
            with open(path) as f:
                for line in f:
                    if line.startswith("# plugins:"):
                        for name in line[len("# plugins:"):].split():
                            plugins += ["--plugin", os.path.join(build, "bundled-plugins", name)]
            r = subprocess.run([weft, "check", path] + plugins, capture_output=True, text=True, timeout=TIMEOUT,
                               env=env)
            if r.returncode != 0:
                rejected = first_line(r.stdout + "\n" + r.stderr) or f"exit {r.returncode}"
        except subprocess.TimeoutExpired:
            rejected = "weft check timed out"
        if rejected is None:
            weft_json = os.path.join(scratch, os.path.basename(os.path.dirname(path)) + "_" + os.path.basename(path) + ".json")
            try:
                r = subprocess.run([suite, "run", path, weft_json], capture_output=True, text=True, timeout=TIMEOUT, env=env)
                if r.returncode != 0:
                    failed = first_line(r.stderr + "\n" + r.stdout) or f"exit {r.returncode}"
            except subprocess.TimeoutExpired:
                failed = "kernel_suite run timed out"
            if failed:
                weft_json = None
    try:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--warp-side", path, weft_json or "-"],
                           capture_output=True, text=True, timeout=TIMEOUT)
        lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
        verdict = json.loads(lines[-1]) if lines else {"warp": "warp-lang crashed: " + first_line(
                                                           r.stdout + "\n" + r.stderr, ("assertion failed", "error")),
                                                       "compare": None}
    except subprocess.TimeoutExpired:
        verdict = {"warp": "warp-lang timed out", "compare": None}
    if verdict["warp"]:
        return "set-defect", "warp-lang: " + verdict["warp"]
    if "Assertion failed" in r.stdout + r.stderr:  # a debug-mode bounds check or assert
        return "set-defect", "warp-lang: " + first_line(r.stdout + "\n" + r.stderr, ("assertion failed",))
    if warp_only:
        return "valid", ""
    if rejected:
        return "rejected", rejected
    if failed:
        return "fails", failed
    if verdict["compare"] == "agrees":
        return "agrees", ""
    if verdict["compare"] and verdict["compare"].startswith("kernel ") and ": array " not in verdict["compare"]:
        return "fails", verdict["compare"]
    return "differs", verdict["compare"] or "no comparison"


def main(argv):
    if len(argv) >= 2 and argv[1] == "--warp-side":
        print(json.dumps(warp_side(argv[2], None if argv[3] == "-" else argv[3])))
        return 0
    warp_only = len(argv) >= 2 and argv[1] == "--warp-only"
    if len(argv) < 2 or (not warp_only and argv[1].startswith("-")):
        print("usage: warp_style.py BUILD_DIR [FILE.py ...] | --warp-only [FILE.py ...]")
        return 2
    build = None if warp_only else os.path.abspath(argv[1])
    files = argv[2:] or sorted(glob.glob(os.path.join(HERE, "*", "*.py")))
    files = [os.path.abspath(f) for f in files]
    with tempfile.TemporaryDirectory(prefix="weft_warp_style_") as scratch:
        os.environ.setdefault("WEFT_WARP_STYLE_CACHE", os.path.join(scratch, "warp-cache"))
        return report(build, files, scratch, warp_only)


def report(build, files, scratch, warp_only):
    rows = {}
    for path in files:
        family = os.path.basename(os.path.dirname(path))
        status, detail = run_program(build, path, scratch, warp_only)
        detail = detail.replace(path, f"{family}/{os.path.basename(path)}")
        rows.setdefault(family, []).append((os.path.basename(path), status, detail))
        print(f"{family}/{os.path.basename(path)}: {status}" + (f" ({detail})" if detail else ""), flush=True)
    defects = sum(s == "set-defect" for r in rows.values() for _, s, _ in r)
    if warp_only:
        print(f"{sum(len(r) for r in rows.values())} programs, {defects} set defects")
        return 1 if defects else 0
    print()
    header = f"{'family':<16} {'programs':>8} {'accepted':>8} {'runs':>5} {'agrees':>6}  {'ratio':>5}"
    print(header)
    print("-" * len(header))
    total = {"valid": 0, "accepted": 0, "runs": 0, "agrees": 0}
    ratios = []
    for family in sorted(rows):
        valid = [s for _, s, _ in rows[family] if s != "set-defect"]
        accepted = sum(s != "rejected" for s in valid)
        runs = sum(s in ("differs", "agrees") for s in valid)
        agrees = sum(s == "agrees" for s in valid)
        for k, v in (("valid", len(valid)), ("accepted", accepted), ("runs", runs), ("agrees", agrees)):
            total[k] += v
        ratio = agrees / len(valid) if valid else 0.0
        ratios.append(f"ratio warp_style_{family} {ratio:.4f}")
        print(f"{family:<16} {len(valid):>8} {accepted:>8} {runs:>5} {agrees:>6}  {ratio:>5.2f}")
    all_ratio = total["agrees"] / total["valid"] if total["valid"] else 0.0
    print(f"{'all':<16} {total['valid']:>8} {total['accepted']:>8} {total['runs']:>5} {total['agrees']:>6}  {all_ratio:>5.2f}")
    if defects:
        print(f"\n{defects} set defects (warp-lang cannot run them; not counted above)")
    print("\nmost common blockers (programs):")
    for family in sorted(rows):
        blockers = {}
        for _, s, d in rows[family]:
            if s in ("rejected", "fails", "differs"):
                key = f"{s}: " + re.sub(r"^\S+?:\d+:\d+: (error: )?", "", d)
                blockers[key] = blockers.get(key, 0) + 1
        for key, n in sorted(blockers.items(), key=lambda kv: -kv[1])[:3]:
            print(f"  {family:<16} {n:>2}  {key[:150]}")
    print()
    for line in ratios:
        print(line)
    print(f"ratio warp_style_all {all_ratio:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
