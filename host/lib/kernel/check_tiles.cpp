// Tiles (Warp's cooperative tile model): the tile builtins' calls, typed here.
// A tile's dtype and shape are compile-time: every shape mismatch is an error
// at the call, never a C++ template error in generated code. Each call becomes
// one ir::Expr::Kind::Tile node whose args are the run-time operands in a
// fixed order per operation (see tile_call's cases); the emitter turns it into
// one weft::tile_* call (rt/tile.h).
#include "checker.hpp"

#include <algorithm>
#include <cmath>

namespace weft::kernel::detail {

using ast::Expr;
using K = ir::Expr::Kind;

namespace {

/// The tile operations this version has, Warp's names. Others named tile_* are
/// Warp's too but not here yet: refused by name.
const std::set<std::string> &tile_operations() {
    static const std::set<std::string> ops{
        "tile_zeros",     "tile_ones",      "tile_full",     "tile_empty",     "tile_arange",  "tile_load",
        "tile_store",     "tile_atomic_add", "tile_transpose", "tile_broadcast", "tile_astype", "tile_reshape",
        "tile_extract",   "tile_sum",       "tile_min",      "tile_max",       "tile_argmin",  "tile_argmax",
        "tile_reduce",    "tile_map",       "tile_scan_inclusive", "tile_scan_exclusive", "tile_matmul",
        "tile_dot",       "tile_axpy",
    };
    return ops;
}

std::string shape_text(const Type &t) {
    return t.tile_ndim() == 1 ? "(" + std::to_string(t.tile_rows()) + ",)"
                              : "(" + std::to_string(t.tile_rows()) + ", " + std::to_string(t.tile_cols()) + ")";
}

} // namespace

bool Checker::is_tile_builtin(const std::string &name) {
    return name == "tile" || name == "untile" || name.rfind("tile_", 0) == 0;
}

/// A call's arguments by Warp's parameter names: positions first, then
/// keywords; an unknown or repeated name is reported.
std::optional<std::map<std::string, const Expr *>> Checker::tile_arguments(const std::string &name, const Expr &e,
                                                                            const std::vector<std::string> &params,
                                                                            std::size_t required) {
    std::map<std::string, const Expr *> out;
    const std::size_t positional = e.children.size() - 1;
    if (positional > params.size()) {
        diags_.error(e.location, name + "() takes at most " + std::to_string(params.size()) + " arguments (" +
                                     join(params) + "), got " + std::to_string(positional));
        return std::nullopt;
    }
    for (std::size_t i = 0; i < positional; ++i) out[params[i]] = e.children[i + 1].get();
    for (const ast::Keyword &k : e.keywords) {
        if (std::find(params.begin(), params.end(), k.name) == params.end()) {
            diags_.error(k.location, name + "() has no parameter '" + k.name + "' (it takes " + join(params) + ")");
            return std::nullopt;
        }
        if (out.count(k.name)) {
            diags_.error(k.location, name + "() got '" + k.name + "' twice");
            return std::nullopt;
        }
        out[k.name] = k.value.get();
    }
    for (std::size_t i = 0; i < required; ++i)
        if (!out.count(params[i])) {
            diags_.error(e.location, name + "() needs '" + params[i] + "'");
            return std::nullopt;
        }
    return out;
}

std::optional<std::vector<int>> Checker::tile_shape(const std::string &name, const Expr &shape) {
    std::vector<const Expr *> dims;
    if (shape.kind == Expr::Kind::Tuple)
        for (const ast::ExprPtr &c : shape.children) dims.push_back(c.get());
    else
        dims.push_back(&shape);
    if (dims.empty() || dims.size() > 2) {
        diags_.error(shape.location, name + "(): tiles have 1 or 2 dimensions in this version, the shape gives " +
                                         std::to_string(dims.size()));
        return std::nullopt;
    }
    std::vector<int> out;
    for (const Expr *d : dims) {
        Value::Literal lit;
        const auto c = evaluate_constant(*d, lit);
        if (!c || !c->type.is_integer()) {
            diags_.error(d->location, name + "(): a tile's shape must be integer constants (literals or module "
                                             "constants: shapes are fixed when the kernel compiles)");
            return std::nullopt;
        }
        const ir::IntValue v = c->int_components[0];
        if (v < 1 || v > max_tile_extent) {
            diags_.error(d->location, name + "(): a tile dimension must be 1 to " + std::to_string(max_tile_extent) +
                                          ", got " + ir::to_string(v));
            return std::nullopt;
        }
        out.push_back(static_cast<int>(v));
    }
    return out;
}

std::optional<Type> Checker::tile_type(const std::string &name, const Type &dtype, const std::vector<int> &shape,
                                       SourceLocation at) {
    const Type t = Type::tile(dtype, shape[0], shape.size() > 1 ? shape[1] : 0);
    if (t.size() > max_tile_bytes) {
        diags_.error(at, name + "(): a tile of " + t.name() + " takes " + std::to_string(t.size()) +
                             " bytes; a tile may take at most " + std::to_string(max_tile_bytes) +
                             " (a block's storage, as Warp's CPU shared memory)");
        return std::nullopt;
    }
    return t;
}

namespace {
/// What a tile may hold: scalars, vectors and matrices, but not of float16 or bfloat16.
bool tile_element_type(const Type &t) {
    return (t.kind() == Type::Kind::Scalar || t.kind() == Type::Kind::Vector || t.kind() == Type::Kind::Matrix) &&
           !is_half_precision(t.scalar_type());
}
const char *const tile_elements = "scalars (bool, integers, float32, float64) and vectors and matrices of them";
} // namespace

std::optional<Type> Checker::tile_dtype(const std::string &name, const Expr *dtype, const Type &fallback) {
    if (!dtype) return fallback;
    const std::optional<Type> t = concrete_type(*dtype);
    if (!t) return std::nullopt;
    if (!tile_element_type(*t)) {
        diags_.error(dtype->location, name + "(): tiles hold " + std::string(tile_elements) + " in this version, got '" +
                                          t->name() + "'");
        return std::nullopt;
    }
    return t;
}

bool Checker::tile_storage(const std::string &name, const Expr *storage) {
    if (!storage) return true;
    if (storage->kind != Expr::Kind::String || (storage->text != "register" && storage->text != "shared")) {
        diags_.error(storage->location, name + "(): storage must be \"register\" or \"shared\"");
        return false;
    }
    return true;
}

Value Checker::tile_operand(const std::string &name, const Expr &e, const char *what) {
    Value v = expr(e);
    if (v.ok() && !v.type().is_tile()) {
        diags_.error(e.location, name + "(): " + what + " must be a tile, got '" + v.type().name() + "'");
        return poison();
    }
    return v;
}

Value Checker::tile_index_value(const Expr &e) {
    Value v = expr(e);
    if (!v.ok()) return v;
    if (v.literal == Value::Literal::Int) coerce(v, Type::scalar(Scalar::Int32));
    settle(v);
    if (!v.type().is_integer()) {
        diags_.error(e.location, "a tile offset or index must be an integer, got '" + v.type().name() + "'");
        return poison();
    }
    if (v.type() != Type::scalar(Scalar::Int32)) {
        auto c = make(K::Cast, Type::scalar(Scalar::Int32), e.location);
        c->args.push_back(std::move(v.expr));
        v.expr = std::move(c);
    }
    return v;
}

std::optional<std::vector<Value>> Checker::tile_offsets(const std::string &name, const Expr *offset, int ndim,
                                                        SourceLocation at) {
    std::vector<Value> out;
    if (!offset) {
        for (int d = 0; d < ndim; ++d) {
            auto zero = make(K::Literal, Type::scalar(Scalar::Int32), at);
            zero->value = ir::ConstantValue{Type::scalar(Scalar::Int32), {0.0}, {0}};
            out.push_back(Value{std::move(zero)});
        }
        return out;
    }
    std::vector<const Expr *> parts;
    if (offset->kind == Expr::Kind::Tuple)
        for (const ast::ExprPtr &c : offset->children) parts.push_back(c.get());
    else
        parts.push_back(offset);
    if (static_cast<int>(parts.size()) != ndim) {
        diags_.error(offset->location, name + "(): offset needs " + std::to_string(ndim) + " value" +
                                           (ndim == 1 ? "" : "s") + " (one per dimension of the array), got " +
                                           std::to_string(parts.size()));
        return std::nullopt;
    }
    for (const Expr *p : parts) {
        out.push_back(tile_index_value(*p));
        if (!out.back().ok()) return std::nullopt;
    }
    return out;
}

std::optional<Type> Checker::map_operand(Value &v, const Type &shape) {
    if (v.type().is_tile()) {
        const Type &t = v.type();
        if (t.tile_rows() != shape.tile_rows() || t.tile_cols() != shape.tile_cols() || t.tile_ndim() != shape.tile_ndim())
            return std::nullopt;
        return t.element();
    }
    if (v.literal != Value::Literal::None) coerce(v, Type::scalar(shape.scalar_type()));
    settle(v);
    return v.type();
}

Value Checker::tile_node(const std::string &name, const Type &type, SourceLocation at, std::vector<Value> args) {
    auto x = make(K::Tile, type, at);
    x->name = name;
    for (Value &v : args) x->args.push_back(std::move(v.expr));
    return Value{std::move(x)};
}

std::vector<Value> Checker::tile_placeholders(const std::vector<Type> &types, SourceLocation at) {
    std::vector<Value> out;
    for (std::size_t k = 0; k < types.size(); ++k) {
        auto p = make(K::Local, types[k], at);
        p->index = -1 - static_cast<int>(k);
        out.push_back(Value{std::move(p)});
    }
    return out;
}

Value Checker::tile_callback(const std::string &name, const Expr &op, const std::vector<Type> &operand_types,
                             SourceLocation at) {
    const std::optional<std::string> fn = function_named(op);
    if (!fn) {
        diags_.error(op.location, name + "() needs a builtin or @wp.func as its operation (wp.add, wp.max, my_func)");
        return poison();
    }
    std::vector<Value> placeholders = tile_placeholders(operand_types, op.location);
    if (funcs_.count(*fn)) {
        // user_call() reads only the call's location (its arguments are the placeholders).
        const ast::Expr synthetic(Expr::Kind::Call, at);
        return user_call(*fn, synthetic, std::move(placeholders));
    }
    const auto &overloads = registry_.overloads(*fn);
    if (std::any_of(overloads.begin(), overloads.end(), [](const BuiltinOverload &o) { return o.generic(); })) {
        diags_.error(op.location, name + "(): '" + *fn + "' cannot be applied per element (use a builtin with "
                                                         "fixed overloads, or a @wp.func)");
        return poison();
    }
    return builtin_call(*fn, std::move(placeholders), op.location, name + "(" + *fn + ")");
}

Value Checker::tile_call(const std::string &name, const Expr &e) {
    const SourceLocation at = e.location;
    if (name == "tile" || name == "untile" || name == "tile_from_thread") {
        diags_.error(at, name + "() gathers or scatters one value per thread of a block; weft runs a tiled kernel's "
                             "scalar code once per block and does not support it yet (load tiles from arrays "
                             "with tile_load)");
        return poison();
    }
    if (!tile_operations().count(name)) {
        diags_.error(at, "'" + name + "' is a Warp tile operation that this version of weft does not support yet");
        return poison();
    }
    if (scope_) scope_->function->uses_tiles = true;
    const Type i32 = Type::scalar(Scalar::Int32);

    if (name == "tile_zeros" || name == "tile_ones" || name == "tile_empty" || name == "tile_full") {
        const bool full = name == "tile_full";
        const std::vector<std::string> params =
            full ? std::vector<std::string>{"shape", "value", "dtype", "storage"}
                 : std::vector<std::string>{"shape", "dtype", "storage"};
        auto a = tile_arguments(name, e, params, full ? 2 : 1);
        if (!a || !tile_storage(name, a->count("storage") ? a->at("storage") : nullptr)) return poison();
        const auto shape = tile_shape(name, *a->at("shape"));
        if (!shape) return poison();
        std::vector<Value> args;
        Type fallback = Type::scalar(Scalar::Float32);
        if (full) {
            args.push_back(expr(*a->at("value")));
            if (!args[0].ok()) return poison();
            if (!a->count("dtype")) settle(args[0]);
            if (args[0].literal == Value::Literal::None) {
                if (!tile_element_type(args[0].type())) {
                    diags_.error(a->at("value")->location, "tile_full(): tiles hold " + std::string(tile_elements) +
                                                               ", the value is '" + args[0].type().name() + "'");
                    return poison();
                }
                fallback = args[0].type();
            }
        }
        const auto dtype = tile_dtype(name, a->count("dtype") ? a->at("dtype") : nullptr, fallback);
        if (!dtype) return poison();
        if (full && !coerce(args[0], *dtype)) {
            diags_.error(a->at("value")->location, "tile_full(): value is '" + args[0].type().name() +
                                                       "', the tile's dtype " + dtype->name());
            return poison();
        }
        const auto t = tile_type(name, *dtype, *shape, at);
        if (!t) return poison();
        return tile_node(name == "tile_empty" ? "tile_zeros" : name, *t, at, std::move(args));
    }

    if (name == "tile_arange") {
        std::vector<const Expr *> bounds;
        for (std::size_t i = 1; i < e.children.size(); ++i) bounds.push_back(e.children[i].get());
        const Expr *dtype_ast = nullptr;
        for (const ast::Keyword &k : e.keywords) {
            if (k.name == "dtype") dtype_ast = k.value.get();
            else if (k.name == "storage") {
                if (!tile_storage(name, k.value.get())) return poison();
            } else {
                diags_.error(k.location, "tile_arange() takes dtype= and storage=, got '" + k.name + "'");
                return poison();
            }
        }
        if (bounds.empty() || bounds.size() > 3) {
            diags_.error(at, "tile_arange() takes (stop), (start, stop) or (start, stop, step), got " +
                                 std::to_string(bounds.size()) + " arguments");
            return poison();
        }
        const auto dtype_type = tile_dtype(name, dtype_ast, Type::scalar(Scalar::Float32)); // Warp's default even for int bounds
        if (!dtype_type) return poison();
        if (!dtype_type->is_scalar() || dtype_type->is_bool()) {
            diags_.error(dtype_ast->location, "tile_arange(): dtype must be a numeric scalar type, got '" +
                                                  dtype_type->name() + "'");
            return poison();
        }
        const std::optional<Scalar> dtype = dtype_type->scalar_type();
        std::vector<double> v; // start, stop, step
        for (const Expr *b : bounds) {
            Value::Literal lit;
            const auto c = evaluate_constant(*b, lit);
            if (!c || !c->type.is_scalar() || c->type.is_bool()) {
                diags_.error(b->location, "tile_arange(): the range must be numeric constants (the tile's length is "
                                          "fixed when the kernel compiles)");
                return poison();
            }
            double x = c->components[0];
            if (Type::scalar(*dtype).is_integer() && x != std::floor(x)) {
                diags_.error(b->location, "tile_arange(): " + std::to_string(x) + " is not a value of dtype " +
                                              std::string(scalar_name(*dtype)));
                return poison();
            }
            if (*dtype == Scalar::Float32) x = static_cast<float>(x); // counted at the element type, as Warp
            v.push_back(x);
        }
        const double start = v.size() > 1 ? v[0] : 0.0, stop = v.size() > 1 ? v[1] : v[0], step = v.size() > 2 ? v[2] : 1.0;
        if (step == 0) {
            diags_.error(bounds.back()->location, "tile_arange(): step must not be zero");
            return poison();
        }
        const double count = std::ceil((stop - start) / step);
        if (!(count >= 1) || count > max_tile_extent) {
            diags_.error(at, "tile_arange(): the range has " + std::to_string(static_cast<long long>(count)) +
                                 " elements; a tile dimension must be 1 to " + std::to_string(max_tile_extent));
            return poison();
        }
        const auto t = tile_type(name, Type::scalar(*dtype), {static_cast<int>(count)}, at);
        if (!t) return poison();
        std::vector<Value> args;
        for (double x : {start, step}) {
            auto lit = make(K::Literal, Type::scalar(*dtype), at);
            lit->value = ir::ConstantValue{Type::scalar(*dtype), {x}, {}};
            if (Type::scalar(*dtype).is_integer() || *dtype == Scalar::Bool)
                lit->value->int_components.push_back(static_cast<ir::IntValue>(x));
            args.push_back(Value{std::move(lit)});
        }
        return tile_node(name, *t, at, std::move(args));
    }

    if (name == "tile_load") {
        auto a = tile_arguments(name, e, {"a", "shape", "offset", "storage", "bounds_check", "aligned"}, 2);
        if (!a || !tile_storage(name, a->count("storage") ? a->at("storage") : nullptr)) return poison();
        Value arr = expr(*a->at("a"));
        if (!arr.ok()) return poison();
        if (arr.type().kind() != Type::Kind::Array || arr.type().is_indexed_array()) {
            diags_.error(a->at("a")->location, "tile_load(): needs an array, got '" + arr.type().name() + "'");
            return poison();
        }
        const auto shape = tile_shape(name, *a->at("shape"));
        if (!shape) return poison();
        if (static_cast<int>(shape->size()) != arr.type().ndim()) {
            diags_.error(a->at("shape")->location, "tile_load(): the shape has " + std::to_string(shape->size()) +
                                                       " dimensions, the array " + std::to_string(arr.type().ndim()));
            return poison();
        }
        if (!tile_element_type(arr.type().element())) {
            diags_.error(a->at("a")->location, "tile_load(): tiles hold " + std::string(tile_elements) +
                                                   " in this version, the array holds '" + arr.type().element().name() + "'");
            return poison();
        }
        const auto t = tile_type(name, arr.type().element(), *shape, at);
        if (!t) return poison();
        auto offsets = tile_offsets(name, a->count("offset") ? a->at("offset") : nullptr, arr.type().ndim(), at);
        if (!offsets) return poison();
        std::vector<Value> args;
        args.push_back(std::move(arr));
        for (Value &o : *offsets) args.push_back(std::move(o));
        return tile_node(name, *t, at, std::move(args));
    }

    if (name == "tile_store" || name == "tile_atomic_add") {
        auto a = tile_arguments(name, e, {"a", "t", "offset", "bounds_check"}, 2);
        if (!a) return poison();
        Value arr = expr(*a->at("a"));
        Value t = tile_operand(name, *a->at("t"), "t");
        if (!arr.ok() || !t.ok()) return poison();
        if (arr.type().kind() != Type::Kind::Array || arr.type().is_indexed_array()) {
            diags_.error(a->at("a")->location, name + "(): needs an array, got '" + arr.type().name() + "'");
            return poison();
        }
        if (t.type().tile_ndim() != arr.type().ndim()) {
            diags_.error(a->at("t")->location, name + "(): the tile " + t.type().name() + " has " +
                                                   std::to_string(t.type().tile_ndim()) + " dimensions, the array " +
                                                   std::to_string(arr.type().ndim()));
            return poison();
        }
        if (arr.type().element() != t.type().element()) {
            diags_.error(a->at("t")->location, name + "(): the tile holds " + t.type().element().name() + ", the array " +
                                                   arr.type().element().name());
            return poison();
        }
        if (name == "tile_atomic_add" && t.type().element().is_bool()) {
            diags_.error(a->at("t")->location, "tile_atomic_add(): needs a numeric tile, got " + t.type().name());
            return poison();
        }
        auto offsets = tile_offsets(name, a->count("offset") ? a->at("offset") : nullptr, arr.type().ndim(), at);
        if (!offsets) return poison();
        const Type result = name == "tile_store" ? Type::void_type() : t.type();
        std::vector<Value> args;
        args.push_back(std::move(arr));
        args.push_back(std::move(t));
        for (Value &o : *offsets) args.push_back(std::move(o));
        return tile_node(name, result, at, std::move(args));
    }

    if (name == "tile_transpose" || name == "tile_scan_inclusive" || name == "tile_scan_exclusive" ||
        name == "tile_sum" || name == "tile_min" || name == "tile_max" || name == "tile_argmin" ||
        name == "tile_argmax") {
        const bool has_axis = name == "tile_sum";
        auto a = tile_arguments(name, e, has_axis ? std::vector<std::string>{"a", "axis"} : std::vector<std::string>{"a"}, 1);
        if (!a) return poison();
        Value t = tile_operand(name, *a->at("a"), "a");
        if (!t.ok()) return poison();
        const Type &tt = t.type();
        const Type el = tt.element();
        if (name != "tile_transpose" && el.is_bool()) {
            diags_.error(a->at("a")->location, name + "(): needs a numeric tile, got " + tt.name());
            return poison();
        }
        if (name != "tile_transpose" && name != "tile_sum" && !el.is_scalar()) {
            diags_.error(a->at("a")->location, name + "(): needs a tile of scalars (as Warp's), got " + tt.name());
            return poison();
        }
        Type result = tt;
        int axis = -1;
        if (name == "tile_transpose") {
            if (tt.tile_ndim() != 2) {
                diags_.error(a->at("a")->location, "tile_transpose(): needs a 2-D tile, got " + tt.name());
                return poison();
            }
            result = Type::tile(el, tt.tile_cols(), tt.tile_rows());
        } else if (name == "tile_scan_inclusive" || name == "tile_scan_exclusive") {
            result = tt;
        } else if (a->count("axis")) {
            Value::Literal lit;
            const auto c = evaluate_constant(*a->at("axis"), lit);
            if (!c || !c->type.is_integer() || c->int_components[0] < 0 || c->int_components[0] >= tt.tile_ndim()) {
                diags_.error(a->at("axis")->location, "tile_sum(): axis must be an integer constant below the tile's " +
                                                          std::to_string(tt.tile_ndim()) + " dimensions");
                return poison();
            }
            axis = static_cast<int>(c->int_components[0]);
            result = tt.tile_ndim() == 1 ? Type::tile(el, 1) : Type::tile(el, axis == 0 ? tt.tile_cols() : tt.tile_rows());
        } else {
            result = name == "tile_argmin" || name == "tile_argmax" ? Type::tile(Scalar::Int32, 1) : Type::tile(el, 1);
        }
        auto x = tile_node(name, result, at, {});
        x.expr->index = axis;
        x.expr->args.push_back(std::move(t.expr));
        return x;
    }

    if (name == "tile_broadcast" || name == "tile_reshape") {
        const std::string source = name == "tile_reshape" ? "t" : "a"; // Warp's parameter names
        auto a = tile_arguments(name, e, {source, "shape"}, 2);
        if (!a) return poison();
        Value t = tile_operand(name, *a->at(source), "its first argument");
        if (!t.ok()) return poison();
        const auto shape = tile_shape(name, *a->at("shape"));
        if (!shape) return poison();
        const Type &tt = t.type();
        const auto result = tile_type(name, tt.element(), *shape, at);
        if (!result) return poison();
        if (name == "tile_reshape") {
            if (result->tile_count() != tt.tile_count()) {
                diags_.error(a->at("shape")->location, "tile_reshape(): " + tt.name() + " has " +
                                                           std::to_string(tt.tile_count()) + " elements, the shape " +
                                                           std::to_string(result->tile_count()));
                return poison();
            }
        } else {
            // numpy.broadcast_to: dimensions aligned from the right, each 1 or equal.
            const std::vector<int> from = tt.tile_ndim() == 1 ? std::vector<int>{tt.tile_rows()}
                                                              : std::vector<int>{tt.tile_rows(), tt.tile_cols()};
            bool fits = from.size() <= shape->size();
            for (std::size_t k = 0; fits && k < from.size(); ++k) {
                const int f = from[from.size() - 1 - k], to = (*shape)[shape->size() - 1 - k];
                fits = f == 1 || f == to;
            }
            if (!fits) {
                diags_.error(a->at("shape")->location, "tile_broadcast(): " + tt.name() + " does not broadcast to " +
                                                           shape_text(*result));
                return poison();
            }
        }
        std::vector<Value> args;
        args.push_back(std::move(t));
        return tile_node(name, *result, at, std::move(args));
    }

    if (name == "tile_astype") {
        auto a = tile_arguments(name, e, {"t", "dtype"}, 2);
        if (!a) return poison();
        Value t = tile_operand(name, *a->at("t"), "t");
        if (!t.ok()) return poison();
        const auto dtype = tile_dtype(name, a->at("dtype"), Type::scalar(Scalar::Float32));
        if (!dtype) return poison();
        if (!dtype->is_scalar() || !t.type().element().is_scalar()) {
            diags_.error(at, "tile_astype(): converts tiles of scalars to scalars, got " + t.type().name() + " to '" +
                                 dtype->name() + "'");
            return poison();
        }
        const Type result = Type::tile(*dtype, t.type().tile_rows(), t.type().tile_ndim() == 2 ? t.type().tile_cols() : 0);
        std::vector<Value> args;
        args.push_back(std::move(t));
        return tile_node(name, result, at, std::move(args));
    }

    if (name == "tile_extract") {
        if (e.children.size() < 3 || e.children.size() > 4 || !e.keywords.empty()) {
            diags_.error(at, "tile_extract() takes a tile and one index per dimension");
            return poison();
        }
        Value t = tile_operand(name, *e.children[1], "a");
        if (!t.ok()) return poison();
        if (static_cast<int>(e.children.size()) - 2 != t.type().tile_ndim()) {
            diags_.error(at, "tile_extract(): " + t.type().name() + " takes " + std::to_string(t.type().tile_ndim()) +
                                 " index" + (t.type().tile_ndim() == 1 ? "" : "es"));
            return poison();
        }
        std::vector<Value> args;
        args.push_back(std::move(t));
        for (std::size_t i = 2; i < e.children.size(); ++i) {
            args.push_back(tile_index_value(*e.children[i]));
            if (!args.back().ok()) return poison();
        }
        const Type element = args[0].type().element();
        return tile_node(name, element, at, std::move(args));
    }

    if (name == "tile_map" || name == "tile_reduce") {
        if (!e.keywords.empty()) {
            diags_.error(e.keywords.front().location, name + "() takes positional arguments only");
            return poison();
        }
        const std::size_t operands = e.children.size() - 2;
        if (e.children.size() < 3 || (name == "tile_reduce" && operands != 1) || operands > 8) {
            diags_.error(at, name == "tile_reduce" ? "tile_reduce() takes an operation and a tile"
                                                   : "tile_map() takes an operation and 1 to 8 operands, a tile first");
            return poison();
        }
        std::vector<Value> args;
        std::vector<Type> element_types;
        for (std::size_t i = 2; i < e.children.size(); ++i) {
            Value v = i == 2 ? tile_operand(name, *e.children[i], "the first operand") : expr(*e.children[i]);
            if (!v.ok()) return poison();
            const Type first = args.empty() ? v.type() : args[0].type();
            const std::optional<Type> element = map_operand(v, first);
            if (!element) {
                diags_.error(e.children[i]->location, name + "(): " + v.type().name() + " has another shape than " +
                                                          first.name());
                return poison();
            }
            element_types.push_back(*element);
            args.push_back(std::move(v));
        }
        if (name == "tile_reduce") element_types.push_back(element_types[0]);
        Value op = tile_callback(name, *e.children[1], element_types, at);
        if (!op.ok()) return poison();
        const Type &r = op.type();
        if (!tile_element_type(r)) {
            diags_.error(e.children[1]->location, name + "(): the operation returns '" + r.name() + "'; tiles hold " +
                                                      std::string(tile_elements) + " in this version");
            return poison();
        }
        if (name == "tile_reduce" && r != element_types[0]) {
            diags_.error(e.children[1]->location, "tile_reduce(): the operation returns '" + r.name() +
                                                      "', the tile holds " + element_types[0].name());
            return poison();
        }
        const Type &first = args[0].type();
        const Type result = name == "tile_reduce" ? Type::tile(r, 1)
                                                  : Type::tile(r, first.tile_rows(),
                                                               first.tile_ndim() == 2 ? first.tile_cols() : 0);
        std::vector<Value> all;
        all.push_back(std::move(op));
        for (Value &v : args) all.push_back(std::move(v));
        return tile_node(name, result, at, std::move(all));
    }

    if (name == "tile_matmul" || name == "tile_dot") {
        const bool dot = name == "tile_dot";
        // tile_matmul(a, b, alpha=1.0) -> tile, or tile_matmul(a, b, out, alpha=1.0, beta=1.0): out = alpha a b + beta out.
        bool accumulate = !dot && e.children.size() >= 4;
        if (!dot)
            for (const ast::Keyword &k : e.keywords)
                if (k.name == "out" || k.name == "beta") accumulate = true;
        const std::vector<std::string> params = dot ? std::vector<std::string>{"a", "b"}
                                                : accumulate ? std::vector<std::string>{"a", "b", "out", "alpha", "beta", "precision"}
                                                             : std::vector<std::string>{"a", "b", "alpha", "precision"};
        auto a = tile_arguments(name, e, params, accumulate ? 3 : 2);
        if (!a) return poison();
        Value x = tile_operand(name, *a->at("a"), "a"), y = tile_operand(name, *a->at("b"), "b");
        if (!x.ok() || !y.ok()) return poison();
        const Type xt = x.type(), yt = y.type();
        if (dot) {
            if (xt != yt || !xt.element().is_scalar() || xt.element().is_bool()) {
                diags_.error(at, "tile_dot(): needs two numeric tiles of one type and shape, got " + xt.name() + " and " +
                                     yt.name());
                return poison();
            }
            std::vector<Value> args;
            args.push_back(std::move(x));
            args.push_back(std::move(y));
            return tile_node(name, Type::tile(xt.scalar_type(), 1), at, std::move(args));
        }
        if (xt.tile_ndim() != 2 || yt.tile_ndim() != 2 || xt.tile_cols() != yt.tile_rows()) {
            diags_.error(at, "tile_matmul(): needs 2-D tiles (M, K) and (K, N), got " + xt.name() + " and " + yt.name());
            return poison();
        }
        if (!xt.element().is_float() || xt.element() != yt.element()) {
            diags_.error(at, "tile_matmul(): needs float32 or float64 tiles of one dtype, got " + xt.name() + " and " +
                                 yt.name());
            return poison();
        }
        if (a->count("precision")) {
            const Expr *p = a->at("precision");
            if (p->kind != Expr::Kind::String || p->text != "default") {
                diags_.error(p->location, "tile_matmul(): precision=\"default\" only in this version");
                return poison();
            }
        }
        const Type scalar = Type::scalar(xt.scalar_type());
        const Type result = Type::tile(xt.scalar_type(), xt.tile_rows(), yt.tile_cols());
        const auto factor = [&](const char *key) {
            if (!a->count(key)) {
                auto one = make(K::Literal, scalar, at);
                one->value = ir::ConstantValue{scalar, {1.0}, {}};
                return Value{std::move(one)};
            }
            Value v = expr(*a->at(key));
            if (v.ok() && !coerce(v, scalar)) {
                diags_.error(a->at(key)->location, std::string("tile_matmul(): ") + key + " must be " + scalar.name() +
                                                       ", got '" + v.type().name() + "'");
                return poison();
            }
            return v;
        };
        std::vector<Value> args;
        args.push_back(std::move(x));
        args.push_back(std::move(y));
        if (accumulate) {
            Value out = tile_operand(name, *a->at("out"), "out");
            if (!out.ok()) return poison();
            if (out.type() != result) {
                diags_.error(a->at("out")->location, "tile_matmul(): out is " + out.type().name() + ", a b is " +
                                                         result.name());
                return poison();
            }
            if (out.expr->kind != K::Local) {
                diags_.error(a->at("out")->location, "tile_matmul(): out must be a tile variable (it is written)");
                return poison();
            }
            for (const Value &operand : args) // a and b
                if (operand.expr->kind == K::Local && operand.expr->index == out.expr->index) {
                    diags_.error(a->at("out")->location, "tile_matmul(): out must not be a or b (it is written while they are read)");
                    return poison();
                }
            args.push_back(std::move(out));
        }
        args.push_back(factor("alpha"));
        if (accumulate) args.push_back(factor("beta"));
        for (const Value &v : args)
            if (!v.ok()) return poison();
        return tile_node(accumulate ? "tile_matmul_acc" : "tile_matmul", accumulate ? Type::void_type() : result, at,
                         std::move(args));
    }

    if (name == "tile_axpy") {
        auto a = tile_arguments(name, e, {"alpha", "src", "dest"}, 3);
        if (!a) return poison();
        Value src = tile_operand(name, *a->at("src"), "src"), dest = tile_operand(name, *a->at("dest"), "dest");
        Value alpha = expr(*a->at("alpha"));
        if (!src.ok() || !dest.ok() || !alpha.ok()) return poison();
        if (src.type() != dest.type() || src.type().element().is_bool()) {
            diags_.error(at, "tile_axpy(): src and dest must be numeric tiles of one type, got " + src.type().name() +
                                 " and " + dest.type().name());
            return poison();
        }
        if (!coerce(alpha, Type::scalar(src.type().scalar_type()))) {
            diags_.error(a->at("alpha")->location, "tile_axpy(): alpha must be " +
                                                       std::string(scalar_name(src.type().scalar_type())) + ", got '" +
                                                       alpha.type().name() + "'");
            return poison();
        }
        if (dest.expr->kind != K::Local) {
            diags_.error(a->at("dest")->location, "tile_axpy(): dest must be a tile variable (it is written)");
            return poison();
        }
        std::vector<Value> args;
        args.push_back(std::move(alpha));
        args.push_back(std::move(src));
        args.push_back(std::move(dest));
        return tile_node(name, Type::void_type(), at, std::move(args));
    }
    throw InternalError("tile_call: no case for " + name);
}

Value Checker::tile_operator(const std::string &op, std::vector<Value> args, SourceLocation at, const std::string &what) {
    // Warp's operators on tiles: + - * / between tiles of one shape, * and / by a scalar, unary -.
    static const std::map<std::string, std::string> allowed{{"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"div", "/"}, {"neg", "-"}};
    const auto it = allowed.find(op);
    const bool a_tile = args[0].type().is_tile(), b_tile = args.size() > 1 && args[1].type().is_tile();
    const bool scalar_ok = op == "mul" || (op == "div" && a_tile);
    if (it == allowed.end() || (args.size() == 2 && !(a_tile && b_tile) && !scalar_ok)) {
        diags_.error(at, what + " is not defined on tiles" +
                             (args.size() == 2 ? " of " + args[0].type().name() + " and " + args[1].type().name()
                                               : std::string()) +
                             " (tiles take + - * / with a tile of the same shape, * and / by a scalar, and unary -; "
                             "use tile_map for the rest)");
        return poison();
    }
    const Type &shape = a_tile ? args[0].type() : args[1].type();
    std::vector<Type> element_types;
    for (Value &v : args) {
        const std::optional<Type> element = map_operand(v, shape);
        if (!element) {
            diags_.error(at, what + ": the tiles have different shapes, " + args[0].type().name() + " and " +
                                 args[1].type().name());
            return poison();
        }
        element_types.push_back(*element);
    }
    Value call = builtin_call(op, tile_placeholders(element_types, at), at, what);
    if (!call.ok()) return poison();
    if (!tile_element_type(call.type())) {
        diags_.error(at, what + " on these tiles gives '" + call.type().name() + "'; tiles hold " +
                             std::string(tile_elements));
        return poison();
    }
    if (scope_) scope_->function->uses_tiles = true;
    const Type result = Type::tile(call.type(), shape.tile_rows(), shape.tile_ndim() == 2 ? shape.tile_cols() : 0);
    std::vector<Value> all;
    all.push_back(std::move(call));
    for (Value &v : args) all.push_back(std::move(v));
    return tile_node("tile_map", result, at, std::move(all));
}

std::optional<Type> Checker::tile_annotation(const Expr &e) {
    const std::string what = "a tile annotation";
    std::optional<Type> dtype;
    std::optional<std::vector<int>> shape;
    if (e.kind == Expr::Kind::Subscript) {
        // wp.tile[float, M, N]: the dtype, then one constant per dimension.
        if (e.children.size() < 3 || e.children.size() > 4) {
            diags_.error(e.location, "wp.tile[...] takes a dtype and 1 or 2 dimensions: wp.tile[float, 16, 16]");
            return std::nullopt;
        }
        dtype = tile_dtype(what, e.children[1].get(), Type::scalar(Scalar::Float32));
        std::vector<int> dims;
        for (std::size_t i = 2; i < e.children.size(); ++i) {
            auto d = tile_shape(what, *e.children[i]);
            if (!d) return std::nullopt;
            dims.push_back(d->front());
        }
        shape = dims;
    } else {
        // wp.tile(dtype=float, shape=(M, N), storage=...)
        const Expr *d = nullptr, *sh = nullptr;
        for (const ast::Keyword &k : e.keywords) {
            if (k.name == "dtype") d = k.value.get();
            else if (k.name == "shape") sh = k.value.get();
            else if (k.name == "storage") {
                if (!tile_storage(what, k.value.get())) return std::nullopt;
            } else {
                diags_.error(k.location, "wp.tile(...) takes dtype=, shape= and storage=, got '" + k.name + "'");
                return std::nullopt;
            }
        }
        if (!d || !sh || e.children.size() > 1) {
            diags_.error(e.location, "a tile annotation needs dtype= and shape=: wp.tile(dtype=float, shape=(16, 16))");
            return std::nullopt;
        }
        dtype = tile_dtype(what, d, Type::scalar(Scalar::Float32));
        shape = tile_shape(what, *sh);
    }
    if (!dtype || !shape) return std::nullopt;
    return tile_type(what, *dtype, *shape, e.location);
}

Value Checker::tile_element(const Expr &e, Value base) {
    // t[i] / t[i, j]: one element (Warp's tile indexing, a read).
    const Type &t = base.type();
    if (e.children.size() - 1 != static_cast<std::size_t>(t.tile_ndim())) {
        diags_.error(e.location, "indexing " + t.name() + " takes " + std::to_string(t.tile_ndim()) + " index" +
                                     (t.tile_ndim() == 1 ? "" : "es") + ", got " + std::to_string(e.children.size() - 1));
        return poison();
    }
    std::vector<Value> args;
    args.push_back(std::move(base));
    for (std::size_t i = 1; i < e.children.size(); ++i) {
        if (e.children[i]->kind == Expr::Kind::Slice) {
            diags_.error(e.children[i]->location, "tile slices are not supported in this version (tile_view is not either)");
            return poison();
        }
        args.push_back(tile_index_value(*e.children[i]));
        if (!args.back().ok()) return poison();
    }
    return tile_node("tile_extract", t.element(), e.location, std::move(args));
}

} // namespace weft::kernel::detail
