// Core vector and matrix builtins for the shapes register_core_builtins does
// not list: Warp's user types (wp.types.vector(length=6, ...),
// wp.types.matrix(shape=(3, 4), ...)) and vectors of other scalar types. The
// runtime's vec_t / mat_t templates, and their adjoints, take any shape; the
// typing rules are those of the listed shapes, applied to the arguments at
// hand, and each overload a module uses is made once.
#include "checker.hpp"

namespace weft::kernel::detail {

namespace {

bool is_vector(const Type &t) { return t.kind() == Type::Kind::Vector; }
bool is_matrix(const Type &t) { return t.kind() == Type::Kind::Matrix; }
bool is_shaped(const Type &t) { return is_vector(t) || is_matrix(t); }

/// The scalar a shaped type is made of.
Type scalar_of(const Type &t) { return Type::scalar(t.scalar_type()); }
bool floats(const Type &t) { return scalar_of(t).is_float(); }

struct Rule {
    std::vector<Type> params;
    Type result;
};

/// The parameter and result types `name` takes for these argument types, by
/// the listed shapes' rules; nullopt when no rule fits. Scalars follow the
/// shaped argument (a literal then converts to them).
std::optional<Rule> shape_rule(const std::string &name, const std::vector<Type> &a) {
    const Type boolean = Type::scalar(Scalar::Bool);
    if (a.size() == 1) {
        const Type &t = a[0];
        if (!is_shaped(t)) return std::nullopt;
        if (name == "neg" || name == "pos") return Rule{{t}, t};
        if (is_vector(t) && floats(t)) {
            if (name == "abs" || name == "normalize") return Rule{{t}, t};
            if (name == "length" || name == "length_sq") return Rule{{t}, scalar_of(t)};
        }
        if (is_matrix(t) && floats(t)) {
            if (name == "transpose") return Rule{{t}, Type::matrix(t.scalar_type(), t.cols(), t.rows())};
            if (t.rows() == t.cols() && name == "trace") return Rule{{t}, scalar_of(t)};
        }
        return std::nullopt;
    }
    if (a.size() != 2) return std::nullopt;
    const Type &x = a[0], &y = a[1];
    if (is_shaped(x) && x == y) {
        if (name == "add" || name == "sub") return Rule{{x, y}, x};
        if (name == "eq" || name == "ne") return Rule{{x, y}, boolean};
        if (is_vector(x)) {
            if (name == "min" || name == "max" || name == "cw_mul" || name == "cw_div") return Rule{{x, y}, x};
            if (name == "dot") return Rule{{x, y}, scalar_of(x)};
        }
    }
    // Scaling: shaped * scalar, scalar * shaped, shaped / scalar.
    if (is_shaped(x) && !is_shaped(y) && (name == "mul" || name == "div")) return Rule{{x, scalar_of(x)}, x};
    if (!is_shaped(x) && is_shaped(y) && name == "mul") return Rule{{scalar_of(y), y}, y};
    if (name == "mul" && is_shaped(x) && is_shaped(y) && floats(x) && x.scalar_type() == y.scalar_type()) {
        if (is_matrix(x) && is_matrix(y) && x.cols() == y.rows())
            return Rule{{x, y}, Type::matrix(x.scalar_type(), x.rows(), y.cols())};
        if (is_matrix(x) && is_vector(y) && x.cols() == y.rows()) return Rule{{x, y}, Type::vector(x.scalar_type(), x.rows())};
        if (is_vector(x) && is_matrix(y) && x.rows() == y.rows()) return Rule{{x, y}, Type::vector(x.scalar_type(), y.cols())};
    }
    if (name == "outer" && is_vector(x) && is_vector(y) && floats(x) && x.scalar_type() == y.scalar_type())
        return Rule{{x, y}, Type::matrix(x.scalar_type(), x.rows(), y.rows())};
    return std::nullopt;
}

} // namespace

const BuiltinOverload *Checker::shape_overload(const std::string &name, std::vector<Value *> &args) {
    std::vector<Type> types;
    bool shaped = false;
    for (const Value *v : args) {
        types.push_back(v->type());
        shaped = shaped || is_shaped(v->type());
    }
    if (!shaped) return nullptr;
    const std::optional<Rule> rule = shape_rule(name, types);
    if (!rule) return nullptr;
    for (std::size_t i = 0; i < args.size(); ++i)
        if (args[i]->type() != rule->params[i] && !literal_converts(*args[i], rule->params[i])) return nullptr;

    BuiltinOverload o;
    o.name = name;
    for (std::size_t i = 0; i < rule->params.size(); ++i) o.params.push_back({i == 0 ? "a" : "b", rule->params[i]});
    o.result = rule->result;
    o.native_name = "weft::" + name;
    o.native_namespace = "weft::";
    o.native_function = name;
    o.doc = "The core '" + name + "' for this vector or matrix shape.";
    o.external = false;
    o.differentiable = true;
    o.owners = {"core"};
    for (const BuiltinOverload &made : shape_overloads_)
        if (made.identity() == o.identity()) return &made;
    shape_overloads_.push_back(std::move(o));
    return &shape_overloads_.back();
}

} // namespace weft::kernel::detail
