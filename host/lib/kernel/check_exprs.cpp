// Expressions: literals, operators and calls, with overload resolution over
// the registry (exact match, then literal conversion). Names, fields and
// element subscripts are in check_access.cpp.
#include "checker.hpp"

#include <algorithm>

namespace weft::kernel::detail {

using ast::Expr;
using K = ir::Expr::Kind;

namespace {

const std::map<std::string, std::string> binary_names{
    {"+", "add"},     {"-", "sub"},    {"*", "mul"},     {"/", "div"},    {"//", "floordiv"}, {"%", "mod"},
    {"**", "pow"},    {"&", "bit_and"}, {"|", "bit_or"}, {"^", "bit_xor"}, {"<<", "lshift"},   {">>", "rshift"},
    {"@", "mul"},     {"<", "lt"},     {"<=", "le"},     {">", "gt"},     {">=", "ge"},       {"==", "eq"},
    {"!=", "ne"}};

Type default_literal_type(const Value &v) {
    if (v.literal == Value::Literal::Float) return Type::scalar(Scalar::Float32);
    if (!v.expr || !v.expr->value || v.expr->value->int_components.empty()) return Type::scalar(Scalar::Int32);
    return Type::scalar(Checker::literal_int_type(v.expr->value->int_components[0]));
}

/// The scalar a literal next to `t` should become: t's own scalar or its components'.
std::optional<Type> literal_partner(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar:
        if (t.is_bool()) return std::nullopt;
        return t;
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return Type::scalar(t.scalar_type());
    default: return std::nullopt;
    }
}

} // namespace

ir::ExprPtr Checker::make(K kind, const Type &type, SourceLocation at) {
    auto e = std::make_unique<ir::Expr>(kind, at);
    e->type = type;
    return e;
}

std::shared_ptr<const BuiltinOverload> Checker::note_builtin(const BuiltinOverload &o) {
    if (auto at = noted_builtin_at_.find(&o); at != noted_builtin_at_.end()) return at->second;
    auto [it, added] = noted_builtins_.try_emplace(o.identity());
    if (added) {
        it->second = std::make_shared<const BuiltinOverload>(o);
        out_.references.builtins.push_back(o);
        for (const Parameter &p : o.params) note_type(p.type);
        if (o.result) note_type(*o.result);
    }
    noted_builtin_at_.emplace(&o, it->second);
    return it->second;
}

// The one literal conversion rule: an int literal converts to any float type
// and to every integer type that can hold its value; a float literal to any
// float type; nothing converts to bool or to a non-scalar.
bool Checker::literal_converts(const Value &v, const Type &target) {
    if (v.literal == Value::Literal::None || !target.is_scalar() || target.is_bool()) return false;
    if (v.literal == Value::Literal::Float) return target.is_float();
    if (target.is_integer() && v.expr && v.expr->value && !v.expr->value->int_components.empty())
        return fits(v.expr->value->int_components[0], target.scalar_type());
    return true;
}

void Checker::unify_literals(Value &a, Value &b) {
    if (!a.ok() || !b.ok()) return;
    // A literal takes the scalar type of the other operand (its components' for vectors).
    if (a.literal != Value::Literal::None && b.literal == Value::Literal::None) {
        if (auto partner = literal_partner(b.type())) coerce(a, *partner);
    } else if (b.literal != Value::Literal::None && a.literal == Value::Literal::None) {
        if (auto partner = literal_partner(a.type())) coerce(b, *partner);
    } else if (a.literal != Value::Literal::None && b.literal != Value::Literal::None) {
        // Two literals: float if either is, else the integer type that holds both.
        Type joint = Type::scalar(Scalar::Float32);
        if (a.literal == Value::Literal::Int && b.literal == Value::Literal::Int) {
            const Type ta = default_literal_type(a), tb = default_literal_type(b);
            joint = scalar_size(ta.scalar_type()) >= scalar_size(tb.scalar_type()) ? ta : tb;
            if (ta.scalar_type() == Scalar::UInt64 || tb.scalar_type() == Scalar::UInt64)
                joint = Type::scalar(Scalar::UInt64);
        }
        coerce(a, joint);
        coerce(b, joint);
    }
}

bool Checker::coerce(Value &v, const Type &target) {
    if (!v.ok()) return false;
    if (v.literal == Value::Literal::None) return v.type() == target;
    if (!literal_converts(v, target)) return false;
    v.expr->type = target;
    if (v.expr->value) v.expr->value->type = target;
    v.literal = Value::Literal::None;
    return true;
}

void Checker::settle(Value &v) {
    if (v.ok() && v.literal != Value::Literal::None) coerce(v, default_literal_type(v));
}

// ---------------------------------------------------------------------------

Value Checker::expr(const Expr &e) {
    switch (e.kind) {
    case Expr::Kind::Int:
    case Expr::Kind::Float:
    case Expr::Kind::Bool: return expr_literal(e);
    case Expr::Kind::Name: return expr_name(e);
    case Expr::Kind::Attribute: return expr_attribute(e);
    case Expr::Kind::Subscript: return expr_subscript(e);
    case Expr::Kind::Call: return call(e);
    case Expr::Kind::Binary: return expr_binary(e);
    case Expr::Kind::Unary: return expr_unary(e);
    case Expr::Kind::Compare: return expr_compare(e);
    case Expr::Kind::BoolOp: return expr_bool_op(e);
    case Expr::Kind::IfExp: return expr_if(e);
    case Expr::Kind::String:
    case Expr::Kind::Tuple:
    case Expr::Kind::Slice:
    case Expr::Kind::Dict:
    case Expr::Kind::List:
    case Expr::Kind::Ellipsis:
    case Expr::Kind::Starred: return expr_misplaced(e);
    }
    return poison();
}

Value Checker::expr_literal(const Expr &e) {
    if (e.kind == Expr::Kind::Int) {
        // Too large for the default int32: int64, then uint64, still converting like a literal.
        const Type t = Type::scalar(literal_int_type(e.int_value));
        Value v{make(K::Literal, t, e.location), Value::Literal::Int};
        v.expr->value = ir::ConstantValue{t, {static_cast<double>(e.int_value)}, {e.int_value}};
        return v;
    }
    if (e.kind == Expr::Kind::Float) {
        Value v{make(K::Literal, Type::scalar(Scalar::Float32), e.location), Value::Literal::Float};
        v.expr->value = ir::ConstantValue{Type::scalar(Scalar::Float32), {e.float_value}, {0}};
        return v;
    }
    Value v{make(K::Literal, Type::scalar(Scalar::Bool), e.location)};
    v.expr->value = ir::ConstantValue{Type::scalar(Scalar::Bool), {e.bool_value ? 1.0 : 0.0}, {e.bool_value}};
    return v;
}

Value Checker::expr_misplaced(const Expr &e) {
    switch (e.kind) {
    case Expr::Kind::String:
        diags_.error(e.location, "strings are only supported as print() arguments in kernels");
        break;
    case Expr::Kind::Tuple:
        diags_.error(e.location, "tuples are only supported in assignments, returns and tid() unpacking");
        break;
    case Expr::Kind::Slice:
        diags_.error(e.location, "a slice (lower:upper:step) is only allowed inside a subscript: a[1:3], v[0:2]");
        break;
    case Expr::Kind::Dict:
        diags_.error(e.location, "dict literals are only supported as module options: @wp.kernel(module_options={...}) "
                                 "and wp.set_module_options({...})");
        break;
    case Expr::Kind::List:
        diags_.error(e.location, "list literals are only supported in wp.overload(kernel, [types]); use a vector "
                                 "(wp.vec3(...)) or an array for values");
        break;
    case Expr::Kind::Ellipsis:
        diags_.error(e.location, "'...' is only the body of a @wp.overload or @wp.func_native stub");
        break;
    case Expr::Kind::Starred:
        diags_.error(e.location, "*v unpacks a vector only as a call argument: f(*v), wp.vec4(*v, 1.0)");
        break;
    default: break;
    }
    return poison();
}

Value Checker::expr_binary(const Expr &e) {
    Value a = expr(*e.children[0]);
    Value b = expr(*e.children[1]);
    return binary(e.text, std::move(a), std::move(b), e.location);
}

Value Checker::expr_unary(const Expr &e) {
    Value a = expr(*e.children[0]);
    if (!a.ok()) return poison();
    if (e.text == "not") {
        settle(a);
        if (!a.type().is_scalar()) {
            diags_.error(e.location, "'not' needs a bool or scalar operand, got '" + a.type().name() + "'");
            return poison();
        }
        auto x = make(K::Not, Type::scalar(Scalar::Bool), e.location);
        x->args.push_back(std::move(a.expr));
        return Value{std::move(x)};
    }
    if (a.literal != Value::Literal::None && (e.text == "-" || e.text == "+")) return signed_literal(e, std::move(a));
    const std::string name = e.text == "-" ? "neg" : e.text == "+" ? "pos" : "invert";
    std::vector<Value> args;
    args.push_back(std::move(a));
    return builtin_call(name, std::move(args), e.location, "operator " + e.text);
}

Value Checker::signed_literal(const Expr &e, Value a) {
    // Keep literals literal: -1 still converts like 1.
    if (e.text == "-" && a.expr->value) {
        for (double &c : a.expr->value->components) c = -c;
        for (ir::IntValue &c : a.expr->value->int_components) c = -c;
        if (a.literal == Value::Literal::Int) {
            const ir::IntValue v = a.expr->value->int_components[0];
            if (!fits(v, Scalar::Int64) && !fits(v, Scalar::UInt64)) {
                diags_.error(e.location, "integer literal " + ir::to_string(v) + " does not fit a 64-bit integer");
                return poison();
            }
            const Type t = Type::scalar(literal_int_type(v));
            a.expr->type = t;
            a.expr->value->type = t;
        }
    }
    a.expr->location = e.location;
    return a;
}

Value Checker::expr_compare(const Expr &e) {
    for (const std::string &op : e.ops)
        if (!binary_names.count(op)) {
            diags_.error(e.location, "comparison '" + op + "' is not supported in kernels");
            return poison();
        }
    // a < f() < c: every operand evaluated once, in order; c only when a < f()
    // holds (lowering makes that explicit). One node, one overload per pair.
    std::vector<Value> operands;
    for (const auto &c : e.children) operands.push_back(expr(*c));
    for (const Value &v : operands)
        if (!v.ok()) return poison();
    auto x = make(K::Compare, Type::scalar(Scalar::Bool), e.location);
    if (operands.size() == 2) mixed_comparison(operands[0], operands[1]);
    for (std::size_t i = 0; i < e.ops.size(); ++i) {
        std::vector<Value *> pair{&operands[i], &operands[i + 1]};
        unify_literals(*pair[0], *pair[1]);
        const BuiltinOverload *o = resolve_builtin(binary_names.at(e.ops[i]), pair, e.location, "operator " + e.ops[i]);
        if (!o) return poison();
        x->chain.push_back(note_builtin(*o));
    }
    for (Value &v : operands) x->args.push_back(std::move(v.expr));
    return Value{std::move(x)};
}

Value Checker::expr_bool_op(const Expr &e) {
    auto x = make(e.text == "and" ? K::And : K::Or, Type::scalar(Scalar::Bool), e.location);
    bool ok = true;
    for (const auto &c : e.children) {
        Value v = expr(*c);
        if (!v.ok()) {
            ok = false;
            continue;
        }
        settle(v);
        if (!v.type().is_scalar()) {
            diags_.error(c->location, "'" + e.text + "' needs bool or scalar operands, got '" + v.type().name() + "'");
            ok = false;
            continue;
        }
        x->args.push_back(std::move(v.expr));
    }
    if (!ok) return poison();
    return Value{std::move(x)};
}

Value Checker::expr_if(const Expr &e) {
    Value cond = expr(*e.children[0]);
    Value body = expr(*e.children[1]);
    Value orelse = expr(*e.children[2]);
    if (!cond.ok() || !body.ok() || !orelse.ok()) return poison();
    settle(cond);
    if (!cond.type().is_scalar()) {
        diags_.error(e.children[0]->location, "condition must be bool or a scalar, got '" + cond.type().name() + "'");
        return poison();
    }
    unify_literals(body, orelse);
    settle(body);
    settle(orelse);
    if (body.type() != orelse.type()) {
        diags_.error(e.location, "both branches of a conditional expression must have one type, got '" +
                                     body.type().name() + "' and '" + orelse.type().name() + "'");
        return poison();
    }
    auto x = make(K::Select, body.type(), e.location);
    x->args.push_back(std::move(cond.expr));
    x->args.push_back(std::move(body.expr));
    x->args.push_back(std::move(orelse.expr));
    return Value{std::move(x)};
}

namespace {
/// C++'s usual arithmetic conversions, which Warp's comparisons follow (its
/// generated C++ compares the operands as they are): the wider float with an
/// integer; for two integers the promoted wider type, unsigned winning at
/// equal width (so int32 -2 < uint32 0 is false, as in Warp). float16 and
/// bfloat16 mix with nothing (Warp's C++ finds the comparison ambiguous).
std::optional<Scalar> common_scalar(Scalar a, Scalar b) {
    const Type ta = Type::scalar(a), tb = Type::scalar(b);
    if (ta.is_bool() || tb.is_bool() || is_half_precision(a) || is_half_precision(b)) return std::nullopt;
    if (ta.is_float() || tb.is_float()) {
        if (a == Scalar::Float64 || b == Scalar::Float64) return Scalar::Float64;
        return Scalar::Float32;
    }
    const auto bits = [](Scalar s) {
        switch (s) {
        case Scalar::Int64:
        case Scalar::UInt64: return 64;
        default: return 32; // int8/16 and uint8/16 promote to int32 first
        }
    };
    const auto is_unsigned = [](Scalar s) { return s == Scalar::UInt32 || s == Scalar::UInt64; };
    const auto promoted = [&](Scalar s) {
        return s == Scalar::Int8 || s == Scalar::Int16 || s == Scalar::UInt8 || s == Scalar::UInt16 ? Scalar::Int32 : s;
    };
    const Scalar pa = promoted(a), pb = promoted(b);
    if (pa == pb) return pa;
    if (bits(pa) != bits(pb)) return bits(pa) > bits(pb) ? pa : pb;
    return is_unsigned(pa) ? pa : pb; // same width, one unsigned
}
} // namespace

void Checker::mixed_comparison(Value &a, Value &b) {
    if (!a.ok() || !b.ok() || a.literal != Value::Literal::None || b.literal != Value::Literal::None) return;
    if (!a.type().is_scalar() || !b.type().is_scalar() || a.type() == b.type()) return;
    const std::optional<Scalar> common = common_scalar(a.type().scalar_type(), b.type().scalar_type());
    if (!common) return;
    for (Value *v : {&a, &b}) {
        if (v->type() == Type::scalar(*common)) continue;
        auto cast = make(K::Cast, Type::scalar(*common), v->expr->location);
        cast->args.push_back(std::move(v->expr));
        v->expr = std::move(cast);
    }
}

std::optional<std::string> Checker::function_named(const Expr &e) const {
    if (e.kind != Expr::Kind::Name && e.kind != Expr::Kind::Attribute) return std::nullopt;
    const auto d = dotted(e);
    if (!d) return std::nullopt;
    std::string n = strip_warp(*d);
    if (*d == n) {
        // A value (local, parameter, constant) or a type is not a function.
        if (scope_ && (scope_->locals.count(n) || scope_->params.count(n))) return std::nullopt;
        if (constants_.count(n) || type_named(n)) return std::nullopt;
        if (scope_)
            if (auto local = scope_->function_aliases.find(n); local != scope_->function_aliases.end())
                return local->second.first;
        if (auto alias = function_aliases_.find(n); alias != function_aliases_.end()) return alias->second;
        if (funcs_.count(n)) return n;
    }
    if (n.find('.') != std::string::npos || warp_constants_.count(n)) return std::nullopt;
    if (!registry_.overloads(n).empty() || ir::parse_intrinsic(n)) return n;
    return std::nullopt;
}

Value Checker::static_value(const Expr &e) {
    // wp.static(expr): Warp evaluates expr when it builds the module. weft can
    // for constant expressions over literals and module constants.
    if (e.children.size() != 2 || !e.keywords.empty()) {
        diags_.error(e.location, "wp.static() takes one expression");
        return poison();
    }
    Value::Literal literal = Value::Literal::None;
    const std::size_t errors = diags_.error_count();
    auto c = evaluate_constant(*e.children[1], literal);
    if (!c) {
        if (diags_.error_count() == errors)
            diags_.error(e.children[1]->location,
                         "wp.static() needs a value weft can compute when it builds the module: literals, module "
                         "constants and arithmetic on them");
        return poison();
    }
    Value v{make(K::Literal, c->type, e.location), literal};
    v.expr->value = *c;
    if (!c->type.is_scalar()) v.literal = Value::Literal::None;
    return v;
}

Value Checker::binary(const std::string &op, Value a, Value b, SourceLocation at) {
    if (!a.ok() || !b.ok()) return poison();
    auto it = binary_names.find(op);
    if (it == binary_names.end()) {
        diags_.error(at, "operator '" + op + "' is not supported in kernels");
        return poison();
    }
    unify_literals(a, b);
    std::vector<Value> args;
    args.push_back(std::move(a));
    args.push_back(std::move(b));
    return builtin_call(it->second, std::move(args), at, "operator " + op);
}

const BuiltinOverload *Checker::resolve_builtin(const std::string &name, std::vector<Value *> &args, SourceLocation at,
                                                const std::string &what) {
    for (const Value *v : args)
        if (!v->ok()) return nullptr;
    if (std::any_of(args.begin(), args.end(), [](const Value *v) { return v->literal == Value::Literal::Float; }))
        for (Value *v : args)
            if (v->literal == Value::Literal::Int) v->literal = Value::Literal::Float; // max(0.0, 1) is a float call
    const std::vector<BuiltinOverload> &all = registry_.overloads(name);
    std::vector<const BuiltinOverload *> exact, converting;
    for (const BuiltinOverload &o : all) {
        if (o.generic() || o.params.size() != args.size()) continue;
        bool same = true, convertible = true;
        // Stops at the first argument that rules the overload out: this loop
        // runs over every overload of every operator (bench/frontend).
        for (std::size_t i = 0; i < args.size() && (same || convertible); ++i) {
            const Type &p = o.params[i].type;
            const Value &v = *args[i];
            const bool equal = v.type() == p;
            if (!equal) same = false;
            if (!equal && !literal_converts(v, p)) convertible = false;
        }
        if (same) exact.push_back(&o);
        else if (convertible) converting.push_back(&o);
    }
    std::vector<const BuiltinOverload *> chosen = exact.empty() ? converting : exact;
    if (chosen.empty() && !all.empty())
        if (const BuiltinOverload *o = shape_overload(name, args)) chosen = {o};
    if (chosen.size() > 1 && exact.empty()) {
        // Several conversions fit: prefer the one where literals keep their default type.
        std::vector<const BuiltinOverload *> preferred;
        for (const BuiltinOverload *o : chosen) {
            bool defaults = true;
            for (std::size_t i = 0; i < args.size(); ++i)
                if (args[i]->literal != Value::Literal::None && o->params[i].type != default_literal_type(*args[i]))
                    defaults = false;
            if (defaults) preferred.push_back(o);
        }
        if (preferred.size() == 1) chosen = preferred;
    }
    if (chosen.size() != 1) {
        std::vector<Value> shown_args;
        for (const Value *v : args) {
            Value copy{v->expr->clone(), v->literal};
            shown_args.push_back(std::move(copy));
        }
        std::vector<std::string> candidates;
        std::size_t shown = 0;
        std::vector<const BuiltinOverload *> listing = chosen;
        if (listing.empty())
            for (const BuiltinOverload &o : all) {
                // Closest first: the same arity and sharing a parameter type with the arguments.
                bool related = o.params.size() == args.size();
                if (related) {
                    related = false;
                    for (std::size_t i = 0; i < args.size(); ++i)
                        if (o.params[i].type == args[i]->type()) related = true;
                }
                if (related) listing.push_back(&o);
            }
        if (listing.empty())
            for (const BuiltinOverload &o : all) listing.push_back(&o);
        for (const BuiltinOverload *o : listing) {
            if (shown++ == 8) break;
            candidates.push_back(o->signature());
        }
        if (listing.size() > 8) candidates.push_back("... and " + std::to_string(listing.size() - 8) + " more");
        if (all.empty()) {
            diags_.error(at, "unknown function '" + name + "'");
        } else if (chosen.empty()) {
            diags_.error(at,
                         "no overload of " + (what.empty() ? "'" + name + "'" : what + " ('" + name + "')") +
                             " matches the argument types " + type_list(shown_args) +
                             half_precision_hint(shown_args) + wide_literal_hint(shown_args) + "; candidates:",
                         std::move(candidates));
        } else {
            diags_.error(at,
                         "ambiguous call to '" + name + "' with argument types " + type_list(shown_args) +
                             "; candidates:",
                         std::move(candidates));
        }
        return nullptr;
    }
    const BuiltinOverload &o = *chosen.front();
    for (std::size_t i = 0; i < args.size(); ++i) coerce(*args[i], o.params[i].type);
    return &o;
}

Value Checker::builtin_call(const std::string &name, std::vector<Value> args, SourceLocation at,
                            const std::string &what) {
    for (const Value &v : args)
        if (!v.ok()) return poison();
    if (std::any_of(args.begin(), args.end(), [](const Value &v) { return v.type().is_tile(); }))
        return tile_operator(name, std::move(args), at, what.empty() ? name + "()" : what);
    std::vector<Value *> refs;
    for (Value &v : args) refs.push_back(&v);
    const BuiltinOverload *o = resolve_builtin(name, refs, at, what);
    if (!o) return poison();
    for (std::size_t i = 0; i < args.size() && i < o->params.size(); ++i)
        if (o->params[i].inout && (args[i].expr->kind != K::Local || args[i].type() != o->params[i].type)) {
            // The native function takes T &: only a variable of exactly that type can be written.
            diags_.error(args[i].expr->location.line ? args[i].expr->location : at,
                         "argument '" + o->params[i].name + "' of '" + name + "' is written by the call: pass a " +
                             "local variable of type " + o->params[i].type.name() +
                             (args[i].expr->kind == K::Local ? " (this one is " + args[i].type().name() + ")" : ""));
            return poison();
        }
    auto x = make(K::Builtin, o->result ? *o->result : Type::void_type(), at);
    x->name = name;
    x->overload = note_builtin(*o);
    for (Value &v : args) x->args.push_back(std::move(v.expr));
    return Value{std::move(x)};
}

// ---------------------------------------------------------------------------

namespace {
bool has_call(const Expr &e) {
    if (e.kind == Expr::Kind::Call) return true;
    return std::any_of(e.children.begin(), e.children.end(), [](const ast::ExprPtr &c) { return has_call(*c); });
}
} // namespace

bool Checker::infer_sized_type(const Expr &e, bool matrix, Expr &type_call) {
    // As Warp: a size or dtype left out comes from the values (wp.vector(1.0, 2.0, 3.0) is a vec3).
    const char *size_name = matrix ? "shape" : "length";
    const auto given = [&](const char *name) {
        return std::any_of(e.keywords.begin(), e.keywords.end(), [&](const ast::Keyword &k) { return k.name == name; });
    };
    const bool has_size = given(size_name), has_dtype = given("dtype");
    if (has_size && has_dtype) return true;
    const std::string what = matrix ? "wp.matrix" : "wp.vector";
    std::vector<Type> types;
    for (std::size_t i = 1; i < e.children.size(); ++i) {
        if (e.children[i]->kind == Expr::Kind::Starred) return true; // unpacked later: sizes must be given
        Value v = expr(*e.children[i]);
        if (!v.ok()) return false;
        settle(v);
        types.push_back(v.type());
    }
    std::optional<Scalar> dtype;
    int rows = 0, cols = 0;
    const bool copy = types.size() == 1 && (types[0].kind() == (matrix ? Type::Kind::Matrix : Type::Kind::Vector));
    if (copy) {
        rows = types[0].rows();
        cols = matrix ? types[0].cols() : 0;
        dtype = types[0].scalar_type();
    } else if (types.empty()) {
        dtype = Scalar::Float32;
    } else {
        for (const Type &t : types)
            if (!t.is_scalar()) {
                diags_.error(e.location, what + "() takes scalar values (or one " + (matrix ? "matrix" : "vector") +
                                             " to copy), got '" + t.name() + "'");
                return false;
            }
        for (const Type &t : types)
            if (t != types.front()) {
                diags_.error(e.location, "all values given when constructing a " + std::string(matrix ? "matrix" : "vector") +
                                             " must have the same type, got '" + types.front().name() + "' and '" + t.name() +
                                             "' (give dtype=..., or convert them)");
                return false;
            }
        dtype = types.front().scalar_type();
        if (!matrix && types.size() > 1) rows = static_cast<int>(types.size());
    }
    if (!has_size) {
        if (rows == 0) {
            diags_.error(e.location, std::string("the ") + size_name + " of a " + (matrix ? "matrix" : "vector") +
                                         " cannot be inferred here: give it, " + what + "(" +
                                         (matrix ? "..., shape=(2, 2)" : "..., length=3") + ")");
            return false;
        }
        auto size = std::make_unique<Expr>(Expr::Kind::Int, e.location);
        size->int_value = static_cast<std::uint64_t>(rows);
        size->text = std::to_string(rows);
        if (matrix) {
            auto shape = std::make_unique<Expr>(Expr::Kind::Tuple, e.location);
            auto c = std::make_unique<Expr>(Expr::Kind::Int, e.location);
            c->int_value = static_cast<std::uint64_t>(cols);
            c->text = std::to_string(cols);
            shape->children.push_back(std::move(size));
            shape->children.push_back(std::move(c));
            size = std::move(shape);
        }
        type_call.keywords.push_back(ast::Keyword{size_name, std::move(size), e.location});
    }
    if (!has_dtype) {
        auto name = std::make_unique<Expr>(Expr::Kind::Name, e.location);
        name->text = Type::scalar(*dtype).name();
        type_call.keywords.push_back(ast::Keyword{"dtype", std::move(name), e.location});
    }
    return true;
}

Value Checker::sized_constructor(const Expr &e, bool matrix) {
    // The size and dtype name the type; the positional arguments construct it.
    auto type_call = std::make_unique<Expr>(Expr::Kind::Call, e.location);
    type_call->children.push_back(ast::clone(*e.children[0]));
    auto values = std::make_unique<Expr>(Expr::Kind::Call, e.location);
    values->children.push_back(ast::clone(*e.children[0]));
    for (std::size_t i = 1; i < e.children.size(); ++i) values->children.push_back(ast::clone(*e.children[i]));
    for (const ast::Keyword &k : e.keywords) type_call->keywords.push_back(ast::Keyword{k.name, ast::clone(*k.value), k.location});
    if (!infer_sized_type(e, matrix, *type_call)) return poison();
    const auto t = user_vector_type(*type_call, matrix);
    if (!t) return poison();
    note_type(*t);
    synthesized_.push_back(std::move(values));
    return construct(*t, *synthesized_.back(), e.location);
}

ast::ExprPtr Checker::expand_starred(const Expr &e) {
    auto out = std::make_unique<Expr>(Expr::Kind::Call, e.location);
    out->children.push_back(ast::clone(*e.children[0]));
    for (std::size_t i = 1; i < e.children.size(); ++i) {
        const Expr &arg = *e.children[i];
        if (arg.kind != Expr::Kind::Starred) {
            out->children.push_back(ast::clone(arg));
            continue;
        }
        const Expr &operand = *arg.children[0];
        // Each component reads the operand again: it must be free of calls.
        if (has_call(operand)) {
            diags_.error(operand.location, "*v unpacks a variable or an element (v, a[i]): bind a call's result "
                                           "first (v = f(...), then g(*v))");
            return nullptr;
        }
        Value v = expr(operand);
        if (!v.ok()) return nullptr;
        const Type &t = v.type();
        const int n = t.kind() == Type::Kind::Vector ? t.rows() : t.kind() == Type::Kind::Quaternion ? 4 : 0;
        if (!n) {
            diags_.error(operand.location, "*v unpacks a vector or quaternion, not " + t.name());
            return nullptr;
        }
        for (int k = 0; k < n; ++k) {
            auto sub = std::make_unique<Expr>(Expr::Kind::Subscript, operand.location);
            sub->children.push_back(ast::clone(operand));
            auto index = std::make_unique<Expr>(Expr::Kind::Int, operand.location);
            index->int_value = static_cast<std::uint64_t>(k);
            index->text = std::to_string(k);
            sub->children.push_back(std::move(index));
            out->children.push_back(std::move(sub));
        }
    }
    for (const ast::Keyword &k : e.keywords) out->keywords.push_back(ast::Keyword{k.name, ast::clone(*k.value), k.location});
    return out;
}

std::optional<std::vector<const Expr *>> Checker::keyword_order(const std::string &name, const Expr &e,
                                                               const std::vector<std::vector<std::string>> &signatures) {
    const std::size_t positional = e.children.size() - 1;
    std::optional<std::vector<const Expr *>> chosen;
    for (const std::vector<std::string> &params : signatures) {
        if (params.size() != positional + e.keywords.size()) continue;
        ArgumentSlots order = place_arguments(e, params);
        if (order.problem != ArgumentSlots::Problem::None) continue;
        if (chosen && *chosen != order.slots) {
            diags_.error(e.keywords.front().location, "the keyword arguments of this call to '" + name +
                                                          "' fit several of its overloads differently: pass them by position");
            return std::nullopt;
        }
        chosen = std::move(order.slots);
    }
    if (!chosen) {
        std::string sigs;
        for (const std::vector<std::string> &params : signatures) {
            std::string s;
            for (const std::string &p : params) s += (s.empty() ? "" : ", ") + p;
            sigs += (sigs.empty() ? "" : "; ") + name + "(" + s + ")";
        }
        diags_.error(e.keywords.front().location, "no parameter list of '" + name + "' takes these arguments (keyword '" +
                                                      e.keywords.front().name + "'): " + sigs);
    }
    return chosen;
}

std::optional<std::vector<Value>> Checker::bind_with_defaults(
    const std::string &name, const Expr &e, const ast::FunctionDef &def,
    const std::function<Value(const Expr &, std::size_t)> &argument) {
    const ArgumentSlots placed = place_arguments(e, param_names(def.params));
    switch (placed.problem) {
    case ArgumentSlots::Problem::None: break;
    case ArgumentSlots::Problem::TooMany:
        diags_.error(e.location, "function '" + name + "' takes at most " + std::to_string(def.params.size()) +
                                     " arguments, got " + std::to_string(e.children.size() - 1));
        return std::nullopt;
    case ArgumentSlots::Problem::UnknownKeyword:
        diags_.error(placed.keyword->location, "function '" + name + "' has no parameter named '" + placed.keyword->name + "'");
        return std::nullopt;
    case ArgumentSlots::Problem::Repeated:
        diags_.error(placed.keyword->location, "function '" + name + "' got parameter '" + placed.keyword->name + "' twice");
        return std::nullopt;
    }
    const std::vector<const Expr *> &given = placed.slots;
    std::vector<Value> args;
    for (std::size_t i = 0; i < def.params.size(); ++i) {
        const ast::Param &p = def.params[i];
        if (given[i]) {
            args.push_back(argument(*given[i], i));
        } else if (p.default_value) {
            args.push_back(default_argument(p));
        } else {
            diags_.error(e.location, "call to '" + name + "' is missing parameter '" + p.name + "' (it has no default)");
            return std::nullopt;
        }
    }
    return args;
}

Value Checker::default_argument(const ast::Param &param) {
    struct ModuleScope {
        FunctionScope *&scope;
        FunctionScope *caller;
        ~ModuleScope() { scope = caller; }
    } module_scope{scope_, scope_};
    scope_ = nullptr;
    return expr(*param.default_value);
}

bool Checker::constant_default(const Expr &value) const {
    switch (value.kind) {
    case Expr::Kind::Int:
    case Expr::Kind::Float:
    case Expr::Kind::Bool:
    case Expr::Kind::Name:      // a module constant (anything else is reported when it is evaluated)
    case Expr::Kind::Attribute: // wp.pi, Color.RED
        return true;
    case Expr::Kind::Unary:
        return (value.text == "-" || value.text == "+") && constant_default(*value.children[0]);
    case Expr::Kind::Call: {
        const auto callee = dotted(*value.children[0]);
        if (!callee || !value.keywords.empty() || !type_named(*callee)) return false;
        return std::all_of(value.children.begin() + 1, value.children.end(),
                           [&](const ast::ExprPtr &c) { return constant_default(*c); });
    }
    default: return false;
    }
}

Value Checker::call(const Expr &e) {
    if (std::any_of(e.children.begin() + 1, e.children.end(),
                    [](const ast::ExprPtr &c) { return c->kind == Expr::Kind::Starred; })) {
        ast::ExprPtr expanded = expand_starred(e);
        if (!expanded) return poison();
        synthesized_.push_back(std::move(expanded));
        return call(*synthesized_.back());
    }
    const Expr &callee = *e.children[0];
    auto name = dotted(callee);
    // type(x)(value): a value of x's type, as generic Warp code converts (x itself is not evaluated).
    if (!name && callee.kind == Expr::Kind::Call && callee.children.size() == 2 && callee.keywords.empty() &&
        callee.children[0]->kind == Expr::Kind::Name && callee.children[0]->text == "type" &&
        !(scope_ && (scope_->locals.count("type") || scope_->params.count("type")))) {
        Value of = expr(*callee.children[1]);
        if (!of.ok()) return poison();
        settle(of);
        const Type t = of.type();
        if (t.kind() == Type::Kind::Array || t.kind() == Type::Kind::Tuple || t.is_void()) {
            diags_.error(callee.location, "type(x)(...) constructs values of scalar, vector, matrix, quaternion and "
                                          "struct types; x is " + t.name());
            return poison();
        }
        return construct(t, e, e.location);
    }
    // wp.static(f)(x): Warp evaluates f when it builds the kernel; a function's name is that already.
    if (!name && callee.kind == Expr::Kind::Call && callee.children.size() == 2 && callee.keywords.empty())
        if (const auto s = dotted(*callee.children[0]); s && *s != "static" && strip_warp(*s) == "static") {
            if (!dotted(*callee.children[1])) {
                diags_.error(callee.children[1]->location, "wp.static(...) called as a function names the function: "
                                                           "wp.static(f)(x), with f a @wp.func or a builtin");
                return poison();
            }
            auto direct = std::make_unique<Expr>(Expr::Kind::Call, e.location);
            direct->children.push_back(ast::clone(*callee.children[1]));
            for (std::size_t i = 1; i < e.children.size(); ++i) direct->children.push_back(ast::clone(*e.children[i]));
            for (const ast::Keyword &k : e.keywords)
                direct->keywords.push_back(ast::Keyword{k.name, ast::clone(*k.value), k.location});
            synthesized_.push_back(std::move(direct));
            return call(*synthesized_.back());
        }
    if (!name) {
        diags_.error(callee.location, "only named functions and types can be called");
        return poison();
    }
    std::string n = strip_warp(*name);
    // `f = wp.sin` at module level: f(x) is sin(x) (a local or parameter named f still shadows it).
    if (*name == n && !(scope_ && (scope_->locals.count(n) || scope_->params.count(n)))) {
        bool local_alias = false; // `f = wp.sin` in this body
        if (scope_)
            if (auto it = scope_->function_aliases.find(n); it != scope_->function_aliases.end()) {
                n = it->second.first;
                local_alias = true;
            }
        if (!local_alias)
            if (auto alias = function_aliases_.find(n); alias != function_aliases_.end()) n = alias->second;
    }

    if (invalid_functions_.count(n)) return poison(); // its definition was reported already
    if (const std::string t = warp_types_name(*name);
        t == "types.vector" || t == "types.matrix" || (*name != n && (n == "vector" || n == "matrix")))
        return sized_constructor(e, t == "types.matrix" || n == "matrix");
    if (n == "range") {
        diags_.error(e.location, "range() is only supported as the iterable of a for loop");
        return poison();
    }
    if (n == "constant") {
        diags_.error(e.location, "wp.constant() is only valid at module level");
        return poison();
    }
    if (n == "static" && *name != n) return static_value(e);
    // Only a bare name can be shadowed by a variable: wp.length stays the builtin.
    if (scope_ && *name == n && (scope_->locals.count(n) || scope_->params.count(n))) {
        diags_.error(callee.location, "'" + n + "' is a variable, not a function");
        return poison();
    }
    if (n.find('.') != std::string::npos && !type_named(*name)) {
        // A method call on a value (v.dot(...)) or an unknown module.
        diags_.error(callee.location, "unknown function '" + *name + "'");
        return poison();
    }
    if (n == "transformation" && !funcs_.count(n)) return transformation_call(e);
    if (auto type = type_named(*name)) return construct(*type, e, e.location);
    if (funcs_.count(n)) {
        std::vector<Value> args;
        // rk2(decay, x, h): a function named where some definition takes a wp.Function.
        std::set<std::size_t> function_positions;
        for (const ast::FunctionDef *def : funcs_.at(n))
            for (std::size_t i = 0; i < def->params.size(); ++i)
                if (def->params[i].annotation)
                    if (auto d = dotted(*def->params[i].annotation); d && strip_warp(*d) == "Function" && *d != "Function")
                        function_positions.insert(i);
        const auto argument = [&](const Expr &a, std::size_t position) {
            if (function_positions.count(position))
                if (auto fn = function_named(a)) {
                    Value v;
                    v.function = *fn;
                    return v;
                }
            return expr(a);
        };
        const std::vector<const ast::FunctionDef *> &defs = funcs_.at(n);
        const auto has_default = [](const ast::FunctionDef *d) {
            return std::any_of(d->params.begin(), d->params.end(), [](const ast::Param &p) { return p.default_value != nullptr; });
        };
        if (std::any_of(defs.begin(), defs.end(), has_default)) {
            if (defs.size() > 1) {
                diags_.error(e.location, "function '" + n + "' has several definitions and default parameter values: "
                                         "give the overloads no defaults, or keep one definition");
                return poison();
            }
            auto bound = bind_with_defaults(n, e, *defs.front(), argument);
            if (!bound) return poison();
            return user_call(n, e, std::move(*bound));
        }
        if (!e.keywords.empty()) {
            // f(x, rest=1.0): by parameter name, as Python binds them.
            std::vector<std::vector<std::string>> signatures;
            for (const ast::FunctionDef *def : funcs_.at(n)) {
                signatures.emplace_back();
                for (const ast::Param &p : def->params) signatures.back().push_back(p.name);
            }
            const auto order = keyword_order(n, e, signatures);
            if (!order) return poison();
            for (const Expr *a : *order) args.push_back(argument(*a, args.size()));
        } else {
            for (std::size_t i = 1; i < e.children.size(); ++i) args.push_back(argument(*e.children[i], i - 1));
        }
        return user_call(n, e, std::move(args));
    }
    // The parser's call for an `assert` statement (a keyword: no user call is named so, and no registry entry).
    if (n == "assert") return generic_builtin(n, e);
    if (is_tile_builtin(n)) return tile_call(n, e);
    const auto &overloads = registry_.overloads(n);
    const bool has_generic = std::any_of(overloads.begin(), overloads.end(), [](const BuiltinOverload &o) { return o.generic(); });
    if (has_generic) return generic_builtin(n, e);
    // A name nothing registers is "unknown function" whatever its arguments (builtin_call says so).
    std::vector<Value> args;
    if (!e.keywords.empty() && !overloads.empty()) {
        // wp.clamp(x, low=0.0, high=1.0): by the builtin's parameter names (docs list them).
        std::vector<std::vector<std::string>> signatures;
        for (const BuiltinOverload &o : overloads) {
            std::vector<std::string> names;
            for (const auto &p : o.params) names.push_back(p.name);
            if (std::find(signatures.begin(), signatures.end(), names) == signatures.end()) signatures.push_back(names);
        }
        auto bound = builtin_keyword_args(n, e, signatures);
        if (!bound) return poison();
        return builtin_call(n, std::move(*bound), e.location, "");
    }
    for (std::size_t i = 1; i < e.children.size(); ++i) args.push_back(expr(*e.children[i]));
    return builtin_call(n, std::move(args), e.location, "");
}

Value Checker::construct(const Type &type, const Expr &e, SourceLocation at) {
    std::vector<Value> args;
    for (std::size_t i = 1; i < e.children.size(); ++i) args.push_back(expr(*e.children[i]));
    for (const Value &v : args)
        if (!v.ok()) return poison();
    if (type.kind() == Type::Kind::Transform) return construct_transform(type, e, at, std::move(args), false);
    note_type(type);
    const std::string tname = type.name();
    // wp.spatial_vector(w, v): the angular part, then the linear part, of their
    // scalar type (Warp takes only float32 parts, and this form under this name only).
    if (type.kind() == Type::Kind::Vector && type.rows() == 6 && args.size() == 2 && e.keywords.empty() &&
        strip_warp(dotted(*e.children[0]).value_or("")) == "spatial_vector")
        return builtin_call("spatial_vector", std::move(args), at, "");

    auto build = [&](K kind, const Type &t) {
        auto x = make(kind, t, at);
        for (Value &v : args) x->args.push_back(std::move(v.expr));
        return Value{std::move(x)};
    };

    if (type.kind() == Type::Kind::Native) {
        const NativeTypeInfo *n = registry_.native_type(type.native_name());
        if (!n) return poison();
        if (args.empty() && e.keywords.empty()) return build(K::Construct, type);
        if (n->initializer != Initializer::Aggregate) {
            diags_.error(at, "native type '" + tname + "' only supports default construction");
            return poison();
        }
        // Positional first, then keywords by field name; every field exactly once.
        std::vector<std::optional<Value>> slots(n->exposed.size());
        if (args.size() > n->exposed.size()) {
            std::vector<std::string> names;
            for (const ExposedField &f : n->exposed) names.push_back(f.name);
            diags_.error(at, "native type '" + tname + "' expects " + std::to_string(n->exposed.size()) +
                                 " arguments (" + join(names) + "), got " + std::to_string(args.size()));
            return poison();
        }
        for (std::size_t i = 0; i < args.size(); ++i) slots[i] = std::move(args[i]);
        bool ok = true;
        for (const ast::Keyword &k : e.keywords) {
            auto f = std::find_if(n->exposed.begin(), n->exposed.end(), [&](const ExposedField &x) { return x.name == k.name; });
            if (f == n->exposed.end()) {
                diags_.error(k.location, "native type '" + tname + "' has no field '" + k.name + "'");
                ok = false;
                continue;
            }
            const auto idx = static_cast<std::size_t>(f - n->exposed.begin());
            if (slots[idx]) {
                diags_.error(k.location, "field '" + k.name + "' of native type '" + tname + "' is given twice");
                ok = false;
                continue;
            }
            slots[idx] = expr(*k.value);
        }
        std::vector<std::string> missing;
        for (std::size_t i = 0; i < slots.size(); ++i)
            if (!slots[i]) missing.push_back(n->exposed[i].name);
        if (!missing.empty() && ok) {
            diags_.error(at, "native type '" + tname + "' aggregate construction is missing fields: " + join(missing));
            return poison();
        }
        if (!ok) return poison();
        auto x = make(K::Construct, type, at);
        for (std::size_t i = 0; i < slots.size(); ++i) {
            Value &v = *slots[i];
            if (!v.ok()) return poison();
            if (!coerce(v, n->exposed[i].type)) {
                diags_.error(v.expr->location, "field '" + n->exposed[i].name + "' of '" + tname + "' is " +
                                                   n->exposed[i].type.name() + ", got '" + v.type().name() + "'");
                return poison();
            }
            x->args.push_back(std::move(v.expr));
        }
        return Value{std::move(x)};
    }
    if (!e.keywords.empty()) {
        diags_.error(e.keywords.front().location, "'" + tname + "' takes no keyword arguments");
        return poison();
    }
    if (type.kind() == Type::Kind::Struct) {
        if (!args.empty()) {
            diags_.error(at, "struct '" + tname + "' is constructed without arguments; assign its fields afterwards");
            return poison();
        }
        return build(K::Construct, type);
    }
    if (type.is_scalar()) {
        if (args.empty()) {
            Value v{make(K::Literal, type, at)};
            v.expr->value = ir::ConstantValue{type, {0.0}, {0}};
            return v;
        }
        if (args.size() != 1) {
            diags_.error(at, "'" + tname + "' takes one argument, got " + std::to_string(args.size()));
            return poison();
        }
        Value &a = args[0];
        if (a.literal != Value::Literal::None && coerce(a, type)) return std::move(a);
        settle(a);
        if (!a.type().is_scalar()) {
            diags_.error(at, "cannot convert '" + a.type().name() + "' to " + tname);
            return poison();
        }
        return build(K::Cast, type);
    }
    // Vectors, matrices, quaternions.
    const Type scalar = Type::scalar(type.scalar_type());
    const int count = type.kind() == Type::Kind::Matrix ? type.rows() * type.cols() : type.rows();
    if (args.empty()) return build(K::Construct, type);
    if (args.size() == 1 && (args[0].literal != Value::Literal::None || args[0].type().is_scalar()) &&
        type.kind() != Type::Kind::Quaternion) {
        if (!coerce(args[0], scalar)) {
            diags_.error(at, "'" + tname + "' fill value must be " + scalar.name() + ", got '" + args[0].type().name() + "'");
            return poison();
        }
        return build(K::Construct, type);
    }
    if (args.size() == 1 && args[0].type().kind() == type.kind() && args[0].type().rows() == type.rows() &&
        args[0].type().cols() == type.cols())
        return build(K::Cast, type); // vec3d(v): component type conversion
    if (type.kind() == Type::Kind::Matrix && static_cast<int>(args.size()) == type.rows()) {
        const Type row = Type::vector(type.scalar_type(), type.cols());
        for (Value &v : args)
            if (!coerce(v, row)) {
                diags_.error(at, "'" + tname + "' rows must be " + row.name() + ", got '" + v.type().name() + "'");
                return poison();
            }
        return build(K::Construct, type);
    }
    if (static_cast<int>(args.size()) != count) {
        diags_.error(at, "'" + tname + "' takes 0, 1 or " + std::to_string(count) + " arguments, got " +
                             std::to_string(args.size()));
        return poison();
    }
    for (Value &v : args)
        if (!coerce(v, scalar)) {
            diags_.error(v.expr->location, "'" + tname + "' components must be " + scalar.name() + ", got '" +
                                               (v.literal == Value::Literal::Float ? std::string("float literal") : v.type().name()) + "'");
            return poison();
        }
    return build(K::Construct, type);
}

} // namespace weft::kernel::detail
