// The syntax tree of a kernel module: the subset of Python that Warp kernels
// use. The parser produces it; the checker turns it into the typed IR.
// Nodes are plain data with a kind tag; every node carries its location.
#pragma once

#include "weft/kernel/source.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace weft::kernel::ast {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

struct Keyword {
    std::string name;
    ExprPtr value;
    SourceLocation location;
};

struct Expr {
    enum class Kind {
        Int,       // int_value; `text` holds the spelling
        Float,     // float_value; `text` holds the spelling
        Bool,      // bool_value (True / False)
        String,    // text (only meaningful in print, decorator arguments and name=)
        Name,      // text = identifier
        Attribute, // children[0] = value, text = attribute name
        Subscript, // children[0] = value, children[1..] = indices (a[i, j] -> two indices)
        Call,      // children[0] = callee, children[1..] = positional args; keywords
        Binary,    // children = {lhs, rhs}; text = "+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "@"
        Unary,     // children = {operand}; text = "-", "+", "~", "not"
        Compare,   // children = {first, second, ...}; ops[i] between children[i] and children[i+1]:
                   // "<", "<=", ">", ">=", "==", "!=", "is", "is not", "in", "not in"
        BoolOp,    // children = values; text = "and" / "or"
        IfExp,     // children = {test, body, orelse}  (body if test else orelse)
        Tuple,     // children = elements  (a, b) or a, b
        Dict,      // children = key, value, key, value, ...: only in module options (decorators, set_module_options)
                   // and wp.overload(kernel, {...})
        List,      // children = elements: only in top-level calls (wp.overload(kernel, [...]))
        Ellipsis,  // `...`: only as the body of a @wp.overload stub
        Starred,   // children = {operand}: `*v` as a call argument (unpacks a vector's components)
        Slice,     // lower:upper:step inside a subscript: children = the parts given, in order; text = which
                   // parts are given, "1" or "0" for each of lower, upper, step ("a[::2]" -> "001")
    };

    Kind kind;
    SourceLocation location;
    std::string text;
    std::uint64_t int_value = 0; // 0 to 2^64-1: a literal is never negative
    double float_value = 0.0;
    bool bool_value = false;
    std::vector<ExprPtr> children;
    std::vector<std::string> ops; // Compare only
    std::vector<Keyword> keywords; // Call only

    Expr(Kind k, SourceLocation at) : kind(k), location(at) {}
};

struct Stmt {
    enum class Kind {
        Expr,      // value
        Assign,    // targets = {target}; value.  `a = b = c` gives targets {a, b}. A Tuple target unpacks.
        AugAssign, // targets = {target}; text = operator without "=" ("+", "-", ...); value
        AnnAssign, // targets = {target}; annotation; value (may be null)
        If,        // test; body; orelse (an elif is an If alone in orelse)
        For,       // targets = {loop variable (Name)}; iter; body; orelse must be empty
        While,     // test; body
        Break,
        Continue,
        Return,    // value may be null
        Pass,
    };

    Kind kind;
    SourceLocation location;
    std::string text;
    std::vector<ExprPtr> targets;
    ExprPtr value;
    ExprPtr annotation;
    ExprPtr test;
    ExprPtr iter;
    std::vector<StmtPtr> body;
    std::vector<StmtPtr> orelse;

    Stmt(Kind k, SourceLocation at) : kind(k), location(at) {}
};

/// `@wp.kernel`, `@wp.kernel(enable_backward=False)`, `@wp.func`, `@wp.struct`.
struct Decorator {
    std::string name; // the last component: "kernel", "func", "struct", ...
    std::string qualified; // as written: "wp.kernel"
    bool called = false;   // written with parentheses
    std::vector<Keyword> keywords;
    std::vector<ExprPtr> args; // positional decorator arguments (usually an error)
    SourceLocation location;
};

struct Param {
    std::string name;
    ExprPtr annotation; // null when missing
    ExprPtr default_value; // null when none (defaults are rejected by the checker)
    SourceLocation location;
};

struct FunctionDef {
    std::string name;
    std::vector<Decorator> decorators;
    std::vector<Param> params;
    ExprPtr returns; // null when no annotation
    std::vector<StmtPtr> body;
    SourceLocation location; // of the `def` keyword
    /// An instance of a kernel factory: the call that made it ("double =
    /// make_scale(...)") and where, for a note after errors in its body.
    std::string factory_call;
    SourceLocation factory_call_location;
    /// Where weft's bundled source it came from ("warp.math"), when it is one
    /// of the functions weft brings; "" for the module's own.
    std::string bundled_from;
};

struct ClassDef {
    std::string name;
    std::vector<Decorator> decorators;
    std::vector<ExprPtr> bases;
    std::vector<StmtPtr> body; // AnnAssign fields (and docstrings / pass)
    SourceLocation location;
};

struct Import {
    std::string module; // "warp", "typing", "math", "numpy"
    std::string alias;  // "wp"; equals module when no `as`
    std::vector<std::pair<std::string, std::string>> names; // from X import a as b: {a, b}
    SourceLocation location;
};

/// A top-level statement other than def/class/import: `N = wp.constant(3)`, `SCALE = 0.5`.
struct TopLevelAssign {
    std::string name;
    ExprPtr annotation; // optional `N: int = 3`
    ExprPtr value;
    SourceLocation location;
};

/// An undecorated top-level `def` whose body defines @wp.kernel / @wp.func
/// functions and returns one of them: a kernel factory. Python runs it once
/// per call, each call capturing its arguments; the parser instantiates it
/// at each top-level `name = factory(args)`, so the checker only ever sees
/// the instances (ordinary functions). Internal to the parser.
struct Factory {
    std::string name;
    std::vector<Param> params;
    std::vector<TopLevelAssign> values;  // `inv = 1.0 / factor`: computed per call, in order
    std::vector<FunctionDef> functions; // the nested definitions, in source order
    std::string returned;               // the name of the definition it returns
    SourceLocation returned_location;
    SourceLocation location; // of the `def` keyword
};

struct Module {
    std::vector<Import> imports;
    std::vector<TopLevelAssign> assignments;
    std::vector<ClassDef> classes;
    std::vector<FunctionDef> functions; // in source order
    /// Top-level `wp.set_module_options({...})` calls, in source order (the Call expressions).
    std::vector<ExprPtr> module_options;
    /// Top-level `wp.overload(kernel, [...] or {...})` calls, in source order (the Call expressions).
    std::vector<ExprPtr> kernel_overloads;
    /// Source order of the top-level items: {kind, index} with kind 'i', 'a', 'c', 'f'.
    std::vector<std::pair<char, std::size_t>> order;
};

/// A deep copy of an expression tree (for rewrites that use a subexpression twice).
ExprPtr clone(const Expr &e);
StmtPtr clone(const Stmt &s);
FunctionDef clone(const FunctionDef &f);

} // namespace weft::kernel::ast
