#include "weft/kernel/diagnostics.hpp"
#include "weft/kernel/parser.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace weft::kernel;
using ast::Expr;
using ast::Stmt;

namespace {

/// A parsed module with the file and diagnostics it refers to.
struct Parsed {
    explicit Parsed(std::string text, std::size_t limit = 50)
        : file("k.py", std::move(text)), diags(file, limit), module(parse_module(file, diags)) {}
    SourceFile file;
    DiagnosticEngine diags;
    ast::Module module;

    std::string errors() const { return diags.format_all(); }
    const ast::FunctionDef &function(std::size_t i = 0) const { return module.functions.at(i); }
    const Stmt &stmt(std::size_t i) const { return *function().body.at(i); }
};

/// The first error whose message contains `fragment`, or null.
const Diagnostic *find_error(const Parsed &p, const std::string &fragment) {
    for (const Diagnostic &d : p.diags.diagnostics())
        if (d.severity == Diagnostic::Severity::Error && d.message.find(fragment) != std::string::npos) return &d;
    return nullptr;
}

std::string at(SourceLocation l) { return std::to_string(l.line) + ":" + std::to_string(l.column); }

/// A compact rendering of an expression tree: (+ 1 (* 2 3)).
std::string sexpr(const Expr &e) {
    auto list = [&](std::string head, std::size_t from) {
        std::string s = "(" + head;
        for (std::size_t i = from; i < e.children.size(); ++i) s += " " + sexpr(*e.children[i]);
        for (const ast::Keyword &k : e.keywords) s += " " + k.name + "=" + sexpr(*k.value);
        return s + ")";
    };
    switch (e.kind) {
    case Expr::Kind::Int:
    case Expr::Kind::Float:
    case Expr::Kind::Name:
    case Expr::Kind::Bool: return e.text;
    case Expr::Kind::String: return "\"" + e.text + "\"";
    case Expr::Kind::Attribute: return "(. " + sexpr(*e.children[0]) + " " + e.text + ")";
    case Expr::Kind::Subscript: return list("[] " + sexpr(*e.children[0]), 1);
    case Expr::Kind::Call: return list("call " + sexpr(*e.children[0]), 1);
    case Expr::Kind::Binary:
    case Expr::Kind::Unary:
    case Expr::Kind::BoolOp: return list(e.text, 0);
    case Expr::Kind::IfExp: return list("if", 0);
    case Expr::Kind::Tuple: return list("tuple", 0);
    case Expr::Kind::Dict: return list("dict", 0);
    case Expr::Kind::List: return list("list", 0);
    case Expr::Kind::Ellipsis: return "...";
    case Expr::Kind::Starred: return list("*", 0);
    case Expr::Kind::Slice: return list("slice" + e.text, 0);
    case Expr::Kind::Compare: {
        std::string s = "(cmp " + sexpr(*e.children[0]);
        for (std::size_t i = 0; i < e.ops.size(); ++i) s += " " + e.ops[i] + " " + sexpr(*e.children[i + 1]);
        return s + ")";
    }
    }
    return "?";
}

/// `X = <source>` at the top level, rendered; "" when it does not parse cleanly.
std::string expr(const std::string &source) {
    Parsed p("X = " + source + "\n");
    if (p.diags.has_errors() || p.module.assignments.size() != 1) return "error: " + p.errors();
    return sexpr(*p.module.assignments[0].value);
}

/// Every error message of `source`, one per line, as "line:col: message".
std::vector<std::string> error_list(const std::string &source) {
    Parsed p(source);
    std::vector<std::string> out;
    for (const Diagnostic &d : p.diags.diagnostics())
        if (d.severity == Diagnostic::Severity::Error) out.push_back(at(d.location) + ": " + d.message);
    return out;
}

/// The one error that `source` gives, as "line:col: message".
std::string only_error(const std::string &source) {
    const std::vector<std::string> errors = error_list(source);
    if (errors.size() != 1) {
        std::string all = std::to_string(errors.size()) + " errors:";
        for (const std::string &e : errors) all += "\n  " + e;
        return all;
    }
    return errors.front();
}

const std::string kernel_example = R"(import warp as wp

@wp.kernel
def integrate(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    """Explicit Euler."""
    tid = wp.tid()
    v[tid] = v[tid] + wp.vec3(0.0, -9.8, 0.0) * dt
    x[tid] = x[tid] + v[tid] * dt
)";

} // namespace

// ---------------------------------------------------------------------------
// SourceFile and diagnostics

TEST_CASE("SourceFile::line gives each line without its newline, and \"\" past the end") {
    SourceFile f("a.py", "one\ntwo\r\n\nlast");
    CHECK(f.line(1) == "one");
    CHECK(f.line(2) == "two");
    CHECK(f.line(3) == "");
    CHECK(f.line(4) == "last");
    CHECK(f.line(5) == "");
    CHECK(f.line(0) == "");
    SourceFile g("b.py", "x\n");
    CHECK(g.line(1) == "x");
    CHECK(g.line(2) == "");
    SourceFile empty("c.py", "");
    CHECK(empty.line(1) == "");
}

TEST_CASE("a diagnostic is formatted as file:line:col, the source line and a caret") {
    SourceFile f("kernels/k.py", "def f():\n    x = 1 +\n");
    DiagnosticEngine d(f);
    d.error(SourceLocation{2, 12}, "expected an expression, found NEWLINE");
    REQUIRE(d.diagnostics().size() == 1);
    CHECK(d.format(d.diagnostics()[0]) ==
          "kernels/k.py:2:12: error: expected an expression, found NEWLINE\n"
          "        x = 1 +\n"
          "               ^");
}

TEST_CASE("the caret copies tabs from the source line") {
    SourceFile f("k.py", "def f():\n\tx =\t$\n");
    DiagnosticEngine d(f);
    d.error(SourceLocation{2, 6}, "invalid character '$'");
    CHECK(d.format(d.diagnostics()[0]) == "k.py:2:6: error: invalid character '$'\n    \tx =\t$\n    \t   \t^");
}

TEST_CASE("format_all joins diagnostics with newlines and ends with one - severities are named") {
    SourceFile f("k.py", "a\nb\n");
    DiagnosticEngine d(f);
    CHECK(d.format_all().empty());
    d.error(SourceLocation{1, 1}, "first");
    d.warning(SourceLocation{2, 1}, "second");
    d.note(SourceLocation{1, 1}, "third");
    CHECK(d.format_all() == "k.py:1:1: error: first\n    a\n    ^\n"
                            "k.py:2:1: warning: second\n    b\n    ^\n"
                            "k.py:1:1: note: third\n    a\n    ^\n");
    CHECK(d.error_count() == 1);
}

TEST_CASE("errors past the limit are dropped - warnings and notes are kept") {
    SourceFile f("k.py", "a\n");
    DiagnosticEngine d(f, 2);
    CHECK_FALSE(d.has_errors());
    d.error(SourceLocation{1, 1}, "e1");
    CHECK_FALSE(d.at_limit());
    d.error(SourceLocation{1, 1}, "e2");
    CHECK(d.at_limit());
    d.error(SourceLocation{1, 1}, "e3");
    d.warning(SourceLocation{1, 1}, "w");
    d.note(SourceLocation{1, 1}, "n");
    CHECK(d.error_count() == 2);
    REQUIRE(d.diagnostics().size() == 4);
    CHECK(d.diagnostics()[1].message == "e2");
    CHECK(d.diagnostics()[2].message == "w");
    CHECK(d.diagnostics()[3].message == "n");
}

TEST_CASE("a parse error formats with the file, the line, the column and a caret under it") {
    Parsed p("import warp as wp\n\ndef f(a):\n    for i in range(3)\n        pass\n");
    CHECK(p.errors() == "k.py:4:22: error: expected ':' after the for clause, found NEWLINE\n"
                        "        for i in range(3)\n"
                        "                         ^\n");
}

// ---------------------------------------------------------------------------
// The top level

TEST_CASE("a Warp kernel parses without errors") {
    Parsed p(kernel_example);
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    REQUIRE(p.module.functions.size() == 1);
    const ast::FunctionDef &f = p.function();
    CHECK(f.name == "integrate");
    CHECK(at(f.location) == "4:1");
    REQUIRE(f.params.size() == 3);
    CHECK(f.params[0].name == "x");
    CHECK(sexpr(*f.params[0].annotation) == "(call (. wp array) dtype=(. wp vec3))");
    CHECK(at(f.params[1].location) == "4:43");
    CHECK(sexpr(*f.params[2].annotation) == "float");
    CHECK(f.returns == nullptr);
    REQUIRE(f.body.size() == 4);
    CHECK(f.body[0]->kind == Stmt::Kind::Expr);
    CHECK(f.body[0]->value->kind == Expr::Kind::String);
    CHECK(f.body[0]->value->text == "Explicit Euler.");
    CHECK(sexpr(*f.body[2]->targets[0]) == "([] v tid)");
    CHECK(sexpr(*f.body[2]->value) == "(+ ([] v tid) (* (call (. wp vec3) 0.0 (- 9.8) 0.0) dt))");
}

TEST_CASE("imports: plain, aliased, dotted, several and from-imports") {
    Parsed p("import warp as wp\nimport warp\nimport typing\nimport os.path, math as m\n"
             "from typing import Any\nfrom warp import vec3 as v3, mat33\nfrom x import (a,\n    b as c,)\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    const auto &imports = p.module.imports;
    REQUIRE(imports.size() == 8);
    CHECK(imports[0].module == "warp");
    CHECK(imports[0].alias == "wp");
    CHECK(imports[0].names.empty());
    CHECK(at(imports[0].location) == "1:8");
    CHECK(imports[1].module == "warp");
    CHECK(imports[1].alias == "warp");
    CHECK(imports[2].module == "typing");
    CHECK(imports[3].module == "os.path");
    CHECK(imports[3].alias == "os.path");
    CHECK(imports[4].module == "math");
    CHECK(imports[4].alias == "m");
    CHECK(imports[5].module == "typing");
    CHECK(imports[5].names == std::vector<std::pair<std::string, std::string>>{{"Any", "Any"}});
    CHECK(imports[6].module == "warp");
    CHECK(imports[6].names ==
          std::vector<std::pair<std::string, std::string>>{{"vec3", "v3"}, {"mat33", "mat33"}});
    CHECK(at(imports[6].location) == "6:6");
    CHECK(imports[7].names == std::vector<std::pair<std::string, std::string>>{{"a", "a"}, {"b", "c"}});
}

TEST_CASE("top-level constants, plain and annotated, and the source order of the items") {
    Parsed p("\"\"\"Module docstring.\"\"\"\nimport warp as wp\nN = wp.constant(3)\n\n@wp.struct\nclass S:\n"
             "    x: float\n\nSCALE: float = 0.5\n\ndef f():\n    pass\nA = B = 2\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    const auto &a = p.module.assignments;
    REQUIRE(a.size() == 4);
    CHECK(a[0].name == "N");
    CHECK(a[0].annotation == nullptr);
    CHECK(sexpr(*a[0].value) == "(call (. wp constant) 3)");
    CHECK(at(a[0].location) == "3:1");
    CHECK(a[1].name == "SCALE");
    CHECK(sexpr(*a[1].annotation) == "float");
    CHECK(a[1].value->kind == Expr::Kind::Float);
    CHECK(a[1].value->float_value == 0.5);
    CHECK(a[2].name == "A");
    CHECK(a[3].name == "B");
    CHECK(sexpr(*a[2].value) == "2");
    CHECK(sexpr(*a[3].value) == "2");
    using Order = std::vector<std::pair<char, std::size_t>>;
    CHECK(p.module.order == Order{{'i', 0}, {'a', 0}, {'c', 0}, {'a', 1}, {'f', 0}, {'a', 2}, {'a', 3}});
}

TEST_CASE("decorators record their name, qualified name, call, keywords and arguments") {
    Parsed p("@wp.kernel\ndef a():\n    pass\n"
             "@wp.kernel(enable_backward=False, entry_point_abi=\"external_constant_params\", name=\"x\")\n"
             "def b():\n    pass\n"
             "@wp.func\ndef c():\n    pass\n"
             "@kernel\ndef d():\n    pass\n"
             "@wp.kernel()\ndef e():\n    pass\n"
             "@warp.context.kernel(1, 2)\ndef g():\n    pass\n"
             "def h():\n    pass\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    REQUIRE(p.module.functions.size() == 7);
    const ast::Decorator &a = p.function(0).decorators.at(0);
    CHECK(a.name == "kernel");
    CHECK(a.qualified == "wp.kernel");
    CHECK_FALSE(a.called);
    CHECK(a.keywords.empty());
    CHECK(at(a.location) == "1:1");

    const ast::Decorator &b = p.function(1).decorators.at(0);
    CHECK(b.name == "kernel");
    CHECK(b.called);
    REQUIRE(b.keywords.size() == 3);
    CHECK(b.keywords[0].name == "enable_backward");
    CHECK(b.keywords[0].value->kind == Expr::Kind::Bool);
    CHECK_FALSE(b.keywords[0].value->bool_value);
    CHECK(at(b.keywords[0].location) == "4:12");
    CHECK(b.keywords[1].name == "entry_point_abi");
    CHECK(b.keywords[1].value->kind == Expr::Kind::String);
    CHECK(b.keywords[1].value->text == "external_constant_params");
    CHECK(b.keywords[2].name == "name");
    CHECK(b.keywords[2].value->text == "x");
    CHECK(b.args.empty());

    CHECK(p.function(2).decorators.at(0).name == "func");
    CHECK(p.function(3).decorators.at(0).name == "kernel");
    CHECK(p.function(3).decorators.at(0).qualified == "kernel");
    CHECK(p.function(4).decorators.at(0).called);
    CHECK(p.function(4).decorators.at(0).keywords.empty());
    const ast::Decorator &g = p.function(5).decorators.at(0);
    CHECK(g.qualified == "warp.context.kernel");
    CHECK(g.name == "kernel");
    REQUIRE(g.args.size() == 2);
    CHECK(g.args[1]->int_value == 2);
    CHECK(p.function(6).decorators.empty());
}

TEST_CASE("function parameters: plain, annotated, with defaults, and the return annotation") {
    Parsed p("def f(a, b: int, c: float = 1.5, d=2,) -> wp.vec3:\n    return a\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    const ast::FunctionDef &f = p.function();
    REQUIRE(f.params.size() == 4);
    CHECK(f.params[0].name == "a");
    CHECK(f.params[0].annotation == nullptr);
    CHECK(f.params[0].default_value == nullptr);
    CHECK(sexpr(*f.params[1].annotation) == "int");
    CHECK(at(f.params[1].location) == "1:10");
    CHECK(sexpr(*f.params[2].default_value) == "1.5");
    CHECK(f.params[3].annotation == nullptr);
    CHECK(sexpr(*f.params[3].default_value) == "2");
    CHECK(sexpr(*f.returns) == "(. wp vec3)");
    CHECK(at(f.returns->location) == "1:43");
}

TEST_CASE("classes: decorators, bases, annotated fields, docstrings and pass") {
    Parsed p("@wp.struct\nclass Particle(Base, wp.Other):\n    \"\"\"doc\"\"\"\n    pos: wp.vec3\n"
             "    mass: float = 1.0\n    pass\nclass Empty:\n    pass\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    REQUIRE(p.module.classes.size() == 2);
    const ast::ClassDef &c = p.module.classes[0];
    CHECK(c.name == "Particle");
    CHECK(at(c.location) == "2:1");
    REQUIRE(c.decorators.size() == 1);
    CHECK(c.decorators[0].name == "struct");
    REQUIRE(c.bases.size() == 2);
    CHECK(sexpr(*c.bases[1]) == "(. wp Other)");
    REQUIRE(c.body.size() == 4);
    CHECK(c.body[0]->kind == Stmt::Kind::Expr);
    CHECK(c.body[1]->kind == Stmt::Kind::AnnAssign);
    CHECK(sexpr(*c.body[1]->targets[0]) == "pos");
    CHECK(sexpr(*c.body[1]->annotation) == "(. wp vec3)");
    CHECK(c.body[1]->value == nullptr);
    CHECK(sexpr(*c.body[2]->value) == "1.0");
    CHECK(c.body[3]->kind == Stmt::Kind::Pass);
    CHECK(p.module.classes[1].bases.empty());
}

// ---------------------------------------------------------------------------
// Statements

TEST_CASE("assignments: tuple unpacking, subscripts with two indices, chains, annotations") {
    Parsed p("def f():\n    i, j = wp.tid()\n    a[i, j] = x\n    a = b = c\n    x: float = 1.0\n    y: int\n"
             "    s.v = (1, 2)\n    (p, q) = r\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    const Stmt &tuple = p.stmt(0);
    CHECK(tuple.kind == Stmt::Kind::Assign);
    REQUIRE(tuple.targets.size() == 1);
    CHECK(tuple.targets[0]->kind == Expr::Kind::Tuple);
    REQUIRE(tuple.targets[0]->children.size() == 2);
    CHECK(tuple.targets[0]->children[1]->text == "j");
    CHECK(at(tuple.targets[0]->children[1]->location) == "2:8");
    CHECK(sexpr(*tuple.value) == "(call (. wp tid))");
    CHECK(at(tuple.location) == "2:5");

    const Stmt &sub = p.stmt(1);
    REQUIRE(sub.targets[0]->kind == Expr::Kind::Subscript);
    CHECK(sub.targets[0]->children.size() == 3);
    CHECK(sexpr(*sub.targets[0]) == "([] a i j)");

    const Stmt &chain = p.stmt(2);
    REQUIRE(chain.targets.size() == 2);
    CHECK(chain.targets[0]->text == "a");
    CHECK(chain.targets[1]->text == "b");
    CHECK(chain.value->text == "c");

    const Stmt &ann = p.stmt(3);
    CHECK(ann.kind == Stmt::Kind::AnnAssign);
    CHECK(ann.targets[0]->text == "x");
    CHECK(ann.annotation->text == "float");
    CHECK(ann.value->float_value == 1.0);
    CHECK(p.stmt(4).kind == Stmt::Kind::AnnAssign);
    CHECK(p.stmt(4).value == nullptr);
    CHECK(sexpr(*p.stmt(5).targets[0]) == "(. s v)");
    CHECK(sexpr(*p.stmt(5).value) == "(tuple 1 2)");
    CHECK(at(p.stmt(5).value->location) == "7:11");
    CHECK(sexpr(*p.stmt(6).targets[0]) == "(tuple p q)");
}

TEST_CASE("augmented assignment keeps the operator without '='") {
    const std::vector<std::string> ops{"+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "@"};
    std::string source = "def f():\n";
    for (const std::string &op : ops) source += "    x " + op + "= 2\n";
    source += "    a[i] += 1\n    s.v -= 1.0\n";
    Parsed p(source);
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    REQUIRE(p.function().body.size() == ops.size() + 2);
    for (std::size_t i = 0; i < ops.size(); ++i) {
        CHECK(p.stmt(i).kind == Stmt::Kind::AugAssign);
        CHECK(p.stmt(i).text == ops[i]);
        CHECK(p.stmt(i).targets.at(0)->text == "x");
        CHECK(p.stmt(i).value->int_value == 2);
    }
    CHECK(sexpr(*p.stmt(ops.size()).targets[0]) == "([] a i)");
    CHECK(p.stmt(ops.size() + 1).text == "-");
}

TEST_CASE("if / elif / else: an elif is an If alone in orelse") {
    Parsed p("def f(x):\n    if x < 0:\n        y = 1\n    elif x == 0:\n        y = 2\n    elif x == 1:\n        pass\n"
             "    else:\n        y = 3\n        y = 4\n    if a: return 1\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    const Stmt &s = p.stmt(0);
    CHECK(s.kind == Stmt::Kind::If);
    CHECK(at(s.location) == "2:5");
    CHECK(sexpr(*s.test) == "(cmp x < 0)");
    REQUIRE(s.body.size() == 1);
    REQUIRE(s.orelse.size() == 1);
    const Stmt &elif1 = *s.orelse[0];
    CHECK(elif1.kind == Stmt::Kind::If);
    CHECK(at(elif1.location) == "4:5");
    CHECK(sexpr(*elif1.test) == "(cmp x == 0)");
    REQUIRE(elif1.orelse.size() == 1);
    const Stmt &elif2 = *elif1.orelse[0];
    CHECK(sexpr(*elif2.test) == "(cmp x == 1)");
    CHECK(elif2.body.at(0)->kind == Stmt::Kind::Pass);
    REQUIRE(elif2.orelse.size() == 2);
    CHECK(elif2.orelse[1]->value->int_value == 4);

    const Stmt &inline_if = p.stmt(1);
    REQUIRE(inline_if.body.size() == 1);
    CHECK(inline_if.body[0]->kind == Stmt::Kind::Return);
    CHECK(inline_if.orelse.empty());
}

TEST_CASE("for, while, break, continue, return and pass") {
    Parsed p("def f(n: int):\n    for i in range(n):\n        if i:\n            continue\n        break\n"
             "    while n > 0:\n        n -= 1\n    return\n    return n, 1\n    pass\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    const Stmt &loop = p.stmt(0);
    CHECK(loop.kind == Stmt::Kind::For);
    REQUIRE(loop.targets.size() == 1);
    CHECK(loop.targets[0]->kind == Expr::Kind::Name);
    CHECK(loop.targets[0]->text == "i");
    CHECK(at(loop.targets[0]->location) == "2:9");
    CHECK(sexpr(*loop.iter) == "(call range n)");
    REQUIRE(loop.body.size() == 2);
    CHECK(loop.body[0]->body.at(0)->kind == Stmt::Kind::Continue);
    CHECK(loop.body[1]->kind == Stmt::Kind::Break);
    CHECK(loop.orelse.empty());

    const Stmt &w = p.stmt(1);
    CHECK(w.kind == Stmt::Kind::While);
    CHECK(sexpr(*w.test) == "(cmp n > 0)");
    CHECK(w.body.at(0)->kind == Stmt::Kind::AugAssign);

    CHECK(p.stmt(2).kind == Stmt::Kind::Return);
    CHECK(p.stmt(2).value == nullptr);
    CHECK(sexpr(*p.stmt(3).value) == "(tuple n 1)");
    CHECK(p.stmt(4).kind == Stmt::Kind::Pass);
    CHECK(at(p.stmt(4).location) == "10:5");
}

TEST_CASE("docstrings and other bare strings stay as expression statements") {
    Parsed p("def f():\n    \"\"\"Doc\n    string.\"\"\"\n    x = 1\n    'note'\n    wp.printf(\"%d\\n\", x)\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    CHECK(p.stmt(0).kind == Stmt::Kind::Expr);
    CHECK(p.stmt(0).value->text == "Doc\n    string.");
    CHECK(p.stmt(2).value->text == "note");
    CHECK(p.stmt(3).kind == Stmt::Kind::Expr);
    CHECK(sexpr(*p.stmt(3).value) == "(call (. wp printf) \"%d\n\" x)");
}

TEST_CASE("semicolons separate simple statements") {
    Parsed p("def f():\n    x = 1; y = 2;\n    z = 3\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    REQUIRE(p.function().body.size() == 3);
    CHECK(at(p.stmt(1).location) == "2:12");
}

// ---------------------------------------------------------------------------
// Expressions

TEST_CASE("binary operator precedence follows Python") {
    CHECK(expr("1 + 2 * 3") == "(+ 1 (* 2 3))");
    CHECK(expr("(1 + 2) * 3") == "(* (+ 1 2) 3)");
    CHECK(expr("1 - 2 - 3") == "(- (- 1 2) 3)");
    CHECK(expr("a / b // c % d @ e") == "(@ (% (// (/ a b) c) d) e)");
    CHECK(expr("a | b ^ c & d << 1") == "(| a (^ b (& c (<< d 1))))");
    CHECK(expr("a << 1 + 2") == "(<< a (+ 1 2))");
    CHECK(expr("a >> b >> c") == "(>> (>> a b) c)");
    CHECK(expr("a & b | c") == "(| (& a b) c)");
}

TEST_CASE("unary operators and the right-associative power") {
    CHECK(expr("-x**2") == "(- (** x 2))");
    CHECK(expr("2**-1") == "(** 2 (- 1))");
    CHECK(expr("a**b**c") == "(** a (** b c))");
    CHECK(expr("-a**-b**c") == "(- (** a (- (** b c))))");
    CHECK(expr("-a * b") == "(* (- a) b)");
    CHECK(expr("~a + +b") == "(+ (~ a) (+ b))");
    CHECK(expr("- - a") == "(- (- a))");
    CHECK(expr("a.b**2") == "(** (. a b) 2)");
}

TEST_CASE("comparisons chain into one Compare - not, and, or and the conditional expression") {
    CHECK(expr("a < b < c") == "(cmp a < b < c)");
    CHECK(expr("a <= b == c != d >= e > f") == "(cmp a <= b == c != d >= e > f)");
    CHECK(expr("a is not b") == "(cmp a is not b)");
    CHECK(expr("a not in b") == "(cmp a not in b)");
    CHECK(expr("a is b in c") == "(cmp a is b in c)");
    CHECK(expr("a + 1 < b * 2") == "(cmp (+ a 1) < (* b 2))");
    CHECK(expr("not a and b") == "(and (not a) b)");
    CHECK(expr("not not a") == "(not (not a))");
    CHECK(expr("not a < b") == "(not (cmp a < b))");
    CHECK(expr("a or b and c") == "(or a (and b c))");
    CHECK(expr("a or b or c") == "(or a b c)");
    CHECK(expr("a and b and c or d") == "(or (and a b c) d)");
    CHECK(expr("a if c else b") == "(if c a b)");
    CHECK(expr("a if c else b if d else e") == "(if c a (if d b e))");
    CHECK(expr("a or b if c and d else e") == "(if (and c d) (or a b) e)");
    CHECK(expr("(a if c else b) + 1") == "(+ (if c a b) 1)");
}

TEST_CASE("the Compare node keeps every operand and operator") {
    Parsed p("X = a < b <= c\n");
    REQUIRE_FALSE(p.diags.has_errors());
    const Expr &e = *p.module.assignments[0].value;
    CHECK(e.kind == Expr::Kind::Compare);
    REQUIRE(e.children.size() == 3);
    CHECK(e.ops == std::vector<std::string>{"<", "<="});
    CHECK(at(e.children[2]->location) == "1:14");
}

TEST_CASE("calls, attributes, subscripts and tuples") {
    CHECK(expr("f()") == "(call f)");
    CHECK(expr("f(1, x, k=2, name=\"s\")") == "(call f 1 x k=2 name=\"s\")");
    CHECK(expr("f(a,)") == "(call f a)");
    CHECK(expr("wp.vec3(1.0, 2.0, 3.0).x") == "(. (call (. wp vec3) 1.0 2.0 3.0) x)");
    CHECK(expr("a.b.c") == "(. (. a b) c)");
    CHECK(expr("a[i][j]") == "([] ([] a i) j)");
    CHECK(expr("a[i, j + 1]") == "([] a i (+ j 1))");
    CHECK(expr("f(x)[0](y)") == "(call ([] (call f x) 0) y)");
    CHECK(expr("a, b") == "(tuple a b)");
    CHECK(expr("(a, b)") == "(tuple a b)");
    CHECK(expr("(a,)") == "(tuple a)");
    CHECK(expr("()") == "(tuple)");
    CHECK(expr("((a, b), c)") == "(tuple (tuple a b) c)");
    CHECK(expr("wp.array(dtype=wp.vec3, ndim=2)") == "(call (. wp array) dtype=(. wp vec3) ndim=2)");
}

TEST_CASE("literals: integers in every base, floats, booleans, None and strings") {
    Parsed p("X = (0, 42, 1_000_000, 0x_FF, 0o17, 0b1010, 9223372036854775807, 1.0, .5, 5., 1e-3, 2.5E+4, 1_0.2_5,"
             " True, False, None)\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    const auto &v = p.module.assignments[0].value->children;
    REQUIRE(v.size() == 16);
    const std::vector<std::uint64_t> ints{0, 42, 1000000, 255, 15, 10, INT64_MAX};
    for (std::size_t i = 0; i < ints.size(); ++i) {
        CHECK(v[i]->kind == Expr::Kind::Int);
        CHECK(v[i]->int_value == ints[i]);
    }
    CHECK(v[2]->text == "1_000_000");
    CHECK(v[3]->text == "0x_FF");
    const std::vector<double> floats{1.0, 0.5, 5.0, 1e-3, 2.5e4, 10.25};
    for (std::size_t i = 0; i < floats.size(); ++i) {
        CHECK(v[7 + i]->kind == Expr::Kind::Float);
        CHECK(v[7 + i]->float_value == floats[i]);
    }
    CHECK(v[8]->text == ".5");
    CHECK(at(v[8]->location) == "1:71");
    CHECK(v[13]->kind == Expr::Kind::Bool);
    CHECK(v[13]->bool_value);
    CHECK_FALSE(v[14]->bool_value);
    CHECK(v[15]->kind == Expr::Kind::Name);
    CHECK(v[15]->text == "None");
}

TEST_CASE("strings: quotes, triple quotes, escapes, raw strings and concatenation") {
    CHECK(expr("'a'") == "\"a\"");
    CHECK(expr("\"it's\"") == "\"it's\"");
    CHECK(expr("'a\\tb\\n\\\\\\'\\x41\\101\\u00e9'") == "\"a\tb\n\\'AA\xc3\xa9\"");
    CHECK(expr("r'a\\nb'") == "\"a\\nb\"");
    CHECK(expr("'''one\ntwo'''") == "\"one\ntwo\"");
    CHECK(expr("\"\"\"say \"hi\" \"\"\"") == "\"say \"hi\" \"");
    CHECK(expr("'a' \"b\" 'c'") == "\"abc\"");
    CHECK(expr("('a'\n     'b')") == "\"ab\"");
    CHECK(expr("u'x'") == "\"x\"");
}

TEST_CASE("implicit line joining inside brackets and backslash continuation") {
    Parsed p("def f(a,\n      b):\n    x = (a +\n         b)\n    y = a + \\\n        b\n    z = f(1,\n\n  # c\n 2)\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    REQUIRE(p.function().params.size() == 2);
    REQUIRE(p.function().body.size() == 3);
    CHECK(sexpr(*p.stmt(0).value) == "(+ a b)");
    CHECK(at(p.stmt(0).value->children[1]->location) == "4:10");
    CHECK(sexpr(*p.stmt(1).value) == "(+ a b)");
    CHECK(at(p.stmt(1).value->children[1]->location) == "6:9");
    CHECK(sexpr(*p.stmt(2).value) == "(call f 1 2)");
}

TEST_CASE("comments, blank lines, tabs and CRLF line endings") {
    Parsed p("# leading comment\n\nimport warp as wp  # trailing\n\r\ndef f():\r\n\t# indented comment\r\n\r\n"
             "\tx = 1\r\n\tif x:\r\n\t\ty = 2\r\n\treturn x\r\n");
    INFO(p.errors());
    REQUIRE_FALSE(p.diags.has_errors());
    REQUIRE(p.function().body.size() == 3);
    CHECK(at(p.stmt(0).location) == "8:2");
    CHECK(at(p.stmt(1).body.at(0)->location) == "10:3");
}

TEST_CASE("expression nodes carry the location of their first token") {
    Parsed p("def f():\n    r = a.b + c[i] * -g(x)\n");
    REQUIRE_FALSE(p.diags.has_errors());
    const Expr &sum = *p.stmt(0).value;
    CHECK(at(sum.location) == "2:9");                           // a.b + ...
    CHECK(at(sum.children[0]->location) == "2:9");              // a.b
    CHECK(at(sum.children[1]->location) == "2:15");             // c[i] * -g(x)
    CHECK(at(sum.children[1]->children[1]->location) == "2:22"); // -g(x)
    CHECK(at(sum.children[1]->children[1]->children[0]->location) == "2:23");
}

// ---------------------------------------------------------------------------
// Unsupported constructs: each one named, at its location

TEST_CASE("unsupported expressions are named, at their location") {
    auto in_kernel = [](const std::string &line) { return only_error("def f(x):\n    " + line + "\n"); };
    CHECK(in_kernel("y = lambda q: q") == "2:9: lambda is not supported in kernels");
    CHECK(in_kernel("y = [i for i in x]") == "2:9: list comprehensions are not supported in kernels");
    CHECK(in_kernel("y = [1, 2]") == "2:9: list literals are not supported in kernels");
    CHECK(in_kernel("y = []") == "2:9: list literals are not supported in kernels");
    CHECK(in_kernel("y = {1: 2}") == "2:9: dict literals are not supported in kernels");
    CHECK(in_kernel("y = {}") == "2:9: dict literals are not supported in kernels");
    CHECK(in_kernel("y = {1, 2}") == "2:9: set literals are not supported in kernels");
    CHECK(in_kernel("y = {k: v for k in x}") == "2:9: dict comprehensions are not supported in kernels");
    CHECK(in_kernel("y = {k for k in x}") == "2:9: set comprehensions are not supported in kernels");
    CHECK(in_kernel("y = (i for i in x)") == "2:9: generator expressions are not supported in kernels");
    CHECK(in_kernel("y = sum(i for i in x)") == "2:13: generator expressions are not supported in kernels");
    CHECK(in_kernel("y = f(a, [1])") == "2:14: list literals are not supported in kernels");
    CHECK(in_kernel("if (n := 10) > 3:\n        pass") == "2:11: assignment expressions (:=) are not supported in kernels");
    CHECK(in_kernel("y = f(n := 1)") == "2:13: assignment expressions (:=) are not supported in kernels");
    CHECK(in_kernel("*a, b = x") == "2:5: starred expressions are not supported in kernels");
    CHECK(in_kernel("a, *b = x") == "2:8: starred expressions are not supported in kernels");
    CHECK(expr("f(*a, b)") == "(call f (* a) b)");
    CHECK(in_kernel("f(x, **kw)") == "2:10: keyword argument unpacking (**kwargs) is not supported in kernels");
    CHECK(in_kernel("y = yield x") == "2:9: yield is not supported in kernels");
    CHECK(in_kernel("yield") == "2:5: yield is not supported in kernels");
    CHECK(in_kernel("y = await x") == "2:9: await is not supported in kernels");
    CHECK(in_kernel("y = ...") == "2:9: Ellipsis (...) is not supported in kernels");
    CHECK(in_kernel("y = f\"{x}\"") == "2:9: f-strings are not supported in kernels");
    CHECK(in_kernel("y = b'bytes'") == "2:9: bytes literals are not supported in kernels");
    CHECK(in_kernel("y = 3j") == "2:9: complex literals are not supported in kernels");
}

TEST_CASE("unsupported statements are named, at their location") {
    auto in_kernel = [](const std::string &body) { return only_error("def f(x):\n" + body); };
    CHECK(in_kernel("    try:\n        pass\n    except Exception:\n        pass\n    finally:\n        pass\n") ==
          "2:5: try statements are not supported in kernels");
    CHECK(in_kernel("    with x as y:\n        pass\n") == "2:5: with statements are not supported in kernels");
    CHECK(in_kernel("    raise ValueError()\n") == "2:5: raise statements are not supported in kernels");
    CHECK(in_kernel("    assert x > 0, 'x'\n") == "0 errors:"); // parsed: the checker types it (debug builds check it)
    CHECK(in_kernel("    del x\n") == "2:5: del statements are not supported in kernels");
    CHECK(in_kernel("    global g\n") == "2:5: global statements are not supported in kernels");
    CHECK(in_kernel("    nonlocal n\n") == "2:5: nonlocal statements are not supported in kernels");
    CHECK(in_kernel("    async for i in x:\n        pass\n") == "2:5: async for loops are not supported in kernels");
    CHECK(in_kernel("    async with x:\n        pass\n") == "2:5: async with statements are not supported in kernels");
    // In a kernel; an undecorated def that defines functions is a kernel factory instead.
    auto decorated = [](const std::string &body) { return only_error("@wp.kernel\ndef f(x):\n" + body); };
    CHECK(decorated("    def inner():\n        return 1\n") ==
          "3:5: nested function definitions are not supported in kernels");
    CHECK(decorated("    @wp.func\n    def inner():\n        return 1\n") ==
          "3:5: nested function definitions are not supported in kernels");
    CHECK(decorated("    if x:\n        def inner():\n            return 1\n") ==
          "4:9: nested function definitions are not supported in kernels");
    CHECK(in_kernel("    def inner():\n        return 1\n") ==
          "2:5: function inside kernel factory 'f' needs @wp.func or @wp.kernel; host code is not supported");
    CHECK(in_kernel("    @wp.func\n    def inner():\n        return 1\n") ==
          "1:1: kernel factory 'f' must end with `return NAME`, naming the @wp.kernel or @wp.func it makes");
    CHECK(in_kernel("    class C:\n        pass\n") == "2:5: nested class definitions are not supported in kernels");
    CHECK(in_kernel("    import math\n") == "2:5: import statements are only supported at the top level of a module");
    CHECK(in_kernel("    match x:\n        case 1:\n            pass\n") ==
          "2:5: match statements are not supported in kernels");
    CHECK(in_kernel("    for i, j in x:\n        pass\n") ==
          "2:9: tuple unpacking in for loops is not supported in kernels; the loop variable must be a single name");
    CHECK(in_kernel("    for a.b in x:\n        pass\n") == "2:9: the for loop variable must be a single name");
    CHECK(in_kernel("    for i in x:\n        pass\n    else:\n        pass\n") ==
          "4:5: else clauses on for loops (for-else) are not supported in kernels");
    CHECK(in_kernel("    while x:\n        pass\n    else:\n        pass\n") ==
          "4:5: else clauses on while loops (while-else) are not supported in kernels");
    CHECK(only_error("async def f():\n    pass\n") == "1:1: async functions are not supported in kernels");
}

TEST_CASE("variadic and marker parameters are rejected, and the function is still parsed") {
    const std::vector<std::string> expected{"1:10: variadic parameters are not supported in kernels: *args",
                                            "1:20: variadic parameters are not supported in kernels: **kw",
                                            "2:9: invalid character '$'"};
    CHECK(error_list("def f(a, *args, b, **kw):\n    x = $\n") == expected);
    CHECK(only_error("def f(a, /, b):\n    pass\n") ==
          "1:10: variadic parameters are not supported in kernels: positional-only marker '/'");
    CHECK(only_error("def f(a, *, b):\n    pass\n") ==
          "1:10: variadic parameters are not supported in kernels: keyword-only marker '*'");
    CHECK(only_error("def f(a, a):\n    pass\n") == "1:10: duplicate parameter 'a' in function definition");
}

TEST_CASE("top-level statements other than the accepted ones are rejected") {
    const std::string message =
        "top-level statements other than imports, constants, functions and classes are not supported";
    CHECK(only_error("import warp as wp\nwp.init()\n") == "2:1: " + message);
    CHECK(only_error("if __name__ == \"__main__\":\n    main()\nelse:\n    pass\nX = 1\n") == "1:1: " + message);
    CHECK(only_error("for i in range(3):\n    print(i)\n") == "1:1: " + message);
    CHECK(only_error("X += 1\n") == "1:1: " + message);
    CHECK(only_error("A, B = 1, 2\n") == "1:1: " + message);
    CHECK(only_error("wp.config.mode = 'debug'\n") == "1:1: " + message);
    CHECK(only_error("X: int\n") == "1:1: " + message);
    CHECK(only_error("try:\n    import numpy\nexcept ImportError:\n    pass\n") ==
          "1:1: try statements are not supported in kernels");
    CHECK(only_error("from . import x\n") == "1:6: relative imports are not supported in kernels");
    CHECK(only_error("from warp import *\n") ==
          "1:18: wildcard imports (from ... import *) are not supported in kernels");
}

TEST_CASE("class bodies hold fields and constants only") {
    CHECK(only_error("class S:\n    x += 1\n") ==
          "2:5: class bodies may only contain fields (name: type), constants (NAME = value), docstrings and pass");
    CHECK(only_error("class S:\n    def m(self):\n        pass\n") == "2:5: methods are not supported in kernel classes");
    CHECK(only_error("class S:\n    if x:\n        y: int\n") ==
          "2:5: class bodies may only contain fields (name: type), constants (NAME = value), docstrings and pass");
    CHECK(only_error("class S(metaclass=M):\n    x: int\n") == "1:9: class keyword arguments are not supported in kernels");
}

// ---------------------------------------------------------------------------
// Syntax errors say what was expected and what was found

TEST_CASE("syntax errors name what was expected and what was found") {
    CHECK(only_error("def f():\n    for i in range(3)\n        pass\n") ==
          "2:22: expected ':' after the for clause, found NEWLINE");
    CHECK(only_error("def f():\n    x = f(1, )\n    y = (1 + )\n") == "3:14: expected an expression, found ')'");
    CHECK(only_error("def f():\n    for i range(3):\n        pass\n") ==
          "2:11: expected 'in' after the for loop variable, found 'range'");
    CHECK(only_error("def f():\n    if x\n        pass\n") == "2:9: expected ':' after the if condition, found NEWLINE");
    CHECK(only_error("def f():\n    while x y:\n        pass\n") ==
          "2:13: expected ':' after the while condition, found 'y'");
    CHECK(only_error("def f():\n    if x:\n        pass\n    elif y\n        pass\n") ==
          "4:11: expected ':' after the elif condition, found NEWLINE");
    CHECK(only_error("def f():\n    x = a if b\n") == "2:15: expected 'else' in the conditional expression, found NEWLINE");
    CHECK(only_error("def f():\n    x = f(a b)\n") == "2:13: expected ',' or ')' in the argument list, found 'b'");
    CHECK(only_error("def f():\n    x = a[i j]\n") == "2:13: expected ',' or ']' in the subscript, found 'j'");
    CHECK(only_error("def f():\n    x = 1 2\n") == "2:11: expected the end of the statement, found '2'");
    CHECK(only_error("def f():\n    x = a.\n") == "2:11: expected an attribute name after '.', found NEWLINE");
    CHECK(only_error("def (x):\n    pass\n") == "1:5: expected a function name after 'def', found '('");
    CHECK(only_error("def f x:\n    pass\n") == "1:7: expected '(' after the function name, found 'x'");
    CHECK(only_error("def f(1):\n    pass\n") == "1:7: expected a parameter name, found '1'");
    CHECK(only_error("def f(a b):\n    pass\n") == "1:9: expected ',' or ')' in the parameter list, found 'b'");
    CHECK(only_error("def f()\n    pass\n") == "1:8: expected ':' after the function signature, found NEWLINE");
    CHECK(only_error("class C\n    x: int\n") == "1:8: expected ':' after the class header, found NEWLINE");
    CHECK(only_error("def f():\nx = 1\n") == "2:1: expected an indented block after function definition on line 1");
    CHECK(only_error("def f():\n    if x:\n    y = 1\n") == "3:5: expected an indented block after 'if' statement on line 2");
    // An unclosed bracket swallows the rest of the file; say so rather than what comes next.
    CHECK(only_error("def f():\n    x = (1, 2\n    y = 3\n") == "2:9: '(' was never closed");
    CHECK(only_error("def f():\n    x = f(a, (b\n    y = 3\n") == "2:14: '(' was never closed");
    CHECK(only_error("def f():\n    f(a=1, b)\n") == "2:12: positional argument follows keyword argument");
    CHECK(only_error("def f():\n    f(a=1, a=2)\n") == "2:12: keyword argument repeated: a");
    CHECK(only_error("def f():\n    f() = 1\n") == "2:5: cannot assign to a function call");
    CHECK(only_error("def f():\n    1 = x\n") == "2:5: cannot assign to a literal");
    CHECK(only_error("def f():\n    a, g() = 1, 2\n") == "2:8: cannot assign to a function call");
    CHECK(only_error("def f():\n    f() += 1\n") == "2:5: illegal expression for augmented assignment");
    CHECK(only_error("def f():\n    a, b: int = 1\n") == "2:5: only a single target (not a tuple) can be annotated");
    CHECK(only_error("def f():\n    else:\n        pass\n") == "2:5: expected a statement, found 'else'");
    CHECK(only_error("def f():\n    if x: for i in y: pass\n") ==
          "2:11: a compound statement cannot follow ':' on the same line");
    CHECK(only_error("@wp.kernel\nX = 1\n") == "2:1: expected 'def' or 'class' after the decorators, found 'X'");
    CHECK(only_error("@a.b()()\ndef f():\n    pass\n") ==
          "1:1: a decorator must be a dotted name, optionally called with arguments");
    CHECK(only_error("import\n") == "1:7: expected a module name after 'import', found NEWLINE");
    CHECK(only_error("from x import a,\n") == "1:17: trailing comma not allowed without surrounding parentheses");
}

TEST_CASE("indentation errors") {
    CHECK(only_error("def f():\n    x = 1\n  y = 2\n") == "3:3: unindent does not match any outer indentation level");
    CHECK(only_error("def f():\n    x = 1\n        y = 2\n    z = 3\n") == "3:9: unexpected indent");
    CHECK(only_error("  X = 1\n") == "1:3: unexpected indent");
    CHECK(only_error("def f():\n\tx = 1\n        y = 2\n") == "3:9: inconsistent use of tabs and spaces in indentation");
    CHECK(only_error("def f():\n    if x:\n\ty = 2\n") == "3:2: inconsistent use of tabs and spaces in indentation");
    // Tabs alone, and a consistent mixture, are fine.
    CHECK(error_list("def f():\n\tif x:\n\t\ty = 2\n\treturn y\n").empty());
    CHECK(error_list("def f():\n\tif x:\n\t    y = 2\n\treturn y\n").empty());
}

TEST_CASE("lexical errors are reported at their location") {
    auto in_kernel = [](const std::string &line) { return only_error("def f():\n    " + line + "\n"); };
    CHECK(in_kernel("x = 99999999999999999999") ==
          "2:9: integer literal 99999999999999999999 is too large for a 64-bit integer (max 2**64 - 1)");
    CHECK(in_kernel("x = 0x10000000000000000") ==
          "2:9: integer literal 0x10000000000000000 is too large for a 64-bit integer (max 2**64 - 1)");
    // uint64's range is a literal's: the checker decides which types can hold it.
    CHECK(error_list("def f():\n    x = 18446744073709551615\n    y = 0xcbf29ce484222325\n").empty());
    CHECK(in_kernel("x = 012") ==
          "2:9: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers");
    CHECK(in_kernel("x = 0b102") == "2:13: invalid digit '2' in binary literal");
    CHECK(in_kernel("x = 0x") == "2:9: invalid hexadecimal literal");
    CHECK(in_kernel("x = 1__0") == "2:10: invalid decimal literal");
    CHECK(in_kernel("x = 1_") == "2:10: invalid decimal literal");
    CHECK(in_kernel("x = 12abc") == "2:9: invalid decimal literal");
    CHECK(in_kernel("x = 1e999") == "2:9: float literal 1e999 is out of range for a 64-bit float");
    CHECK(in_kernel("x = 'abc") == "2:9: unterminated string literal");
    CHECK(only_error("def f():\n    x = '''abc\n    y = 1\n") == "2:9: unterminated triple-quoted string literal");
    CHECK(in_kernel("x = '\\x4'") == "2:10: invalid \\x escape: expected two hexadecimal digits");
    CHECK(in_kernel("x = '\\N{BULLET}'") == "2:10: \\N{...} escapes are not supported in kernels");
    CHECK(in_kernel("x = $") == "2:9: invalid character '$'");
    CHECK(in_kernel("x = a ? b") == "2:11: invalid character '?'");
    CHECK(in_kernel("x = \xc3\xa9") ==
          "2:9: invalid character U+00E9 (only ASCII is allowed outside strings and comments)");
    CHECK(in_kernel("x = 1 \\ + 2") == "2:11: unexpected character after line continuation character");
    CHECK(only_error("def f():\n    x = (1,\n") == "2:9: '(' was never closed");
    CHECK(only_error(std::string("def f():\n    x = 1\n\0\n", 21)) == "3:1: source code cannot contain null bytes");
}

TEST_CASE("an unknown escape is kept as written, with a warning") {
    Parsed p("X = '\\q'\n");
    CHECK_FALSE(p.diags.has_errors());
    REQUIRE(p.diags.diagnostics().size() == 1);
    CHECK(p.diags.diagnostics()[0].severity == Diagnostic::Severity::Warning);
    CHECK(p.diags.diagnostics()[0].message == "invalid escape sequence '\\q'");
    CHECK(p.module.assignments.at(0).value->text == "\\q");
}

TEST_CASE("escape warnings are capped per file") {
    std::string source = "X = '";
    for (int i = 0; i < 100; ++i) source += "\\q";
    Parsed p(source + "'\n");
    CHECK_FALSE(p.diags.has_errors());
    CHECK(p.diags.diagnostics().size() == 20);
}

// ---------------------------------------------------------------------------
// Recovery

TEST_CASE("independent errors in one file are all reported, in source order") {
    const std::string source = "import warp as wp\n"
                               "\n"
                               "@wp.kernel\n"
                               "def k(a: wp.array(dtype=float)):\n"
                               "    i = wp.tid()\n"
                               "    x = [1, 2]\n"            // 6
                               "    y = lambda: 0\n"         // 7
                               "    for j in range(3)\n"     // 8: broken header, its block is skipped
                               "        z = {}\n"
                               "    try:\n"                  // 10
                               "        pass\n"
                               "    except:\n"
                               "        pass\n"
                               "    a[i] = 1 +\n"            // 14
                               "    return\n"
                               "\n"
                               "def broken(x y):\n"          // 17: the whole function is skipped
                               "    w = $\n"
                               "\n"
                               "@wp.func\n"
                               "def g(x: float):\n"
                               "    return x ** 2 if x else -x\n"
                               "wp.launch(k, dim=1)\n";      // 23
    const std::vector<std::string> expected{
        "6:9: list literals are not supported in kernels",
        "7:9: lambda is not supported in kernels",
        "8:22: expected ':' after the for clause, found NEWLINE",
        "10:5: try statements are not supported in kernels",
        "14:15: expected an expression, found NEWLINE",
        "17:14: expected ',' or ')' in the parameter list, found 'y'",
        "18:9: invalid character '$'",
        "23:1: top-level statements other than imports, constants, functions and classes are not supported",
    };
    CHECK(error_list(source) == expected);
    Parsed p(source);
    REQUIRE(p.module.functions.size() == 2);
    CHECK(p.module.functions[0].name == "k");
    CHECK(p.module.functions[0].body.size() == 2); // i = wp.tid() and return
    CHECK(p.module.functions[1].name == "g");
    CHECK(p.module.functions[1].decorators.at(0).name == "func");
}

TEST_CASE("a broken if header skips its block and its elif and else clauses") {
    const std::vector<std::string> expected{"2:10: expected ':' after the if condition, found 'y'",
                                            "9:9: invalid character '$'"};
    CHECK(error_list("def f():\n    if x y:\n        a = [1]\n    elif z:\n        b = [2]\n    else:\n"
                     "        c = [3]\n    d = 1\n    e = $\n") == expected);
}

TEST_CASE("an error inside a block does not lose the statements around it") {
    Parsed p("def f():\n    if x:\n        a = 1\n        b = [2]\n        c = 3\n    d = 4\n");
    CHECK(error_list("def f():\n    if x:\n        a = 1\n        b = [2]\n        c = 3\n    d = 4\n") ==
          std::vector<std::string>{"4:13: list literals are not supported in kernels"});
    REQUIRE(p.function().body.size() == 2);
    CHECK(p.stmt(0).body.size() == 2);
    CHECK(p.stmt(1).targets.at(0)->text == "d");
}

TEST_CASE("parsing stops at the error limit") {
    std::string source = "def f():\n";
    for (int i = 0; i < 100; ++i) source += "    x = [" + std::to_string(i) + "]\n";
    Parsed p(source, 5);
    CHECK(p.diags.error_count() == 5);
    CHECK(p.diags.at_limit());
    CHECK(p.diags.diagnostics().size() == 5);
}

// ---------------------------------------------------------------------------
// Big and hostile inputs

TEST_CASE("2000 nested parentheses are an error, not a crash") {
    const std::string source = "X = " + std::string(2000, '(') + "1" + std::string(2000, ')') + "\n";
    Parsed p(source);
    const Diagnostic *d = find_error(p, "expression nested too deeply");
    REQUIRE(d != nullptr);
    CHECK(d->location.line == 1);
    CHECK(p.diags.error_count() == 1);
    // Moderate nesting is fine.
    CHECK(expr(std::string(50, '(') + "1" + std::string(50, ')')) == "1");
}

TEST_CASE("deep nesting of every kind is bounded") {
    const std::vector<std::string> sources{
        "X = " + std::string(5000, '[') + "\n",
        "X = " + std::string(3000, '-') + "1\n",
        "X = " + [] {
            std::string s;
            for (int i = 0; i < 3000; ++i) s += "not ";
            return s;
        }() + "1\n",
        "X = 1" + [] {
            std::string s;
            for (int i = 0; i < 3000; ++i) s += "**1";
            return s;
        }() + "\n",
        "X = 1" + [] {
            std::string s;
            for (int i = 0; i < 5000; ++i) s += " + 1";
            return s;
        }() + "\n",
        "X = a" + [] {
            std::string s;
            for (int i = 0; i < 5000; ++i) s += ".b[0](1)";
            return s;
        }() + "\n",
        "X = " + [] {
            std::string s;
            for (int i = 0; i < 3000; ++i) s += "a if b else ";
            return s;
        }() + "c\n",
        "X = " + [] {
            std::string s;
            for (int i = 0; i < 3000; ++i) s += "f(";
            return s;
        }() + "\n",
        "def f():\n" + [] {
            std::string s;
            for (int i = 1; i <= 300; ++i) s += std::string(static_cast<std::size_t>(i), ' ') + "if x:\n";
            return s + std::string(301, ' ') + "pass\n";
        }(),
        "def f():\n    if x:\n        pass\n" + [] {
            std::string s;
            for (int i = 0; i < 3000; ++i) s += "    elif x:\n        pass\n";
            return s;
        }(),
    };
    for (const std::string &source : sources) {
        Parsed p(source);
        INFO(source.substr(0, 60));
        CHECK(p.diags.has_errors());
        CHECK(p.diags.error_count() <= 3);
    }
}

TEST_CASE("long but shallow inputs parse: a 5000-line function and wide expressions") {
    std::string source = "import warp as wp\n\n@wp.kernel\ndef big(a: wp.array(dtype=float)):\n    i = wp.tid()\n";
    for (int n = 0; n < 5000; ++n) {
        const std::string v = "v" + std::to_string(n);
        source += n % 3 == 0   ? "    " + v + " = a[i] * " + std::to_string(n) + ".0 + 1.0\n"
                  : n % 3 == 1 ? "    if " + v.substr(0, 1) + " > 0:\n        a[i] += 1.0\n"
                               : "    for j in range(3):\n        a[i] = a[i] - float(j)\n";
    }
    Parsed p(source);
    INFO(p.errors().substr(0, 500));
    REQUIRE_FALSE(p.diags.has_errors());
    CHECK(p.function().body.size() == 5001);

    std::string wide = "X = f(";
    for (int n = 0; n < 5000; ++n) wide += "a" + std::to_string(n) + ", ";
    wide += "b < c < d < e)\n";
    Parsed w(wide);
    REQUIRE_FALSE(w.diags.has_errors());
    CHECK(w.module.assignments.at(0).value->children.size() == 5002);

    // 500 terms stay under the tree-height bound.
    std::string sum = "X = 1";
    for (int n = 0; n < 500; ++n) sum += " + 1";
    CHECK_FALSE(Parsed(sum + "\n").diags.has_errors());
}

TEST_CASE("mutated kernels never crash or hang the parser") {
    // A tiny deterministic fuzzer: the real one runs under libFuzzer.
    const std::string seed = kernel_example + "\n@wp.func\ndef g(x: float, y: int = 2) -> float:\n"
                                              "    if x < 0.0 and not y:\n        return -x ** 2\n"
                                              "    elif x == 1.0:\n        pass\n    while x > 1.0:\n"
                                              "        x = x / 2.0 if x else 1.0\n    return x\n"
                                              "class S:\n    a: float\n    b: wp.vec3\n";
    const std::string alphabet = "()[]{}:;,.=+-*/%@&|^~<>!\"'\\#\n\t \r0123456789abcxyz_eEjJ";
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    for (int round = 0; round < 3000; ++round) {
        std::string text = seed;
        const int edits = 1 + static_cast<int>(next() % 8);
        for (int e = 0; e < edits; ++e) {
            const std::size_t pos = next() % (text.size() + 1);
            switch (next() % 4) {
            case 0: text.insert(pos, 1, alphabet[next() % alphabet.size()]); break;
            case 1:
                if (pos < text.size()) text.erase(pos, 1 + next() % 8);
                break;
            case 2:
                if (pos < text.size()) text[pos] = static_cast<char>(next() % 256);
                break;
            default: {
                const std::size_t from = next() % text.size();
                text.insert(pos, text.substr(from, next() % 40));
                break;
            }
            }
        }
        Parsed p(text);
        CHECK(p.diags.error_count() <= 50);
    }
}

TEST_CASE("front-end limits are stated in their messages, and a long comparison chain is one of them") {
    std::string sum = "def f(a):\n    return a";
    for (int i = 0; i < 1000; ++i) sum += " + a";
    Parsed p(sum + "\n");
    const Diagnostic *d = find_error(p, "expression nested too deeply: more than 1000 levels (each operator of a chain");
    CHECK(d);
    std::string chain = "def f(a):\n    return a";
    for (int i = 0; i < 1000; ++i) chain += " < a";
    Parsed q(chain + "\n");
    CHECK(find_error(q, "comparison chain too long: more than 1000 comparisons in one chain"));
    std::string ok = "def f(a):\n    return a";
    for (int i = 0; i < 999; ++i) ok += " < a";
    Parsed r(ok + "\n");
    CHECK(r.diags.error_count() == 0);
}

TEST_CASE("slices parse into Slice nodes that say which of lower, upper and step are given") {
    CHECK(expr("a[1:2]") == "([] a (slice110 1 2))");
    CHECK(expr("a[:2]") == "([] a (slice010 2))");
    CHECK(expr("a[1:]") == "([] a (slice100 1))");
    CHECK(expr("a[:]") == "([] a (slice000))");
    CHECK(expr("a[::2]") == "([] a (slice001 2))");
    CHECK(expr("a[::-1]") == "([] a (slice001 (- 1)))");
    CHECK(expr("a[i, ::2]") == "([] a i (slice001 2))");
    CHECK(expr("a[lo:hi:s, j]") == "([] a (slice111 lo hi s) j)");
    CHECK(expr("a[1:2:]") == "([] a (slice110 1 2))");
    CHECK(only_error("X = a[1:2:3:4]\n") == "1:12: expected ',' or ']' in the subscript, found ':'");
}
