// Calls with checker-computed types: the generic core builtins and @wp.func
// functions (overloads, and generic parameters instantiated per call).
#include "checker.hpp"

#include <algorithm>

namespace weft::kernel::detail {

using ast::Expr;
using K = ir::Expr::Kind;

namespace {
bool is_printable(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar:
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return true;
    default: return false;
    }
}
} // namespace

Value Checker::fixed_array(const Expr &e) {
    // zeros(shape, dtype): Warp's fixed-size array, in the frame of the function that makes it.
    const SourceLocation at = e.location;
    const Expr *shape = e.children.size() > 1 ? e.children[1].get() : nullptr;
    const Expr *dtype_ast = e.children.size() > 2 ? e.children[2].get() : nullptr;
    if (e.children.size() > 3) {
        diags_.error(at, "zeros() takes 2 arguments (shape, dtype), got " + std::to_string(e.children.size() - 1));
        return poison();
    }
    for (const ast::Keyword &k : e.keywords) {
        const Expr **slot = k.name == "shape" ? &shape : k.name == "dtype" ? &dtype_ast : nullptr;
        if (!slot) {
            diags_.error(k.location, "zeros() takes shape= and dtype=, got '" + k.name + "'");
            return poison();
        }
        if (*slot) {
            diags_.error(k.location, "zeros() got '" + k.name + "' twice");
            return poison();
        }
        *slot = k.value.get();
    }
    if (!shape || !dtype_ast) {
        diags_.error(at, "zeros() in a kernel needs shape= and dtype=: wp.zeros(shape=(2, 3), dtype=float)");
        return poison();
    }
    std::vector<const Expr *> dims;
    if (shape->kind == Expr::Kind::Tuple)
        for (const ast::ExprPtr &d : shape->children) dims.push_back(d.get());
    else
        dims.push_back(shape);
    if (dims.empty() || dims.size() > 4) {
        diags_.error(shape->location, "zeros() takes 1 to 4 dimensions, got " + std::to_string(dims.size()));
        return poison();
    }
    std::vector<std::int64_t> sizes;
    for (const Expr *d : dims) {
        Value::Literal literal;
        const std::size_t errors = diags_.error_count();
        auto c = evaluate_constant(*d, literal);
        if (!c || !c->type.is_integer() || c->int_components.empty() || c->int_components[0] < 1) {
            if (diags_.error_count() == errors)
                diags_.error(d->location, "the shape of a zeros() array in a kernel is made of positive integer "
                                          "constants (its storage is in the function's frame, as Warp's fixed-size arrays)");
            return poison();
        }
        sizes.push_back(static_cast<std::int64_t>(c->int_components[0] > 1 << 20 ? 1 << 20 : c->int_components[0]));
    }
    const std::optional<Type> dtype = concrete_type(*dtype_ast);
    if (!dtype) return poison();
    if (dtype->kind() == Type::Kind::Array || dtype->kind() == Type::Kind::Tuple || dtype->is_tile() || dtype->is_void() ||
        dtype->kind() == Type::Kind::String) {
        diags_.error(dtype_ast->location, "zeros() holds values (scalars, vectors, matrices, quaternions, transforms, "
                                          "structs), not '" + dtype->name() + "'");
        return poison();
    }
    constexpr std::int64_t max_bytes = 64 << 10;
    std::int64_t bytes = static_cast<std::int64_t>(dtype->size());
    for (std::int64_t n : sizes) bytes = bytes > max_bytes ? bytes : bytes * n;
    if (bytes > max_bytes) {
        diags_.error(at, "a zeros() array in a kernel holds at most " + std::to_string(max_bytes >> 10) +
                             " KiB (it is in each thread's frame); this one is larger");
        return poison();
    }
    const Type t = Type::array(*dtype, static_cast<int>(sizes.size()));
    note_type(t);
    auto x = make(K::Intrinsic, t, at);
    x->name = "zeros";
    x->intrinsic = ir::Intrinsic::FixedArray;
    for (std::int64_t n : sizes) {
        auto lit = make(K::Literal, Type::scalar(Scalar::Int32), at);
        lit->value = ir::ConstantValue{Type::scalar(Scalar::Int32), {static_cast<double>(n)}, {static_cast<ir::IntValue>(n)}};
        x->args.push_back(std::move(lit));
    }
    scope_->function->uses_fixed_arrays = true;
    return Value{std::move(x)};
}

Value Checker::generic_builtin(const std::string &name, const Expr &e) {
    const SourceLocation at = e.location;
    std::vector<Value> args;
    std::vector<const Expr *> arg_ast;
    for (std::size_t i = 1; i < e.children.size(); ++i) arg_ast.push_back(e.children[i].get());

    const bool takes_keywords = name == "identity" || name == "expect_near" || name == "transform_identity" ||
                                name == "quat_identity" || name == "zeros";
    if (!takes_keywords && !e.keywords.empty()) {
        diags_.error(e.keywords.front().location,
                     "builtin '" + name + "' takes no keyword arguments (got '" + e.keywords.front().name + "')");
        return poison();
    }
    const std::optional<ir::Intrinsic> intrinsic = ir::parse_intrinsic(name);
    if (!intrinsic) {
        diags_.error(at, "builtin '" + name + "' is not available in this version");
        return poison();
    }
    auto result = [&](const Type &t) {
        auto x = make(K::Intrinsic, t, at);
        x->name = name;
        x->intrinsic = *intrinsic;
        for (Value &v : args) x->args.push_back(std::move(v.expr));
        return Value{std::move(x)};
    };
    auto want = [&](std::size_t n) {
        if (arg_ast.size() == n) return true;
        diags_.error(at, "'" + name + "' takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") + ", got " +
                             std::to_string(arg_ast.size()));
        return false;
    };

    if (name == "zeros") return fixed_array(e);

    if (name == "identity") {
        // identity(n, dtype) with n a compile-time integer, positionally or by keyword, each once.
        const Expr *n_ast = nullptr, *dtype_ast = nullptr;
        if (arg_ast.size() > 2) {
            diags_.error(at, "identity() takes 2 arguments (n, dtype), got " + std::to_string(arg_ast.size()));
            return poison();
        }
        if (arg_ast.size() > 0) n_ast = arg_ast[0];
        if (arg_ast.size() > 1) dtype_ast = arg_ast[1];
        for (const ast::Keyword &k : e.keywords) {
            const Expr **slot = k.name == "n" ? &n_ast : k.name == "dtype" ? &dtype_ast : nullptr;
            if (!slot) {
                diags_.error(k.location, "identity() takes n= and dtype=, got '" + k.name + "'");
                return poison();
            }
            if (*slot) {
                diags_.error(k.location, "identity() got '" + k.name + "' twice");
                return poison();
            }
            *slot = k.value.get();
        }
        int n = 0;
        if (n_ast) {
            Value::Literal lit;
            auto c = evaluate_constant(*n_ast, lit);
            if (c && c->type.is_integer()) n = static_cast<int>(c->int_components[0]);
        }
        // Warp takes any numeric scalar dtype (the half types included; not bool) and any n a
        // matrix type may have; the shapes are those of wp.types.matrix (1 to 64).
        constexpr int max_n = 64;
        if (n < 1 || n > max_n) {
            diags_.error(n_ast ? n_ast->location : at,
                         "identity() needs n= an integer constant from 1 to " + std::to_string(max_n));
            return poison();
        }
        std::optional<Type> dtype = Type::scalar(Scalar::Float32);
        if (dtype_ast) dtype = concrete_type(*dtype_ast);
        if (!dtype) return poison(); // a dtype that did not resolve was reported already
        if (!dtype->is_scalar() || dtype->is_bool()) {
            diags_.error(dtype_ast->location, "identity() dtype must be a numeric scalar type (float32, float16, int32, "
                                              "...), got '" + dtype->name() + "'");
            return poison();
        }
        const Type t = Type::matrix(dtype->scalar_type(), n, n);
        note_type(t);
        return result(t);
    }

    if (name == "transform_identity" || name == "quat_identity") {
        // transform_identity(dtype=float32): zero translation, rotation (0, 0, 0, 1); quat_identity: that rotation.
        if (!arg_ast.empty()) {
            diags_.error(at, name + "() takes only dtype= (e.g. dtype=wp.float64), got " +
                                 std::to_string(arg_ast.size()) + " positional argument" + (arg_ast.size() == 1 ? "" : "s"));
            return poison();
        }
        std::optional<Type> dtype = Type::scalar(Scalar::Float32);
        for (const ast::Keyword &k : e.keywords) {
            if (k.name != "dtype") {
                diags_.error(k.location, name + "() takes dtype=, got '" + k.name + "'");
                return poison();
            }
            dtype = concrete_type(*k.value);
            if (!dtype || !dtype->is_float()) {
                diags_.error(k.location, name + "() dtype must be float16, bfloat16, float32 or float64");
                return poison();
            }
        }
        const Type t = name == "quat_identity" ? Type::quaternion(dtype->scalar_type()) : Type::transform(dtype->scalar_type());
        note_type(t);
        return result(t);
    }

    for (const Expr *a : arg_ast) {
        if ((name == "print" || name == "assert") && a->kind == Expr::Kind::String) {
            auto s = make(K::String, Type::string(), a->location);
            s->name = a->text; // the string; codegen prints it verbatim
            args.push_back(Value{std::move(s)});
            continue;
        }
        args.push_back(expr(*a));
    }
    if (name == "expect_near")
        for (const ast::Keyword &k : e.keywords) {
            if (k.name != "tolerance") {
                diags_.error(k.location, "expect_near() takes tolerance=, got '" + k.name + "'");
                return poison();
            }
            args.push_back(expr(*k.value));
        }
    for (const Value &v : args)
        if (!v.ok()) return poison();
    // print(t): a tile alone on its line (Warp's tile printing).
    const bool prints_tile = name == "print" && args.size() == 1 && args[0].type().is_tile();
    for (std::size_t i = 0; i < args.size() && !prints_tile; ++i)
        if (args[i].type().is_tile()) {
            diags_.error(i < arg_ast.size() ? arg_ast[i]->location : at,
                         name + "() does not take tiles (got " + args[i].type().name() + ")");
            return poison();
        }

    if (name == "tid") {
        if (!want(0)) return poison();
        if (scope_) scope_->function->uses_tid = true;
        return result(Type::scalar(Scalar::Int32)); // unpacking widens it (see assign)
    }
    if (name == "block_dim") {
        if (!want(0)) return poison();
        return result(Type::scalar(Scalar::Int32));
    }
    if (name == "quat_to_axis_angle") {
        if (!want(1)) return poison();
        const Type q = args[0].type();
        if (q.kind() != Type::Kind::Quaternion || is_half_precision(q.scalar_type())) {
            diags_.error(arg_ast[0]->location, "quat_to_axis_angle() needs a float32 or float64 quaternion, got '" +
                                                   q.name() + "'");
            return poison();
        }
        const Type t = Type::tuple({Type::vector(q.scalar_type(), 3), Type::scalar(q.scalar_type())});
        note_type(t);
        return result(t);
    }
    if (name == "len") {
        if (!want(1)) return poison();
        const Type &t = args[0].type();
        if (t.kind() != Type::Kind::Array && t.kind() != Type::Kind::Vector && t.kind() != Type::Kind::Matrix &&
            t.kind() != Type::Kind::Quaternion && t.kind() != Type::Kind::Transform) {
            diags_.error(at, "len() needs an array, vector or matrix, got '" + t.name() + "'");
            return poison();
        }
        return result(Type::scalar(Scalar::Int32));
    }
    if (name == "select" || name == "where") {
        if (!want(3)) return poison();
        settle(args[0]);
        if (!args[0].type().is_scalar()) {
            diags_.error(arg_ast[0]->location, name + "() condition must be bool or a scalar, got '" +
                                                   args[0].type().name() + "'");
            return poison();
        }
        unify_literals(args[1], args[2]);
        settle(args[1]);
        settle(args[2]);
        if (args[1].type() != args[2].type()) {
            diags_.error(at, name + "() branches must have one type, got '" + args[1].type().name() + "' and '" +
                                 args[2].type().name() + "'");
            return poison();
        }
        const Type t = args[1].type();
        return result(t);
    }
    if (name.rfind("atomic_", 0) == 0) {
        if (args.empty() || args[0].type().kind() != Type::Kind::Array) {
            diags_.error(at, name + "() needs an array as its first argument" +
                                 (args.empty() ? std::string() : ", got '" + args[0].type().name() + "'"));
            return poison();
        }
        const Type arr = args[0].type();
        const bool cas = name == "atomic_cas";
        const std::size_t indices_end = static_cast<std::size_t>(arr.ndim()) + 1;
        const std::size_t expected = indices_end + (cas ? 2 : 1);
        if (args.size() != expected) {
            diags_.error(at, name + "() on an array of " + std::to_string(arr.ndim()) + " dimension" +
                                 (arr.ndim() == 1 ? "" : "s") + " takes " + std::to_string(expected) +
                                 " arguments (the array, " + std::to_string(arr.ndim()) + " index" +
                                 (arr.ndim() == 1 ? "" : "es") + (cas ? ", the compared value, the new value" : ", the value") +
                                 "), got " + std::to_string(args.size()));
            return poison();
        }
        for (std::size_t i = 1; i < indices_end; ++i) {
            settle(args[i]);
            if (!args[i].type().is_integer()) {
                diags_.error(arg_ast[i]->location, "index must be an integer, got '" + args[i].type().name() + "'");
                return poison();
            }
        }
        const Type &dtype = arr.element();
        // Vectors too: add/sub and min/max act per component, as in Warp.
        const bool ok_dtype = (dtype.is_scalar() && !dtype.is_bool()) || dtype.kind() == Type::Kind::Vector;
        if (!ok_dtype) {
            diags_.error(at, name + "() does not support arrays of '" + dtype.name() + "'");
            return poison();
        }
        // Warp's element types for the bitwise atomics and exchange.
        const Scalar s = dtype.scalar_type();
        const bool int32_64 = s == Scalar::Int32 || s == Scalar::Int64 || s == Scalar::UInt32 || s == Scalar::UInt64;
        if ((name == "atomic_and" || name == "atomic_or" || name == "atomic_xor") && !int32_64) {
            diags_.error(at, name + "() works on arrays of [u]int32 or [u]int64 values (or vectors of them), got '" +
                                 dtype.name() + "'");
            return poison();
        }
        if (cas && !dtype.is_scalar()) {
            // Warp's CPU code compares and swaps a whole vector without
            // atomicity, and its CUDA code does not compile: weft refuses it.
            diags_.error(at, "atomic_cas() works on arrays of [u]int32, [u]int64, float32 or float64 scalars, got '" +
                                 dtype.name() + "' (compare and swap the components of a vector one by one)");
            return poison();
        }
        if ((name == "atomic_exch" || cas) && !int32_64 && s != Scalar::Float32 && s != Scalar::Float64) {
            diags_.error(at, name + "() works on arrays of [u]int32, [u]int64, float32 or float64 values (or vectors of "
                                    "them), got '" + dtype.name() + "'");
            return poison();
        }
        for (std::size_t i = indices_end; i < args.size(); ++i)
            if (!coerce(args[i], dtype)) {
                diags_.error(arg_ast[i]->location, name + "() " + (cas && i == indices_end ? "compared value" : "value") +
                                                       " must be " + dtype.name() + " (the array's dtype), got '" +
                                                       args[i].type().name() + "'");
                return poison();
            }
        return result(dtype);
    }
    if (prints_tile) return result(Type::void_type());
    if (name == "print") {
        for (std::size_t i = 0; i < args.size(); ++i) {
            if (args[i].expr->kind == K::String) continue;
            settle(args[i]);
            if (!is_printable(args[i].type())) {
                diags_.error(arg_ast[i]->location, "print() cannot print '" + args[i].type().name() + "'");
                return poison();
            }
        }
        return result(Type::void_type());
    }
    if (name == "expect_eq" || name == "expect_neq" || name == "expect_near") {
        const std::size_t max = name == "expect_near" ? 3 : 2;
        if (args.size() < 2 || args.size() > max) {
            diags_.error(at, "'" + name + "' takes " + (max == 3 ? "2 or 3" : std::string("2")) + " arguments, got " +
                                 std::to_string(args.size()));
            return poison();
        }
        unify_literals(args[0], args[1]);
        settle(args[0]);
        settle(args[1]);
        if (args[0].type() != args[1].type()) {
            diags_.error(at, name + "() compares values of one type, got '" + args[0].type().name() + "' and '" +
                                 args[1].type().name() + "'");
            return poison();
        }
        if (!is_printable(args[0].type())) {
            diags_.error(at, name + "() cannot compare '" + args[0].type().name() + "' (no way to report the values)");
            return poison();
        }
        if (name == "expect_near") {
            if (!args[0].type().is_float() && args[0].type().kind() != Type::Kind::Vector) {
                diags_.error(at, "expect_near() needs float or vector values, got '" + args[0].type().name() + "'");
                return poison();
            }
            if (args.size() == 3 && !coerce(args[2], Type::scalar(Scalar::Float32))) {
                diags_.error(at, "expect_near() tolerance must be float32");
                return poison();
            }
        }
        return result(Type::void_type());
    }
    if (name == "assert") {
        const bool message = args.size() == 2 && args[1].type().kind() == Type::Kind::String;
        if (args.empty() || args.size() > 2 || (args.size() == 2 && !message)) {
            diags_.error(at, "assert takes a condition and an optional string message");
            return poison();
        }
        settle(args[0]);
        if (!args[0].type().is_bool()) {
            diags_.error(arg_ast[0]->location, "assert needs a bool condition, got '" + args[0].type().name() +
                                                   "' (compare it: x != 0)");
            return poison();
        }
        return result(Type::void_type());
    }
    diags_.error(at, "builtin '" + name + "' is not available in this version");
    return poison();
}

// ---------------------------------------------------------------------------

bool Annotation::accepts(const Type &t) const {
    switch (kind) {
    case Kind::Concrete: return type == t;
    case Kind::Any: return t.kind() != Type::Kind::Tuple;
    case Kind::Scalar: return t.is_scalar() && !t.is_bool();
    case Kind::Float: return t.is_float();
    case Kind::Int: return t.is_integer();
    case Kind::ArrayAny: return t.kind() == Type::Kind::Array && !t.is_indexed_array() && t.ndim() == ndim;
    case Kind::Function: return false; // a function argument, not a value (user_call)
    }
    return false;
}

std::string Annotation::describe() const {
    switch (kind) {
    case Kind::Concrete: return type.name();
    case Kind::Any: return "any type";
    case Kind::Scalar: return "a scalar type (wp.Scalar)";
    case Kind::Float: return "a float type (wp.Float)";
    case Kind::Int: return "an integer type (wp.Int)";
    case Kind::ArrayAny: return "an array with ndim=" + std::to_string(ndim);
    case Kind::Function: return "a function (wp.Function)";
    }
    return "?";
}

Value Checker::user_call(const std::string &name, const Expr &e, std::vector<Value> args) {
    for (const Value &v : args)
        if (!v.ok() && v.function.empty()) return poison();
    const auto &defs = funcs_.at(name);

    // Candidates: arity fits and every argument is accepted, exactly or by literal conversion.
    struct Candidate {
        const ast::FunctionDef *def;
        std::vector<Annotation> params;
        bool exact;
    };
    std::vector<Candidate> fits;
    for (const ast::FunctionDef *def : defs) {
        if (def->params.size() != args.size()) continue;
        std::vector<Annotation> params;
        bool all = true, exact = true;
        for (std::size_t i = 0; i < args.size() && all; ++i) {
            if (!def->params[i].annotation) {
                all = false;
                break;
            }
            auto a = annotation(*def->params[i].annotation, true);
            if (!a) return poison();
            const Value &v = args[i];
            if (a->kind != Annotation::Kind::Concrete) exact = false; // concrete overloads win over generic ones
            if ((a->kind == Annotation::Kind::Function) != !v.function.empty()) {
                all = false; // a function goes to a wp.Function parameter, and only there
            } else if (!v.function.empty()) {
            } else if (v.literal == Value::Literal::None) {
                if (!a->accepts(v.type())) all = false;
            } else if (a->kind == Annotation::Kind::Concrete) {
                if (a->type != v.type()) exact = false;
                if (a->type != v.type() && !literal_converts(v, a->type)) all = false;
            } else {
                const Type def_type = Type::scalar(v.literal == Value::Literal::Float ? Scalar::Float32 : Scalar::Int32);
                if (!a->accepts(def_type)) all = false;
            }
            params.push_back(*a);
        }
        if (all) fits.push_back({def, std::move(params), exact});
    }
    std::vector<Candidate *> chosen;
    for (Candidate &c : fits)
        if (c.exact) chosen.push_back(&c);
    if (chosen.empty())
        for (Candidate &c : fits) chosen.push_back(&c);
    if (chosen.size() != 1) {
        std::vector<std::string> sigs;
        for (const ast::FunctionDef *def : defs) {
            std::vector<std::string> ps;
            for (const ast::Param &p : def->params) {
                auto d = p.annotation ? dotted(*p.annotation) : std::nullopt;
                ps.push_back(p.name + (d ? ": " + *d : std::string()));
            }
            sigs.push_back(name + "(" + join(ps) + ")  (" +
                           (def->bundled_from.empty() ? "line " + std::to_string(def->location.line) : def->bundled_from) + ")");
        }
        diags_.error(e.location,
                     std::string(chosen.empty() ? "no overload of function '" : "ambiguous call to function '") + name +
                         "' matches the argument types " + type_list(args) +
                         (chosen.empty() ? half_precision_hint(args) : std::string()) + "; candidates:",
                     std::move(sigs));
        return poison();
    }
    Candidate &c = *chosen.front();
    std::vector<Type> types;
    std::map<std::string, std::string> functions;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (c.params[i].reference) {
            // The callee writes through: a variable, array element or field of one, of exactly the type.
            const auto lvalue = [](const ir::Expr *x) {
                while (x && (x->kind == K::Field || (x->kind == K::Index && x->args[0]->type.kind() != Type::Kind::Array)))
                    x = x->args[0].get();
                return x && (x->kind == K::Local || x->kind == K::Param ||
                             (x->kind == K::Index && x->args[0]->type.kind() == Type::Kind::Array));
            };
            if (args[i].literal != Value::Literal::None || !lvalue(args[i].expr.get()) ||
                args[i].type() != c.params[i].type) {
                diags_.error(e.children.size() > i + 1 ? e.children[i + 1]->location : e.location,
                             "argument '" + c.def->params[i].name + "' of '" + name + "' is a wp.ref[" +
                                 c.params[i].type.name() + "]: pass a variable, array element or field of that type "
                                 "for it to write to");
                return poison();
            }
        }
        if (!args[i].function.empty()) {
            functions[c.def->params[i].name] = args[i].function;
            types.push_back(Type::void_type()); // no C++ argument
            continue;
        }
        if (c.params[i].kind == Annotation::Kind::Concrete) coerce(args[i], c.params[i].type);
        else settle(args[i]);
        types.push_back(args[i].type());
    }
    const int index = instantiate(*c.def, types, e.location, nullptr, functions);
    if (index < 0) return poison();
    const ir::Function &f = out_.functions[static_cast<std::size_t>(index)];
    if (scope_ && f.uses_tid) scope_->function->uses_tid = true;
    if (scope_ && f.uses_tiles) scope_->function->uses_tiles = true; // its caller runs tiled too
    if (scope_ && (f.writes_through_refs ||
                   std::any_of(f.params.begin(), f.params.end(), [](const ir::Variable &p) { return p.reference; })))
        scope_->function->writes_through_refs = true;
    if (scope_ && f.tid_dims) {
        // One launch shape per kernel: a function's tid() unpacking must agree with its caller's.
        ir::Function &caller = *scope_->function;
        if (caller.tid_dims && caller.tid_dims != f.tid_dims) {
            diags_.error(e.location, "function '" + f.name + "' unpacks tid() into " + std::to_string(f.tid_dims) +
                                         " values but '" + caller.name + "' into " + std::to_string(caller.tid_dims));
            return poison();
        }
        if (!caller.tid_dims) {
            caller.tid_dims = f.tid_dims;
            scope_->tid_dims_line = static_cast<int>(e.location.line);
        }
    }
    auto x = make(K::Call, f.return_type ? *f.return_type : Type::void_type(), e.location);
    x->index = index;
    x->name = f.mangled_name;
    for (Value &v : args)
        if (v.function.empty()) x->args.push_back(std::move(v.expr));
    return Value{std::move(x)};
}

} // namespace weft::kernel::detail
