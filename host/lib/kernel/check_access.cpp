// What an expression reads: names (locals, parameters, module constants),
// attributes (qualified module-level names and members of values) and
// subscripts that select one element (wp.adjoint[x], a.shape[k], a[i, j]).
#include "checker.hpp"

namespace weft::kernel::detail {

using ast::Expr;
using K = ir::Expr::Kind;

namespace {

int component_index(const std::string &name) {
    if (name == "x") return 0;
    if (name == "y") return 1;
    if (name == "z") return 2;
    if (name == "w") return 3;
    return -1;
}

} // namespace

Value Checker::expr_name(const Expr &e) {
    if (scope_) {
        if (auto it = scope_->locals.find(e.text); it != scope_->locals.end()) {
            auto x = make(K::Local, scope_->function->locals[static_cast<std::size_t>(it->second)].type, e.location);
            x->index = it->second;
            x->name = e.text;
            return Value{std::move(x)};
        }
        if (auto it = scope_->params.find(e.text); it != scope_->params.end()) {
            auto x = make(K::Param, scope_->function->params[static_cast<std::size_t>(it->second)].type, e.location);
            x->index = it->second;
            x->name = e.text;
            return Value{std::move(x)};
        }
    }
    if (auto it = constants_.find(e.text); it != constants_.end()) {
        if (noted_constants_.insert(e.text).second) out_.references.constants.push_back(e.text);
        if (it->second.implicit && it->second.value.type.is_scalar()) {
            // `N = 16` at module level is a Python literal: it converts like one.
            Value v{make(K::Literal, it->second.value.type, e.location), it->second.literal};
            v.expr->value = it->second.value;
            return v;
        }
        auto x = make(K::Constant, it->second.value.type, e.location);
        x->name = e.text;
        x->value = it->second.value;
        return Value{std::move(x)};
    }
    return unbound_name(e);
}

Value Checker::unbound_name(const Expr &e) {
    if (scope_ && scope_->poisoned.count(e.text)) return poison(); // its assignment failed, already reported
    if (failed_constants_.count(e.text)) return poison();
    if (e.text == "None") {
        diags_.error(e.location, "None is not supported in kernels");
        return poison();
    }
    if (funcs_.count(e.text)) {
        diags_.error(e.location, "function '" + e.text + "' used as a value: call it");
        return poison();
    }
    if (type_named(e.text)) {
        diags_.error(e.location, "type '" + e.text + "' used as a value: construct one with " + e.text + "(...)");
        return poison();
    }
    if (tuple_constants_.count(e.text)) {
        diags_.error(e.location, "'" + e.text + "' is a module-level tuple: kernels read it inside wp.static(), as "
                                 "Warp does (wp.static(" + e.text + "[0]), wp.static(len(" + e.text + ")))");
        return poison();
    }
    if (dict_constants_.count(e.text) || string_constants_.count(e.text)) {
        const bool dict = dict_constants_.count(e.text) > 0;
        diags_.error(e.location, "'" + e.text + "' is a " + (dict ? "dict" : "string") + ": kernels read it only as " +
                                     (dict ? "module options (wp.set_module_options(" + e.text + "))"
                                           : "a @wp.func_native snippet"));
        return poison();
    }
    diags_.error(e.location, "name '" + e.text + "' is not defined");
    return poison();
}

std::string Checker::enum_value_member(const std::string &dotted) const {
    const std::string suffix = ".value";
    if (dotted.size() <= suffix.size() || dotted.compare(dotted.size() - suffix.size(), suffix.size(), suffix) != 0)
        return {};
    const std::string member = dotted.substr(0, dotted.size() - suffix.size());
    const auto dot = member.find('.');
    if (dot == std::string::npos || !enum_sizes_.count(member.substr(0, dot)) || !constants_.count(member)) return {};
    return member;
}

Value Checker::expr_attribute(const Expr &e) {
    if (std::optional<Value> named = qualified_name(e)) return std::move(*named);
    Value base = expr(*e.children[0]);
    if (!base.ok()) return poison();
    settle(base);
    return member(e, std::move(base));
}

std::optional<Value> Checker::qualified_name(const Expr &e) {
    auto d = dotted(e);
    if (!d) return std::nullopt;
    // A module-level name reached through the warp alias: wp.X.
    const std::string stripped = strip_warp(*d);
    if (stripped != *d && stripped.find('.') == std::string::npos) {
        if (auto w = warp_constants_.find(stripped); w != warp_constants_.end()) {
            Value v{make(K::Literal, w->second.value.type, e.location), w->second.literal};
            v.expr->value = w->second.value;
            return v;
        }
        if (constants_.count(stripped)) {
            Expr name(Expr::Kind::Name, e.location);
            name.text = stripped;
            return expr(name);
        }
        diags_.error(e.location, "'" + *d + "' is not a value" +
                                     (type_named(*d) ? " (it is a type: construct one with " + *d + "(...))" : ""));
        return poison();
    }
    // Class.NAME: a member of an enum or constant-holding class (unless a local shadows the class).
    const std::string head = d->substr(0, d->find('.'));
    if (const std::string member = enum_value_member(*d);
        !member.empty() && !(scope_ && (scope_->locals.count(head) || scope_->params.count(head)))) {
        Expr name(Expr::Kind::Name, e.location); // Color.RED.value is Color.RED, an int
        name.text = member;
        return expr(name);
    }
    const bool shadowed = scope_ && (scope_->locals.count(head) || scope_->params.count(head));
    if (!shadowed && (constants_.count(*d) || failed_constants_.count(*d))) {
        Expr name(Expr::Kind::Name, e.location);
        name.text = *d;
        return expr(name);
    }
    if (!scope_ || (!scope_->locals.count(d->substr(0, d->find('.'))) &&
                    !scope_->params.count(d->substr(0, d->find('.'))) &&
                    !constants_.count(d->substr(0, d->find('.'))))) {
        if (type_named(*d)) {
            diags_.error(e.location, "type '" + *d + "' used as a value");
            return poison();
        }
    }
    return std::nullopt;
}

Value Checker::member(const Expr &e, Value base) {
    const Type &t = base.type();
    if (e.text == "shape" && t.kind() == Type::Kind::Array) {
        diags_.error(e.location, "'.shape' must be indexed: a.shape[0]");
        return poison();
    }
    if (e.text == "ndim" && t.kind() == Type::Kind::Array) {
        // Part of the array's type: a constant, as in Warp.
        const Type i32 = Type::scalar(Scalar::Int32);
        Value v{make(K::Literal, i32, e.location), Value::Literal::Int};
        v.expr->value = ir::ConstantValue{i32, {static_cast<double>(t.ndim())}, {t.ndim()}};
        return v;
    }
    auto field = [&](const Type &ft, int index) {
        auto x = make(K::Field, ft, e.location);
        x->name = e.text;
        x->index = index;
        x->args.push_back(std::move(base.expr));
        return Value{std::move(x)};
    };
    if (t.kind() == Type::Kind::Struct) {
        const auto &fields = t.layout().fields;
        for (std::size_t i = 0; i < fields.size(); ++i)
            if (fields[i].name == e.text) return field(fields[i].type, static_cast<int>(i));
        diags_.error(e.location, "struct '" + t.name() + "' has no field '" + e.text + "'");
        return poison();
    }
    if (t.kind() == Type::Kind::Native) {
        const NativeTypeInfo *n = registry_.native_type(t.native_name());
        if (n)
            for (std::size_t i = 0; i < n->exposed.size(); ++i)
                if (n->exposed[i].name == e.text) return field(n->exposed[i].type, static_cast<int>(i));
        diags_.error(e.location, "native type '" + t.name() + "' has no exposed field '" + e.text + "'" +
                                     (n && n->opaque() ? " (it is opaque)" : ""));
        return poison();
    }
    if (t.kind() == Type::Kind::Transform) {
        if (e.text == "p") return field(Type::vector(t.scalar_type(), 3), 0);
        if (e.text == "q") return field(Type::quaternion(t.scalar_type()), 1);
        diags_.error(e.location, "'" + t.name() + "' has no attribute '" + e.text +
                                     "'; a transform has p (its translation) and q (its rotation), or index "
                                     "its 7 components with [i]");
        return poison();
    }
    if (t.kind() == Type::Kind::Vector || t.kind() == Type::Kind::Quaternion) {
        const int c = component_index(e.text);
        if (c >= 0 && c < t.rows()) return field(Type::scalar(t.scalar_type()), c);
        diags_.error(e.location, "'" + t.name() + "' has no component '" + e.text + "'");
        return poison();
    }
    diags_.error(e.location, "'" + t.name() + "' has no attribute '" + e.text + "'");
    return poison();
}

Value Checker::expr_subscript(const Expr &e) {
    const Expr &base_ast = *e.children[0];
    if (base_ast.kind == Expr::Kind::Attribute && base_ast.text == "adjoint" &&
        base_ast.children[0]->kind == Expr::Kind::Name && warp_aliases_.count(base_ast.children[0]->text))
        return adjoint_subscript(e);
    if (base_ast.kind == Expr::Kind::Attribute && base_ast.text == "shape") {
        Value arr = expr(*base_ast.children[0]);
        if (!arr.ok()) return poison();
        if (arr.type().kind() == Type::Kind::Array) return shape_subscript(e, std::move(arr));
        // Otherwise `shape` is an ordinary field (a struct's): index it below.
    }
    Value base = expr(base_ast);
    if (!base.ok()) return poison();
    if (base.expr->kind == K::Gather && base_ast.kind == Expr::Kind::Subscript) {
        // Warp reads v[1:][0] as one subscript v[1:, 0] (an error for vectors,
        // another element for matrices): weft does not guess either way.
        diags_.error(e.location, "a slice of a vector or matrix cannot be indexed in the same expression; "
                                 "name it first: s = v[1:]; s[0]");
        return poison();
    }
    const Type &t = base.type();
    if (t.is_tile()) return tile_element(e, std::move(base));
    bool slice = false;
    for (std::size_t i = 1; i < e.children.size(); ++i) slice = slice || e.children[i]->kind == Expr::Kind::Slice;
    if (slice || (t.kind() == Type::Kind::Array && static_cast<int>(e.children.size() - 1) < t.ndim()))
        return sliced_subscript(e, std::move(base));
    return element_subscript(e, std::move(base));
}

Value Checker::adjoint_subscript(const Expr &e) {
    // wp.adjoint[x] in a @wp.func_grad: the adjoint of input x, written with += or =.
    if (scope_->adjoint_params.empty()) {
        diags_.error(e.location, "wp.adjoint[...] is only available in a @wp.func_grad function");
        return poison();
    }
    const auto it = e.children.size() == 2 && e.children[1]->kind == Expr::Kind::Name
                        ? scope_->adjoint_params.find(e.children[1]->text)
                        : scope_->adjoint_params.end();
    if (it == scope_->adjoint_params.end()) {
        std::string names;
        for (const auto &[name, index] : scope_->adjoint_params) names += (names.empty() ? "" : ", ") + name;
        diags_.error(e.location, "wp.adjoint[...] takes a parameter of the function the gradient belongs to (" +
                                     names + ")");
        return poison();
    }
    auto x = make(K::Param, scope_->function->params[static_cast<std::size_t>(it->second)].type, e.location);
    x->index = it->second;
    x->name = scope_->function->params[static_cast<std::size_t>(it->second)].name;
    return Value{std::move(x)};
}

Value Checker::shape_subscript(const Expr &e, Value arr) {
    if (e.children.size() != 2 || e.children[1]->kind != Expr::Kind::Int ||
        e.children[1]->int_value >= static_cast<std::uint64_t>(arr.type().ndim())) {
        diags_.error(e.location, "shape index must be an integer literal from 0 to " +
                                     std::to_string(arr.type().ndim() - 1));
        return poison();
    }
    auto x = make(K::Shape, Type::scalar(Scalar::Int32), e.location);
    x->index = static_cast<int>(e.children[1]->int_value);
    x->args.push_back(std::move(arr.expr));
    return Value{std::move(x)};
}

Value Checker::element_subscript(const Expr &e, Value base) {
    const Type t = base.type();
    std::optional<std::vector<Value>> indices = integer_indices(e);
    if (!indices) return poison();
    std::optional<Type> result;
    if (t.kind() == Type::Kind::Array) {
        if (static_cast<int>(indices->size()) != t.ndim()) {
            diags_.error(e.location, too_many_indices(t, indices->size()));
            return poison();
        }
        result = t.element();
    } else if (t.kind() == Type::Kind::Vector || t.kind() == Type::Kind::Quaternion ||
               t.kind() == Type::Kind::Transform || t.kind() == Type::Kind::Matrix) {
        if (!constant_indices_in_range(t, *indices)) return poison();
    }
    if (result) {
    } else if (t.kind() == Type::Kind::Vector || t.kind() == Type::Kind::Quaternion ||
               t.kind() == Type::Kind::Transform) {
        if (indices->size() == 1) result = Type::scalar(t.scalar_type());
    } else if (t.kind() == Type::Kind::Matrix) {
        if (indices->size() == 1) result = Type::vector(t.scalar_type(), t.cols());
        if (indices->size() == 2) result = Type::scalar(t.scalar_type());
    }
    if (!result) {
        diags_.error(e.location, "'" + t.name() + "' cannot be indexed with " + std::to_string(indices->size()) +
                                     " index" + (indices->size() == 1 ? "" : "es"));
        return poison();
    }
    auto x = make(K::Index, *result, e.location);
    x->args.push_back(std::move(base.expr));
    for (Value &v : *indices) x->args.push_back(std::move(v.expr));
    return Value{std::move(x)};
}

std::optional<std::vector<Value>> Checker::integer_indices(const Expr &e) {
    std::vector<Value> indices;
    bool ok = true;
    for (std::size_t i = 1; i < e.children.size(); ++i) {
        Value v = expr(*e.children[i]);
        if (!v.ok()) {
            ok = false;
            continue;
        }
        settle(v);
        if (!v.type().is_integer()) {
            diags_.error(e.children[i]->location, "index must be an integer, got '" + v.type().name() + "'");
            ok = false;
        }
        indices.push_back(std::move(v));
    }
    if (!ok) return std::nullopt;
    return indices;
}

bool Checker::constant_indices_in_range(const Type &t, const std::vector<Value> &indices) {
    // Constant indices into fixed-size values are checked here: out of range is UB in C++.
    const int bounds[2] = {t.rows(), t.cols()};
    for (std::size_t i = 0; i < indices.size() && i < 2; ++i) {
        const ir::Expr &ix = *indices[i].expr;
        if (ix.kind == K::Literal && ix.value && !ix.value->int_components.empty()) {
            const ir::IntValue v = ix.value->int_components[0];
            // Negative indices count from the end, as Warp's extract() does.
            if (v < -bounds[i] || v >= bounds[i]) {
                diags_.error(ix.location, "index " + ir::to_string(v) + " is out of range for '" + t.name() + "' (-" +
                                              std::to_string(bounds[i]) + " to " + std::to_string(bounds[i] - 1) + ")");
                return false;
            }
        }
    }
    return true;
}

} // namespace weft::kernel::detail
