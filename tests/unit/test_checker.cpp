// The type checker: concrete types on the IR, per construct and per rule.
#include "test_support.hpp"

#include "weft/codegen/build_inputs.hpp"
#include "weft/host/host.hpp"
#include "weft/kernel/frontend.hpp"

#include <catch2/catch.hpp>

using namespace weft;
using namespace weft::kernel;
using weft::test::plugin_dir;
using weft::test::test_host_options;

namespace {

const Registry &core() {
    static const Registry *r = [] {
        auto *reg = new Registry;
        register_core_builtins(*reg);
        return reg;
    }();
    return *r;
}

FrontendResult check(const std::string &text, const Registry &registry = core()) {
    return check_module(SourceFile("test.py", text), registry);
}

ir::Module ok(const std::string &text, const Registry &registry = core()) {
    FrontendResult r = check(text, registry);
    INFO(r.formatted);
    REQUIRE(r.ok());
    return std::move(r.module);
}

/// The first error, as "line:col: message" (and its details, one per line).
std::string first_error(const std::string &text, const Registry &registry = core()) {
    const FrontendResult r = check(text, registry);
    for (const Diagnostic &d : r.diagnostics)
        if (d.severity == Diagnostic::Severity::Error)
            return std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " + d.text();
    return "";
}

const ir::Function &fn(const ir::Module &m, const std::string &name) {
    for (const ir::Function &f : m.functions)
        if (f.name == name) return f;
    FAIL("no function " << name);
    throw 0;
}

std::string local_type(const ir::Function &f, const std::string &name) {
    for (const ir::Variable &v : f.locals)
        if (v.name == name) return v.type.name();
    return "(none)";
}

} // namespace

TEST_CASE("saxpy: parameter types, tid and the bound overloads") {
    const ir::Module m = ok(R"(import warp as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=wp.float32), a: float, n: int):
    i = wp.tid()
    if i < n:
        y[i] = a * x[i] + y[i]
)");
    const ir::Function &k = fn(m, "saxpy");
    CHECK(k.is_kernel);
    REQUIRE(k.params.size() == 4);
    CHECK(k.params[0].type.name() == "array(dtype=float32)");
    CHECK(k.params[2].type.name() == "float32");
    CHECK(k.params[3].type.name() == "int32");
    CHECK(k.uses_tid);
    CHECK(k.tid_dims == 1);
    CHECK(local_type(k, "i") == "int32");
    std::vector<std::string> sigs;
    for (const BuiltinOverload &o : m.references.builtins) sigs.push_back(o.signature());
    CHECK(std::find(sigs.begin(), sigs.end(), "mul(a: float32, b: float32) -> float32") != sigs.end());
    CHECK(std::find(sigs.begin(), sigs.end(), "lt(a: int32, b: int32) -> bool") != sigs.end());
}

TEST_CASE("literals take the type of the other operand") {
    const ir::Module m = ok(R"(import warp as wp
@wp.kernel
def k(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.int64), v: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    x = a[i] * 2.0 + 1
    y = b[i] + 3
    z = v[i] * 2.0
    w = 1.5
    q = 7
    h = 2 * 3
)");
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "x") == "float64");
    CHECK(local_type(k, "y") == "int64");
    CHECK(local_type(k, "z") == "vec3");
    CHECK(local_type(k, "w") == "float32");
    CHECK(local_type(k, "q") == "int32");
    CHECK(local_type(k, "h") == "int32");
}

TEST_CASE("mixed-type arithmetic is an error listing candidates and argument types") {
    const std::string e = first_error(R"(import warp as wp
@wp.kernel
def k(a: float, b: int):
    c = a + b
)");
    CHECK_THAT(e, Catch::StartsWith("4:9: no overload of operator + ('add') matches the argument types (float32, int32)"));
    CHECK_THAT(e, Catch::Contains("add(a: float32, b: float32) -> float32"));
}

TEST_CASE("a failed call prints its candidates one per line") {
    // Issue 15: the candidates were joined by '\n' inside the message, which
    // the formatter escapes, so they printed on one line joined by "\x0A".
    CHECK(check(R"(import warp as wp
@wp.kernel
def k(a: wp.array(dtype=int)):
    z = wp.cross(a[0], a[0])
)").formatted == "test.py:4:9: error: no overload of 'cross' matches the argument types (int32, int32); candidates:\n"
                 "    cross(a: vec3, b: vec3) -> vec3\n"
                 "    cross(a: vec3d, b: vec3d) -> vec3d\n"
                 "    cross(a: vec3h, b: vec3h) -> vec3h\n"
                 "        z = wp.cross(a[0], a[0])\n"
                 "            ^\n");
    const FrontendResult user = check(R"(import warp as wp
@wp.func
def mag(x: float) -> float:
    return x
@wp.func
def mag(v: wp.vec3) -> float:
    return wp.length(v)
@wp.kernel
def k(a: wp.array(dtype=int)):
    y = mag(a[0])
)");
    CHECK(user.formatted == "test.py:10:9: error: no overload of function 'mag' matches the argument types (int32); candidates:\n"
                            "    mag(x: float)  (line 3)\n"
                            "    mag(v: wp.vec3)  (line 6)\n"
                            "        y = mag(a[0])\n"
                            "            ^\n");
    // The message stays one line; the candidates are its details.
    REQUIRE(user.diagnostics.size() == 1);
    CHECK(user.diagnostics[0].message ==
          "no overload of function 'mag' matches the argument types (int32); candidates:");
    CHECK(user.diagnostics[0].details == std::vector<std::string>{"mag(x: float)  (line 3)", "mag(v: wp.vec3)  (line 6)"});
}

TEST_CASE("a newline quoted from the source stays escaped, so it cannot start a line of the report") {
    const FrontendResult r = check(R"(import warp as wp
@wp.kernel(entry_point_abi="warp\ntest.py:1:1: error: forged")
def k(a: wp.array(dtype=float)):
    a[0] = 1.0
)");
    CHECK(r.formatted == "test.py:2:28: error: entry_point_abi must be 'warp' or 'external_constant_params', got "
                         "'warp\\x0Atest.py:1:1: error: forged'\n"
                         "    @wp.kernel(entry_point_abi=\"warp\\ntest.py:1:1: error: forged\")\n"
                         "                               ^\n");
    // So do the details' bytes: only the line breaks between them are real.
    SourceFile f("k.py", "x\n");
    DiagnosticEngine d(f);
    d.error(SourceLocation{1, 1}, "no overload; candidates:", {"f(a: int32)\nk.py:9:9: error: forged", "g\x1B[2J()"});
    CHECK(d.format_all() == "k.py:1:1: error: no overload; candidates:\n"
                            "    f(a: int32)\\x0Ak.py:9:9: error: forged\n"
                            "    g\\x1B[2J()\n"
                            "    x\n"
                            "    ^\n");
}

TEST_CASE("a local's type is fixed by its first assignment") {
    CHECK(first_error(R"(import warp as wp
@wp.kernel
def k(a: float):
    x = 1
    x = a
)") == "5:5: cannot assign 'float32' to 'x', which is int32 (its type is fixed by its first assignment, line 4)");
}

TEST_CASE("i, j = wp.tid() unpacks a 2-D launch index") {
    const ir::Module m = ok(R"(import warp as wp
@wp.kernel
def stencil(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i, j = wp.tid()
    dst[i, j] = 0.25 * (src[i - 1, j] + src[i + 1, j] + src[i, j - 1] + src[i, j + 1])
)");
    const ir::Function &k = fn(m, "stencil");
    CHECK(k.tid_dims == 2);
    CHECK(k.params[0].type.name() == "array(dtype=float32, ndim=2)");
    CHECK(local_type(k, "j") == "int32");
}

TEST_CASE("structs, vectors, matrices and components") {
    const ir::Module m = ok(R"(import warp as wp
@wp.struct
class Body:
    pos: wp.vec3
    mass: float

@wp.kernel
def k(bodies: wp.array(dtype=Body), xf: wp.mat33):
    i = wp.tid()
    b = bodies[i]
    p = xf * b.pos
    d = wp.dot(p, p)
    t = wp.transpose(xf)
    m = wp.identity(n=3, dtype=wp.float32)
    x = p.x + p[1]
    r = xf[0]
    e = xf[1, 2]
    b.mass = b.mass * 2.0
    bodies[i] = b
)");
    REQUIRE(m.structs.size() == 1);
    CHECK(m.structs[0].name == "Body");
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "b") == "Body");
    CHECK(local_type(k, "p") == "vec3");
    CHECK(local_type(k, "d") == "float32");
    CHECK(local_type(k, "t") == "mat33");
    CHECK(local_type(k, "m") == "mat33");
    CHECK(local_type(k, "x") == "float32");
    CHECK(local_type(k, "r") == "vec3");
    CHECK(local_type(k, "e") == "float32");
    CHECK(m.references.structs == std::vector<std::string>{"Body"});
}

TEST_CASE("@wp.func overloads, generic instances and tuple returns") {
    const ir::Module m = ok(R"(import warp as wp
from typing import Any

@wp.func
def twice(x: float) -> float:
    return x * 2.0

@wp.func
def twice(x: int) -> int:
    return x * 2

@wp.func
def first(a: Any, b: Any):
    return a

@wp.func
def divmod2(a: int, b: int):
    return a // b, a % b

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    f = twice(1.5)
    n = twice(i)
    v = first(wp.vec3(1.0, 2.0, 3.0), wp.vec3())
    s = first(f, 2.0)
    q, r = divmod2(i, 3)
    out[i] = f + float(n + q + r) + v.x + s
)");
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "f") == "float32");
    CHECK(local_type(k, "n") == "int32");
    CHECK(local_type(k, "v") == "vec3");
    CHECK(local_type(k, "s") == "float32");
    CHECK(local_type(k, "q") == "int32");
    int first_instances = 0;
    for (const ir::Function &f : m.functions)
        if (f.name == "first") ++first_instances;
    CHECK(first_instances == 2);
    CHECK(fn(m, "divmod2").return_type->name() == "tuple(int32, int32)");
    // Functions come before the kernels that call them.
    CHECK(m.functions.back().name == "k");
}

TEST_CASE("module constants: explicit ones are typed, plain literals convert") {
    const ir::Module m = ok(R"(import warp as wp
N = wp.constant(16)
SCALE = 0.5
UP = wp.constant(wp.vec3(0.0, 1.0, 0.0))
M = 3

@wp.kernel
def k(a: wp.array(dtype=wp.float64)):
    i = wp.tid()
    a[i] = a[i] * SCALE
    n = N * 2
    u = UP * 2.0
    j = i + M
)");
    REQUIRE(m.constants.size() == 4);
    CHECK(m.constants[0].value.type.name() == "int32");
    CHECK(m.constants[0].value.int_components[0] == 16);
    CHECK(m.constants[2].value.type.name() == "vec3");
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "n") == "int32");
    CHECK(local_type(k, "u") == "vec3");
}

TEST_CASE("native types from a plugin: construction, fields, builtins and operators") {
    Host host(test_host_options());
    host.load(plugin_dir("wt_pixel"));
    const ir::Module m = ok(R"(import warp as wp

@wp.kernel
def k(colors: wp.array(dtype=warp_test.Color), px: wp.array(dtype=warp_test.Pixel), img: warp_test.Image):
    i = wp.tid()
    c = warp_test.Color(wp.float32(i), 1.0, 3.0)
    d = warp_test.Color(r=1.0, b=2.0, g=0.5)
    e = warp_test.Color()
    s = wp._test_native_scale(c + d, 2.0)
    s.g = s.r * 0.5
    p = px[i]
    p.color = s
    colors[i] = s
    h = wp._test_image_handle(img)
    idx = wp._test_pixel_index(p)
)",
                            host.registry());
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "c") == "warp_test::Color");
    CHECK(local_type(k, "s") == "warp_test::Color");
    CHECK(local_type(k, "h") == "uint64");
    CHECK(local_type(k, "idx") == "int32");
    std::vector<std::string> types;
    for (const NativeTypeInfo &t : m.references.native_types) types.push_back(t.native_name);
    std::sort(types.begin(), types.end());
    CHECK(types == std::vector<std::string>{"warp_test::Color", "warp_test::Image", "warp_test::Pixel"});
    bool scale = false, plugin_add = false;
    for (const BuiltinOverload &o : m.references.builtins) {
        if (o.name == "_test_native_scale") scale = true;
        if (o.name == "add" && o.owners == std::vector<std::string>{"wt_color"}) plugin_add = true;
    }
    CHECK(scale);
    CHECK(plugin_add);
}

TEST_CASE("native-type errors follow the seed's wording") {
    Host host(test_host_options());
    host.load(plugin_dir("wt_color"));
    const Registry &r = host.registry();
    auto err = [&](const std::string &body) {
        return first_error("import warp as wp\n@wp.kernel\ndef k(img: warp_test.Image):\n" + body, r);
    };
    CHECK(err("    h = img.handle\n") == "4:9: native type 'warp_test::Image' has no exposed field 'handle' (it is opaque)");
    CHECK(err("    x = warp_test.Image(1)\n") == "4:9: native type 'warp_test::Image' only supports default construction");
    CHECK(err("    c = warp_test.Color(1.0, 2.0)\n") ==
          "4:9: native type 'warp_test::Color' aggregate construction is missing fields: b");
    CHECK(err("    c = warp_test.Color(1.0, 2.0, 3.0, 4.0)\n") ==
          "4:9: native type 'warp_test::Color' expects 3 arguments (r, g, b), got 4");
    CHECK(err("    c = warp_test.Color(r=1.0, g=2.0, q=3.0)\n") == "4:39: native type 'warp_test::Color' has no field 'q'");
    CHECK(err("    c = warp_test.Color(1.0, r=1.0, g=2.0, b=3.0)\n") ==
          "4:30: field 'r' of native type 'warp_test::Color' is given twice");
    CHECK(err("    c = warp_test.Color()\n    x = c - c\n").find("no overload of operator - ('sub')") != std::string::npos);
    CHECK(first_error("import warp as wp\nC = wp.constant(warp_test.Image())\n", r) ==
          "2:17: constants of opaque native type 'warp_test::Image' cannot be captured");
}

TEST_CASE("entry-point options are checked in the front end") {
    CHECK(first_error("import warp as wp\n@wp.kernel(entry_point_abi=\"optix\")\ndef k(a: int):\n    pass\n") ==
          "2:28: entry_point_abi must be 'warp' or 'external_constant_params', got 'optix'");
    CHECK(first_error("import warp as wp\n@wp.kernel(entry_point_abi=\"external_constant_params\")\ndef k(a: int):\n    pass\n") ==
          "2:1: entry_point_abi='external_constant_params' requires an explicit enable_backward=False");
    CHECK(first_error("import warp as wp\n@wp.kernel(name=\"not valid\")\ndef k(a: int):\n    pass\n") ==
          "2:17: name= must be a valid C++ identifier, got 'not valid'");
    const ir::Module m = ok("import warp as wp\n@wp.struct\nclass P:\n    x: float\n"
                            "@wp.kernel(enable_backward=False, entry_point_abi=\"external_constant_params\", name=\"raygen\")\n"
                            "def k(p: P):\n    y = p.x\n");
    const ir::Function &k = fn(m, "k");
    CHECK(k.abi == ir::EntryPointAbi::ExternalConstantParams);
    CHECK(k.entry_name == "raygen");
    CHECK_FALSE(k.enable_backward);
    CHECK_FALSE(k.uses_tid);
}

TEST_CASE("control flow: loops, break/continue, while, conditional expressions") {
    const ir::Module m = ok(R"(import warp as wp
@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    total = int(0)
    for j in range(10):
        if j == 3:
            continue
        elif j > 7:
            break
        total += j
    for j in range(2, 10, 2):
        total = total + (j if j < 5 else -j)
    n = int(0)
    while n < 3 and total > 0:
        n += 1
    a[i] = wp.select(total > 0, 0, total) ^ (n << 2)
)");
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "total") == "int32");
    CHECK(local_type(k, "j") == "int32");
}

TEST_CASE("atomics return the old value - len and shape are int32") {
    const ir::Module m = ok(R"(import warp as wp
@wp.kernel
def k(a: wp.array(dtype=float), grid: wp.array2d(dtype=wp.int64)):
    i = wp.tid()
    old = wp.atomic_add(a, 0, 1.0)
    o2 = wp.atomic_max(grid, i, 0, 5)
    n = len(a)
    w = grid.shape[1]
    wp.expect_eq(n, n)
    wp.expect_near(old, old, 0.001)
    print("value", old, n)
)");
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "old") == "float32");
    CHECK(local_type(k, "o2") == "int64");
    CHECK(local_type(k, "n") == "int32");
    CHECK(local_type(k, "w") == "int32");
}

TEST_CASE("unsupported and invalid constructs say what is wrong") {
    CHECK(first_error("import warp as wp\n@wp.func\ndef f(x: int) -> int:\n    return f(x)\n") ==
          "4:12: recursion is not supported in kernels: f -> f");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: int):\n    return a\n") == "4:12: kernels cannot return a value");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: int):\n    break\n") == "4:5: 'break' outside a loop");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: float):\n    b = wp.sqrt(a=a)\n") ==
          "4:17: no parameter list of 'sqrt' takes these arguments (keyword 'a'): sqrt(x)");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: float):\n    b = wp.nope(a)\n") ==
          "4:9: unknown function 'nope'");
    CHECK(first_error("import warp as wp\nclass C:\n    x: int\n") ==
          "2:1: class 'C': classes other than @wp.struct are not supported in kernels");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    x = a[0, 1]\n") ==
          "4:9: array of 1 dimension indexed with 2 indexes: give at most 1 (fewer give a view of the remaining "
          "dimensions)");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    x = a[1.5]\n") ==
          "4:11: index must be an integer, got 'float32'");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: wp.vector3):\n    pass\n") == "3:10: unknown type 'wp.vector3'");
    CHECK(first_error("import warp as wp\ndef host():\n    pass\n") ==
          "2:1: function 'host' has no @wp.func or @wp.kernel decorator; host code is not supported in a kernel module");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: int):\n    i, j, k2, l, m = wp.tid()\n") ==
          "4:5: tid() unpacks into 1 to 4 values, not 5");
}

TEST_CASE("several independent errors are all reported, with source line and caret") {
    const FrontendResult r = check(R"(import warp as wp
@wp.kernel
def k(a: float):
    x = undefined_name
    y = a + 1
    z = wp.nope(a)
    w = a[0]
)");
    CHECK_FALSE(r.ok());
    std::vector<std::uint32_t> lines;
    for (const Diagnostic &d : r.diagnostics)
        if (d.severity == Diagnostic::Severity::Error) lines.push_back(d.location.line);
    CHECK(lines == std::vector<std::uint32_t>{4, 6, 7});
    CHECK_THAT(r.formatted, Catch::Contains("test.py:4:9: error: name 'undefined_name' is not defined\n        x = undefined_name\n            ^"));
}

TEST_CASE("the referenced contracts feed the module hash - unreferenced plugins change nothing") {
    Host host(test_host_options());
    host.load(plugin_dir("wt_color"));
    const std::string uses = "import warp as wp\n@wp.kernel\ndef k(c: wp.array(dtype=warp_test.Color)):\n"
                             "    i = wp.tid()\n    c[i] = wp._test_native_scale(c[i], 2.0)\n";
    const std::string plain = "import warp as wp\n@wp.kernel\ndef k(c: wp.array(dtype=float)):\n"
                              "    i = wp.tid()\n    c[i] = c[i] * 2.0\n";
    auto inputs = [](const ir::Module &module) {
        ModuleHashInputs in = codegen::contract_inputs(module);
        in.runtime_header_digest = "rt";
        in.toolchain = "clang";
        return in;
    };
    const ModuleHashInputs a = inputs(ok(uses, host.registry()));
    const ModuleHashInputs b = inputs(ok(plain, host.registry()));
    REQUIRE(a.referenced_native_types.size() == 1);
    CHECK(a.referenced_native_types[0].native_name == "warp_test::Color");
    ModuleSettings &m = host.module("m");
    CHECK(m.hash(a) != m.hash(b));

    // The same plain module under a registry without wt_color hashes alike.
    const ModuleHashInputs b2 = inputs(ok(plain));
    CHECK(m.hash(b) == m.hash(b2));
}

TEST_CASE("tuple assignment evaluates every value first - wp.pi and friends - qualified builtins beat locals") {
    const ir::Module m = ok(R"(import warp as wp
TWO_PI = 2.0 * wp.pi

@wp.func
def ordered(a: float, b: float):
    x = a
    y = b
    if x > y:
        x, y = y, x
    return x, y

@wp.kernel
def k(out: wp.array(dtype=float)):
    i = wp.tid()
    length = wp.length(wp.vec3(1.0, 2.0, 2.0))
    lo, hi = ordered(length, wp.pi)
    out[i] = lo + hi * TWO_PI + wp.tau
)");
    const ir::Function &f = fn(m, "ordered");
    // The swap is one Unpack of a tuple built from both old values.
    const ir::Stmt &swap = *f.body[2]->body[0];
    CHECK(swap.kind == ir::Stmt::Kind::Unpack);
    CHECK(swap.targets.size() == 2);
    CHECK(swap.value->type.name() == "tuple(float32, float32)");
    CHECK(m.constants[0].value.components[0] == Approx(2.0 * 3.14159265358979));
    CHECK(local_type(fn(m, "k"), "length") == "float32");
}

TEST_CASE("a failed first assignment does not cascade into 'not defined' errors") {
    const FrontendResult r = check("import warp as wp\n@wp.kernel\ndef k(a: float):\n    x = nope(a)\n    y = x + 1.0\n    z = x * x\n");
    std::size_t errors = 0;
    for (const Diagnostic &d : r.diagnostics) errors += d.severity == Diagnostic::Severity::Error;
    CHECK(errors == 1);
}

TEST_CASE("review fixes: generic arrays, fields named shape, -> None, identity(n, dtype), literal ranges") {
    const ir::Module m = ok(R"(import warp as wp
from typing import Any

@wp.func
def first(a: wp.array(dtype=Any)):
    return a[0]

@wp.func
def twice(x: float):
    return x * 2.0

@wp.func
def twice(x: Any):
    return x

@wp.struct
class Grid:
    shape: wp.vec3i

@wp.func
def store(a: wp.array(dtype=float), i: int, x: float) -> None:
    a[i] = x

MASK = (1 << 8) - 1
BIG = 3000000000

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=int), g: Grid):
    i = wp.tid()
    x = first(a)
    y = first(b)
    t = twice(x)
    n = g.shape[0] * g.shape.y
    mat = wp.identity(3, wp.float64)
    u: wp.uint32 = 4294967295
    h = u ^ 0x9E3779B9
    w = wp.max(0.0, 1)
    big = BIG
    store(a, i, w + float(MASK))
)");
    const ir::Function &k = fn(m, "k");
    CHECK(local_type(k, "x") == "float32");
    CHECK(local_type(k, "y") == "int32");
    CHECK(local_type(k, "n") == "int32");
    CHECK(local_type(k, "mat") == "mat33d");
    CHECK(local_type(k, "h") == "uint32");
    CHECK(local_type(k, "w") == "float32");
    CHECK(local_type(k, "big") == "int64");
    CHECK(m.constants[0].value.int_components[0] == 255);
    CHECK_FALSE(fn(m, "store").return_type.has_value());
    // The concrete overload wins over the generic one.
    CHECK(fn(m, "twice").params[0].type.name() == "float32");

    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: int):\n    u: wp.uint32 = -1\n") ==
          "4:5: cannot assign 'integer literal -1' to 'u', declared uint32");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: int):\n    v = wp.vec3()\n    q = v[3]\n") ==
          "5:11: index 3 is out of range for 'vec3' (-3 to 2)");
    CHECK(first_error("import warp as wp\n@wp.kernel\ndef k(a: int):\n    m = wp.identity(3, 1.0, 7, a)\n") ==
          "4:9: identity() takes 2 arguments (n, dtype), got 4");
    CHECK(first_error("import warp as wp\n@wp.func\ndef f(x: int) -> None:\n    return x\n") ==
          "4:12: function 'f' is declared '-> None' but returns a value");
}

TEST_CASE("a UTF-8 byte-order mark at the start is not source") {
    ok("\xEF\xBB\xBFimport warp as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[wp.tid()] = 1.0\n");
}

TEST_CASE("a function's tid() unpacking must agree with the kernel's") {
    CHECK(first_error("import warp as wp\n@wp.func\ndef idx2():\n    i, j = wp.tid()\n    return i\n"
                      "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    i = wp.tid()\n    a[i] = float(idx2())\n") ==
          "9:18: function 'idx2' unpacks tid() into 2 values but 'k' into 1");
}
