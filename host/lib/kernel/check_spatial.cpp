// Warp's transform constructors: wp.transform(p, q), wp.transform(p),
// wp.transform(7 components), wp.transform(fill), wp.transform(), with p= and
// q= by keyword, and wp.transformation(...), which infers its scalar type (or
// takes dtype=) the way Warp's builtin does.
#include "checker.hpp"

namespace weft::kernel::detail {

using ast::Expr;
using K = ir::Expr::Kind;

Value Checker::construct_transform(const Type &type, const Expr &e, SourceLocation at, std::vector<Value> args,
                                   bool generic) {
    for (const Value &v : args)
        if (!v.ok()) return poison();
    note_type(type);
    const std::string tname = generic ? std::string("transformation") : type.name();
    const Type scalar = Type::scalar(type.scalar_type());
    const Type p_type = Type::vector(type.scalar_type(), 3), q_type = Type::quaternion(type.scalar_type());

    // p= and q= fill the slots after the positional arguments.
    for (const ast::Keyword &k : e.keywords) {
        if (generic && k.name == "dtype") continue;
        if (k.name != "p" && k.name != "q") {
            diags_.error(k.location, "'" + tname + "' takes the keywords p= and q=" + (generic ? " and dtype=" : "") +
                                         ", got '" + k.name + "'");
            return poison();
        }
        const std::size_t slot = k.name == "p" ? 0 : 1;
        if (args.size() != slot) {
            diags_.error(k.location, args.size() > slot ? "'" + tname + "' got '" + k.name + "' twice"
                                                        : "'" + tname + "' needs p before q= (write " + tname +
                                                              "(p, q) or " + tname + "(p=..., q=...))");
            return poison();
        }
        args.push_back(expr(*k.value));
        if (!args.back().ok()) return poison();
    }

    auto build = [&](K kind) {
        auto x = make(kind, type, at);
        for (Value &v : args) x->args.push_back(std::move(v.expr));
        return Value{std::move(x)};
    };
    if (args.empty()) return build(K::Construct); // all zeros, the rotation included (as Warp)
    const Type first = args[0].type();
    if (args.size() == 1 && first.kind() == Type::Kind::Transform) {
        if (first != type) { // Warp converts no transform between scalar types
            diags_.error(at, "'" + tname + "' copies a " + type.name() + ", got '" + first.name() +
                                 "' (convert p and q: " + tname + "(" + Type::vector(type.scalar_type(), 3).name() +
                                 "(t.p), " + Type::quaternion(type.scalar_type()).name() + "(t.q)))");
            return poison();
        }
        return build(K::Cast);
    }
    if (args.size() == 1 && (args[0].literal != Value::Literal::None || first.is_scalar())) {
        if (!coerce(args[0], scalar)) {
            diags_.error(at, "'" + tname + "' fill value must be " + scalar.name() + ", got '" + first.name() + "'");
            return poison();
        }
        return build(K::Construct);
    }
    if (args.size() <= 2 && first.kind() != Type::Kind::Scalar) {
        if (!coerce(args[0], p_type)) {
            diags_.error(args[0].expr->location, "'" + tname + "' translation p must be " + p_type.name() + ", got '" +
                                                     first.name() + "'");
            return poison();
        }
        if (args.size() == 2 && !coerce(args[1], q_type)) {
            diags_.error(args[1].expr->location, "'" + tname + "' rotation q must be " + q_type.name() + ", got '" +
                                                     args[1].type().name() + "'");
            return poison();
        }
        return build(K::Construct); // transform(p) has the identity rotation (as Warp)
    }
    if (args.size() != 7) {
        diags_.error(at, "'" + tname + "' takes (p, q), (p), 7 components (px, py, pz, qx, qy, qz, qw), one fill value "
                                       "or no arguments, got " +
                             std::to_string(args.size()) + " arguments");
        return poison();
    }
    for (Value &v : args)
        if (!coerce(v, scalar)) {
            diags_.error(v.expr->location, "'" + tname + "' components must be " + scalar.name() + ", got '" +
                                               (v.literal == Value::Literal::Float ? std::string("float literal")
                                                                                   : v.type().name()) +
                                               "'");
            return poison();
        }
    return build(K::Construct);
}

Value Checker::transformation_call(const Expr &e) {
    std::vector<Value> args;
    for (std::size_t i = 1; i < e.children.size(); ++i) args.push_back(expr(*e.children[i]));
    for (const Value &v : args)
        if (!v.ok()) return poison();
    std::optional<Scalar> s;
    for (const ast::Keyword &k : e.keywords)
        if (k.name == "dtype") {
            const std::optional<Type> d = concrete_type(*k.value);
            if (!d || !d->is_float()) {
                diags_.error(k.location, "transformation() dtype must be float16, bfloat16, float32 or float64");
                return poison();
            }
            s = d->scalar_type();
        }
    if (!s) {
        // Warp infers the type from p (or the components); literals alone are float32.
        std::optional<Type> seen;
        if (!args.empty() && args[0].literal == Value::Literal::None) seen = args[0].type();
        for (const ast::Keyword &k : e.keywords)
            if (args.empty() && k.name == "p") {
                Value p = expr(*k.value);
                if (!p.ok()) return poison();
                if (p.literal == Value::Literal::None) seen = p.type();
            }
        s = seen ? seen->scalar_type() : Scalar::Float32;
        if (!Type::scalar(*s).is_float()) {
            diags_.error(e.location, "transformation() needs float components, got '" + seen->name() +
                                         "' (pass float values or dtype=)");
            return poison();
        }
    }
    return construct_transform(Type::transform(*s), e, e.location, std::move(args), true);
}

} // namespace weft::kernel::detail
