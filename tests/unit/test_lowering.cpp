// The IR as a code generator needs it: the defects a review found in the typed
// IR (each a regression test), the lowered form's rules, layouts, and the
// verifier and printer.
#include "weft/kernel/frontend.hpp"
#include "weft/kernel/lower.hpp"

#include <catch2/catch.hpp>

#include <functional>

using namespace weft;
using namespace weft::kernel;

namespace {

const Registry &core() {
    static const Registry *r = [] {
        auto *reg = new Registry;
        register_core_builtins(*reg);
        return reg;
    }();
    return *r;
}

FrontendResult check(const std::string &text) { return check_module(SourceFile("lowering.py", text), core()); }

ir::Module lowered(const std::string &text) {
    FrontendResult r = check(text);
    INFO(r.formatted);
    REQUIRE(r.ok());
    lower(r.module);
    const std::vector<std::string> problems = verify_lowered(r.module);
    INFO(print_ir(r.module));
    for (const std::string &p : problems) INFO(p);
    REQUIRE(problems.empty());
    return std::move(r.module);
}

std::vector<std::string> errors(const std::string &text) {
    std::vector<std::string> out;
    for (const Diagnostic &d : check(text).diagnostics)
        if (d.severity == Diagnostic::Severity::Error)
            out.push_back(std::to_string(d.location.line) + ":" + std::to_string(d.location.column) + ": " + d.message);
    return out;
}

const ir::Function &fn(const ir::Module &m, const std::string &name) {
    for (const ir::Function &f : m.functions)
        if (f.name == name) return f;
    FAIL("no function " << name);
    throw 0;
}

/// Every expression of a function, statements in order, operands before their user.
void each_expr(const std::vector<ir::StmtPtr> &body, const std::function<void(const ir::Expr &)> &visit) {
    std::function<void(const ir::Expr &)> walk = [&](const ir::Expr &e) {
        for (const ir::ExprPtr &a : e.args) walk(*a);
        visit(e);
    };
    for (const ir::StmtPtr &s : body) {
        for (const ir::Expr *e : {s->target.get(), s->value.get(), s->cond.get()})
            if (e) walk(*e);
        for (const ir::ExprPtr &a : s->args) walk(*a);
        each_expr(s->body, visit);
        each_expr(s->orelse, visit);
    }
}

int calls_of(const ir::Module &m, const std::string &caller, const std::string &callee) {
    int n = 0;
    each_expr(fn(m, caller).body, [&](const ir::Expr &e) {
        if (e.kind == ir::Expr::Kind::Call && m.functions[static_cast<std::size_t>(e.index)].name == callee) ++n;
    });
    return n;
}

std::vector<std::string> intrinsics(const ir::Module &m, const std::string &function) {
    std::vector<std::string> out;
    each_expr(fn(m, function).body, [&](const ir::Expr &e) {
        if (e.kind == ir::Expr::Kind::Intrinsic) out.emplace_back(ir::intrinsic_name(e.intrinsic));
    });
    return out;
}

const char *header = R"(import warp as wp

@wp.func
def g(i: int) -> int:
    return i + 1

)";

} // namespace

TEST_CASE("a chained comparison evaluates each operand once, the last only when the first pair holds") {
    const ir::Module m = lowered(std::string(header) + R"(@wp.kernel
def k(out: wp.array(dtype=int), n: int):
    i = wp.tid()
    if 0 < g(i) < n:
        out[i] = 1
)");
    CHECK(calls_of(m, "k", "g") == 1);
    const std::string ir = print_ir(m);
    // lt(0, g(i)) first; lt(_, n) nested under it: short-circuit, as in Python.
    CHECK_THAT(ir, Catch::Contains("10| _t0 = call wf1g_2i4(i)\n  10| _t1 = lt(0:int32, _t0)\n  10| if _t1:\n    10| _t1 = lt(_t0, n)\n"
                                   "  10| if _t1:\n    11| out[i] <- 1:int32"));
}

TEST_CASE("augmented assignment evaluates its target once - on an array element it is atomic") {
    const ir::Module m = lowered(std::string(header) + R"(@wp.struct
class Acc:
    total: float
    count: int

@wp.kernel
def k(a: wp.array(dtype=float), b: wp.array(dtype=int), v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22)):
    i = wp.tid()
    a[g(i)] += 1.0
    b[i] -= 2
    v[i] += wp.vec3(1.0, 2.0, 3.0)
    m[i] += wp.mat22(1.0, 0.0, 0.0, 1.0)
    x = 1.0
    x += 2.0
    s = Acc()
    s.count += 1
    w = wp.vec3()
    w[0] += 2.0
    w.y -= 1.0
)");
    CHECK(calls_of(m, "k", "g") == 1);
    // Array elements of scalar and vector dtype: atomics (Warp's documented semantics).
    CHECK(intrinsics(m, "k") == std::vector<std::string>{"tid", "atomic_add", "atomic_sub", "atomic_add"});
    const std::string ir = print_ir(m);
    // A matrix element has no atomic: load, add, store. Locals, fields and components stay plain.
    CHECK_THAT(ir, Catch::Contains("= m[i]\n") && Catch::Contains("m[i] <- "));
    CHECK_THAT(ir, Catch::Contains("x = add(x, 2.0:float32)"));
    CHECK_THAT(ir, Catch::Contains("= s.count\n") && Catch::Contains("s.count <- "));
    CHECK_THAT(ir, Catch::Contains("w[0:int32] <- ") && Catch::Contains("w.y <- "));
}

TEST_CASE("a subscript store evaluates the value first, then the index, each once") {
    const ir::Module m = lowered(std::string(header) + R"(@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    a[g(i)] = g(i + 1)
)");
    CHECK(calls_of(m, "k", "g") == 2);
    const std::string ir = print_ir(m);
    CHECK(ir.find("call wf1g_2i4(_t0)") < ir.find("call wf1g_2i4(i)"));
}

TEST_CASE("generic builtins are intrinsics - strings are string literals - void calls have a void type") {
    FrontendResult r = check(R"(import warp as wp
@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    print("value", a[i])
    wp.expect_eq(a[i], 1.0)
)");
    REQUIRE(r.ok());
    const ir::Function &k = fn(r.module, "k");
    const ir::Expr &tid = *k.body[0]->value;
    CHECK(tid.kind == ir::Expr::Kind::Intrinsic);
    CHECK(tid.intrinsic == ir::Intrinsic::Tid);
    const ir::Expr &print = *k.body[1]->value;
    CHECK(print.intrinsic == ir::Intrinsic::Print);
    CHECK(print.type.is_void());
    CHECK(print.args[0]->kind == ir::Expr::Kind::String);
    CHECK(print.args[0]->type.kind() == Type::Kind::String);
    CHECK(print.args[0]->name == "value");
    CHECK(k.body[2]->value->intrinsic == ir::Intrinsic::ExpectEq);
    CHECK(k.body[2]->value->type.is_void());
}

TEST_CASE("integer constants are exact for every scalar type, uint64 included") {
    FrontendResult r = check(R"(import warp as wp
FNV_OFFSET = wp.constant(wp.uint64(0xcbf29ce484222325))
TOP = 18446744073709551615
LOW = -9223372036854775808

@wp.kernel
def k(out: wp.array(dtype=wp.uint64)):
    h = wp.uint64(0xcbf29ce484222325)
    out[0] = h ^ FNV_OFFSET
    x: wp.uint64 = 0xffffffffffffffff
    out[1] = x
)");
    INFO(r.formatted);
    REQUIRE(r.ok());
    REQUIRE(r.module.constants.size() == 3);
    const ir::ConstantValue &fnv = r.module.constants[0].value;
    CHECK(fnv.type.name() == "uint64");
    CHECK(ir::to_string(fnv.int_components[0]) == "14695981039346656037");
    CHECK(r.module.constants[1].value.type.name() == "uint64");
    CHECK(ir::to_string(r.module.constants[1].value.int_components[0]) == "18446744073709551615");
    CHECK(r.module.constants[2].value.type.name() == "int64");
    CHECK(ir::to_string(r.module.constants[2].value.int_components[0]) == "-9223372036854775808");
    // A uint64-sized literal converts to uint64 only.
    CHECK_THAT(errors("import warp as wp\n@wp.kernel\ndef k():\n    x: wp.int64 = 0xcbf29ce484222325\n")[0],
               Catch::Contains("cannot assign 'integer literal 14695981039346656037' to 'x', declared int64"));
}

TEST_CASE("constant folding reports overflow and division by zero instead of crashing or wrapping") {
    auto folding = [](const std::string &expr) {
        const std::vector<std::string> e = errors("X = " + expr + "\n");
        return e.empty() ? std::string("ok") : e[0];
    };
    CHECK(folding("(-2**63) // -1") ==
          "1:6: integer overflow in a constant expression: -9223372036854775808 // -1 = 9223372036854775808 does not fit int64");
    CHECK(folding("(-2**63) % -1") == "ok"); // 0, as in Python
    CHECK(folding("2**63-1 + 1") ==
          "1:5: integer overflow in a constant expression: 9223372036854775807 + 1 = 9223372036854775808 does not fit int64");
    CHECK(folding("-(-2**63)") ==
          "1:5: integer overflow in a constant expression: -(-9223372036854775808) = 9223372036854775808 does not fit int64");
    CHECK_THAT(folding("3**100"), Catch::StartsWith("1:5: integer overflow in a constant expression: 3 ** 100"));
    CHECK(folding("1 // 0") == "1:5: division by zero in a constant expression: 1 // 0");
    CHECK(folding("7 % 0") == "1:5: division by zero in a constant expression: 7 % 0");
    CHECK(folding("1.0 / 0") == "1:5: division by zero in a constant expression");
    // Python raises for these; folding them to inf or nan hid the fault.
    CHECK(folding("0 ** -1") ==
          "1:5: division by zero in a constant expression: 0 ** (-1) (zero to a negative power)");
    CHECK(folding("0.0 ** -2") ==
          "1:5: division by zero in a constant expression: 0 ** (-2) (zero to a negative power)");
    CHECK_THAT(folding("(-8.0) ** 0.5"), Catch::StartsWith("1:6: a constant expression has no real value: (-8) ** 0.5"));
    CHECK_THAT(folding("10.0 ** 400"), Catch::StartsWith("1:5: floating-point overflow in a constant expression: 10 ** 400"));
    CHECK(folding("2 ** -1") == "ok");
    CHECK(folding("0 ** 0") == "ok");
    CHECK(folding("1 << 64") == "1:5: integer overflow in a constant expression: 1 << 64 does not fit a 64-bit integer");
    CHECK(folding("1 << -1") == "1:5: negative shift count in a constant expression: 1 << -1");
    CHECK(folding("-7 // 2") == "ok");
    FrontendResult r = check("X = -7 // 2\nY = -7 % 2\nZ = 2**40\n");
    REQUIRE(r.ok());
    CHECK(ir::to_string(r.module.constants[0].value.int_components[0]) == "-4");
    CHECK(ir::to_string(r.module.constants[1].value.int_components[0]) == "1");
    CHECK(r.module.constants[2].value.type.name() == "int64");
}

TEST_CASE("mangled names are unique by construction") {
    FrontendResult r = check(R"(import warp as wp
from typing import Any

@wp.func
def f(x: Any):
    return x

@wp.func
def f_i4(x: int):
    return x

@wp.func
def f_2i4(x: int):
    return x

@wp.kernel
def k():
    a = f(1)
    b = f_i4(2)
    c = f_2i4(3)
)");
    INFO(r.formatted);
    REQUIRE(r.ok());
    std::vector<std::string> names;
    for (const ir::Function &f : r.module.functions) names.push_back(f.mangled_name);
    std::sort(names.begin(), names.end());
    CHECK(std::adjacent_find(names.begin(), names.end()) == names.end());
    CHECK(ir::mangle_function("f", {Type::scalar(Scalar::Int32)}) != ir::mangle_function("f_i4", {}));
    CHECK(ir::mangle_function("f", {Type::scalar(Scalar::Int32)}) == "wf1f_2i4");
    CHECK(ir::mangle_function("f_2i4", {}) == "wf5f_2i4");
}

TEST_CASE("one literal rule: f(300) with an int8 parameter is an error, not a second instance") {
    const std::string source = R"(import warp as wp
@wp.func
def f(x: wp.int8):
    return x

@wp.kernel
def k():
    a = f(3)
    b = f(300)
)";
    const std::vector<std::string> e = errors(source);
    REQUIRE(e.size() == 1);
    CHECK_THAT(e[0], Catch::StartsWith("9:9: no overload of function 'f' matches the argument types (int literal)"));
    FrontendResult r = check(source);
    CHECK(std::count_if(r.module.functions.begin(), r.module.functions.end(),
                        [](const ir::Function &f) { return f.name == "f"; }) == 1);
}

TEST_CASE("deep call chains are bounded with a clear error instead of overflowing the stack") {
    std::string source = "import warp as wp\n";
    const int n = 2500;
    for (int i = 1; i <= n; ++i) { // f1 calls f2, defined after it: instantiation nests
        source += "@wp.func\ndef f" + std::to_string(i) + "(x: int) -> int:\n    return ";
        source += i == n ? "x\n" : "f" + std::to_string(i + 1) + "(x)\n";
    }
    source += "@wp.kernel\ndef k(out: wp.array(dtype=int)):\n    out[0] = f1(1)\n";
    const std::vector<std::string> e = errors(source);
    REQUIRE_FALSE(e.empty());
    CHECK_THAT(e[0], Catch::Contains("@wp.func calls nest more than 64 deep"));
}

TEST_CASE("the module records its source path for #line") {
    const FrontendResult r = check_module(SourceFile("/kernels/sim.py", "X = 1\n"), core());
    CHECK(r.module.source_path == "/kernels/sim.py");
    CHECK(r.module.name == "sim");
}

TEST_CASE("layouts: C rules for structs and tuples, the 64-byte array view") {
    FrontendResult r = check(R"(import warp as wp
@wp.struct
class Mixed:
    tag: wp.uint8
    weight: float
    dir: wp.vec3
    mass: wp.float64
    grid: wp.array(dtype=float)

@wp.struct
class Outer:
    flag: bool
    inner: Mixed
)");
    INFO(r.formatted);
    REQUIRE(r.ok());
    const Type &mixed = r.module.structs[0].type;
    std::vector<std::uint64_t> offsets;
    for (const auto &f : mixed.layout().fields) offsets.push_back(f.offset);
    CHECK(offsets == std::vector<std::uint64_t>{0, 4, 8, 24, 32});
    CHECK(mixed.size() == 96);
    CHECK(mixed.alignment() == 8);
    const Type &outer = r.module.structs[1].type;
    CHECK(outer.layout().fields[1].offset == 8);
    CHECK(outer.size() == 104);
    const Type arr = Type::array(Type::scalar(Scalar::Float32), 2);
    CHECK(arr.size() == ArrayViewLayout::size);
    CHECK(arr.alignment() == 8);
    const Type tuple = Type::tuple({Type::scalar(Scalar::Float32), Type::scalar(Scalar::Float64), Type::scalar(Scalar::Int8)});
    CHECK(tuple.size() == 24);
    CHECK(tuple_offsets(tuple) == std::vector<std::uint64_t>{0, 8, 16});
    CHECK(Type::vector(Scalar::Float32, 3).size() == 12);
    CHECK(Type::quaternion(Scalar::Float64).alignment() == 8);
    CHECK(Type::void_type().size() == 0);
}

TEST_CASE("lowering: while conditions re-evaluated each iteration - and/or and if-expressions short-circuit") {
    const ir::Module m = lowered(std::string(header) + R"(@wp.kernel
def k(out: wp.array(dtype=int), n: int):
    i = wp.tid()
    j = 0
    while g(j) < n:
        j = j + 1
    flag = i > 0 and g(i) > 2
    either = i == 0 or g(i) == 5
    y = g(i) if flag else 0
    out[i] = j + y
)");
    const std::string ir = print_ir(m);
    CHECK_THAT(ir, Catch::Contains("11| while True:bool:\n    11| _t0 = call wf1g_2i4(j)\n    11| _t1 = lt(_t0, n)\n"
                                   "    11| _t2 = not _t1\n    11| if _t2:\n      11| break\n    12| j = add(j, 1:int32)"));
    CHECK_THAT(ir, Catch::Contains("13| _t3 = gt(i, 0:int32)\n  13| if _t3:\n    13| _t4 = call wf1g_2i4(i)\n"
                                   "    13| _t3 = gt(_t4, 2:int32)\n  13| flag = _t3"));
    CHECK_THAT(ir, Catch::Contains("14| _t6 = not _t5\n  14| if _t6:\n    14| _t7 = call wf1g_2i4(i)\n"
                                   "    14| _t5 = eq(_t7, 5:int32)\n  14| either = _t5"));
    CHECK_THAT(ir, Catch::Contains("15| if flag:\n    15| _t8 = call wf1g_2i4(i)\n  15| else:\n    15| _t8 = 0:int32"));
    // Each g call sits in the branch that needs it.
    CHECK(calls_of(m, "k", "g") == 4);
    for (const ir::StmtPtr &s : fn(m, "k").body) CHECK(s->kind != ir::Stmt::Kind::AugAssign);
}

TEST_CASE("the verifier rejects IR that breaks the lowered form") {
    FrontendResult r = check(std::string(header) + R"(@wp.kernel
def k(a: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = g(i) + 1
)");
    REQUIRE(r.ok());
    const std::vector<std::string> typed = verify_lowered(r.module);
    REQUIRE_FALSE(typed.empty());
    CHECK(typed[0] == "module 'lowering' is not lowered");
    // The typed store's value is a nested call: not an atom.
    CHECK(std::find(typed.begin(), typed.end(),
                    "function 'wk1k', statement at 10:5: a stored value is not an atom (a builtin call expression)") !=
          typed.end());
    lower(r.module);
    CHECK(verify_lowered(r.module).empty());
    // Plant a type error: the verifier names it.
    r.module.functions.back().body.back()->value->type = Type::scalar(Scalar::Float32);
    const std::vector<std::string> broken = verify_lowered(r.module);
    REQUIRE_FALSE(broken.empty());
    CHECK_THAT(broken[0], Catch::Contains("used as float32 but declared int32"));
}

TEST_CASE("a call chain deeper than the C++ template depth is a front-end error, so check and build agree") {
    // 1,100 chained @wp.func passed `weft check` and failed in Clang with
    // "recursive template instantiation exceeded maximum depth of 1024".
    auto chain = [](int n) {
        std::string s = "import warp as wp\n\n@wp.func\ndef f0(x: float) -> float:\n    return x\n\n";
        for (int i = 1; i < n; ++i)
            s += "@wp.func\ndef f" + std::to_string(i) + "(x: float) -> float:\n    return f" + std::to_string(i - 1) +
                 "(x) + 1.0\n\n";
        return s + "@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = f" + std::to_string(n - 1) + "(a[0])\n";
    };
    CHECK(errors(chain(1000)).empty());
    const std::vector<std::string> e = errors(chain(1001));
    REQUIRE(e.size() == 1);
    CHECK_THAT(e[0], Catch::EndsWith("kernel 'k' calls @wp.func functions 1001 deep (k -> f1000 -> f999 -> ... -> f0); "
                                     "at most 1000: each call is one level of C++ template instantiation"));
}
