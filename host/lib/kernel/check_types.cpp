// Type annotations, type names and module constants.
#include "checker.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace weft::kernel::detail {

using ast::Expr;

std::string join(const std::vector<std::string> &items, const std::string &sep) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
    return out;
}

bool fits(std::int64_t v, Scalar s) {
    switch (s) {
    case Scalar::Int8: return v >= INT8_MIN && v <= INT8_MAX;
    case Scalar::Int16: return v >= INT16_MIN && v <= INT16_MAX;
    case Scalar::Int32: return v >= INT32_MIN && v <= INT32_MAX;
    case Scalar::UInt8: return v >= 0 && v <= UINT8_MAX;
    case Scalar::UInt16: return v >= 0 && v <= UINT16_MAX;
    case Scalar::UInt32: return v >= 0 && v <= static_cast<std::int64_t>(UINT32_MAX);
    case Scalar::UInt64: return v >= 0;
    default: return true;
    }
}

std::string shown(const Value &v) {
    if (!v.ok()) return "?";
    if (v.literal == Value::Literal::Int && v.expr->value && !v.expr->value->int_components.empty())
        return "integer literal " + std::to_string(v.expr->value->int_components[0]);
    if (v.literal == Value::Literal::Float) return "float literal";
    return v.type().name();
}

std::string type_list(const std::vector<Value> &args) {
    std::vector<std::string> names;
    for (const Value &v : args) {
        if (!v.ok()) names.push_back("?");
        else if (v.literal == Value::Literal::Int) names.push_back("int literal");
        else if (v.literal == Value::Literal::Float) names.push_back("float literal");
        else names.push_back(v.type().name());
    }
    return "(" + join(names) + ")";
}

std::optional<std::string> Checker::dotted(const Expr &e) {
    if (e.kind == Expr::Kind::Name) return e.text;
    if (e.kind == Expr::Kind::Attribute && !e.children.empty()) {
        auto base = dotted(*e.children[0]);
        if (base) return *base + "." + e.text;
    }
    return std::nullopt;
}

std::string Checker::strip_warp(const std::string &name) const {
    const auto dot = name.find('.');
    if (dot != std::string::npos && warp_aliases_.count(name.substr(0, dot))) return name.substr(dot + 1);
    return name;
}

std::optional<Type> Checker::type_named(const std::string &dotted_name) const {
    const std::string name = strip_warp(dotted_name);
    if (auto t = parse_builtin_type(name)) return t;
    if (auto it = structs_.find(name); it != structs_.end()) return it->second;
    if (const NativeTypeInfo *n = registry_.native_type(name)) return n->type();
    return std::nullopt;
}

void Checker::note_type(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Native:
        if (noted_types_.insert(t.native_name()).second)
            if (const NativeTypeInfo *n = registry_.native_type(t.native_name())) {
                out_.references.native_types.push_back(*n);
                for (const ExposedField &f : n->exposed) note_type(f.type);
            }
        break;
    case Type::Kind::Array: note_type(t.element()); break;
    case Type::Kind::Tuple:
        for (const Type &e : t.elements()) note_type(e);
        break;
    case Type::Kind::Struct:
        if (noted_structs_.insert(t.layout().name).second) {
            out_.references.structs.push_back(t.layout().name);
            for (const auto &f : t.layout().fields) note_type(f.type);
        }
        break;
    default: break;
    }
}

namespace {
/// wp.array, wp.array2d, ... -> ndim, or 0.
int array_ndim(const std::string &name) {
    if (name == "array") return 1;
    if (name == "array1d") return 1;
    if (name == "array2d") return 2;
    if (name == "array3d") return 3;
    if (name == "array4d") return 4;
    return 0;
}
} // namespace

std::optional<Type> Checker::concrete_type(const Expr &e) {
    auto a = annotation(e, false);
    if (!a) return std::nullopt;
    return a->type;
}

std::optional<Annotation> Checker::annotation(const Expr &e, bool allow_generic) {
    auto generic = [&](Annotation::Kind kind, const std::string &spelled) -> std::optional<Annotation> {
        if (!allow_generic) {
            diags_.error(e.location, "'" + spelled + "' is not a concrete type: only @wp.func parameters can be generic");
            return std::nullopt;
        }
        Annotation a;
        a.kind = kind;
        return a;
    };

    if (auto name = dotted(e)) {
        const std::string stripped = strip_warp(*name);
        const auto dot = name->find('.');
        if (any_names_.count(*name) || (dot != std::string::npos && typing_aliases_.count(name->substr(0, dot)) &&
                                         name->substr(dot + 1) == "Any"))
            return generic(Annotation::Kind::Any, *name);
        if (stripped != *name || warp_aliases_.empty()) {
            if (stripped == "Scalar") return generic(Annotation::Kind::Scalar, *name);
            if (stripped == "Float") return generic(Annotation::Kind::Float, *name);
            if (stripped == "Int") return generic(Annotation::Kind::Int, *name);
        }
        if (array_ndim(stripped)) {
            diags_.error(e.location, "'" + *name + "' needs a dtype: write " + *name + "(dtype=float) or " + *name +
                                         "[float]");
            return std::nullopt;
        }
        if (auto t = type_named(*name)) {
            note_type(*t);
            return Annotation{Annotation::Kind::Concrete, *t};
        }
        diags_.error(e.location, "unknown type '" + *name + "'");
        return std::nullopt;
    }

    // wp.array[T], wp.array2d[T]
    if (e.kind == Expr::Kind::Subscript && e.children.size() == 2) {
        auto base = dotted(*e.children[0]);
        const int ndim = base ? array_ndim(strip_warp(*base)) : 0;
        if (ndim) {
            auto inner = annotation(*e.children[1], allow_generic);
            if (!inner) return std::nullopt;
            if (inner->kind != Annotation::Kind::Concrete) {
                Annotation a;
                a.kind = Annotation::Kind::ArrayAny;
                a.ndim = ndim;
                return a;
            }
            const std::optional<Type> dtype = inner->type;
            Type t = Type::array(*dtype, ndim);
            note_type(t);
            return Annotation{Annotation::Kind::Concrete, t};
        }
    }
    // wp.array(dtype=T, ndim=k)
    if (e.kind == Expr::Kind::Call && !e.children.empty()) {
        auto base = dotted(*e.children[0]);
        int ndim = base ? array_ndim(strip_warp(*base)) : 0;
        if (ndim) {
            std::optional<Type> dtype;
            bool generic_dtype = false;
            if (e.children.size() > 2) {
                diags_.error(e.location, "'" + *base + "' takes at most one positional argument (the dtype)");
                return std::nullopt;
            }
            auto dtype_of = [&](const Expr &d) {
                auto inner = annotation(d, allow_generic);
                if (inner && inner->kind != Annotation::Kind::Concrete) generic_dtype = true;
                else if (inner) dtype = inner->type;
                return inner.has_value();
            };
            if (e.children.size() == 2 && !dtype_of(*e.children[1])) return std::nullopt;
            for (const ast::Keyword &k : e.keywords) {
                if (k.name == "dtype") {
                    if (!dtype_of(*k.value)) return std::nullopt;
                } else if (k.name == "ndim") {
                    if (k.value->kind != Expr::Kind::Int || k.value->int_value < 1 || k.value->int_value > 4) {
                        diags_.error(k.value->location, "ndim must be an integer from 1 to 4");
                        return std::nullopt;
                    }
                    ndim = static_cast<int>(k.value->int_value);
                } else {
                    diags_.error(k.location, "unknown array argument '" + k.name + "' (expected dtype, ndim)");
                    return std::nullopt;
                }
            }
            if (generic_dtype) { // wp.array(dtype=Any): any array of this many dimensions
                Annotation a;
                a.kind = Annotation::Kind::ArrayAny;
                a.ndim = ndim;
                return a;
            }
            if (!dtype) {
                const bool given = e.children.size() == 2 ||
                                   std::any_of(e.keywords.begin(), e.keywords.end(),
                                               [](const ast::Keyword &k) { return k.name == "dtype"; });
                if (!given) diags_.error(e.location, "'" + *base + "' needs a dtype: " + *base + "(dtype=float)");
                return std::nullopt; // a dtype that did not resolve was reported already
            }
            if (dtype->kind() == Type::Kind::Array) {
                diags_.error(e.location, "arrays of arrays are not supported");
                return std::nullopt;
            }
            Type t = Type::array(*dtype, ndim);
            note_type(t);
            return Annotation{Annotation::Kind::Concrete, t};
        }
    }
    diags_.error(e.location, "this is not a type annotation");
    return std::nullopt;
}

// ---------------------------------------------------------------------------

namespace {

ir::ConstantValue scalar_constant(Scalar s, double v, std::int64_t i) {
    ir::ConstantValue c{Type::scalar(s), {v}, {i}};
    return c;
}

} // namespace

std::optional<ir::ConstantValue> Checker::evaluate_constant(const Expr &e, Value::Literal &literal) {
    literal = Value::Literal::None;
    switch (e.kind) {
    case Expr::Kind::Int:
        literal = Value::Literal::Int;
        return scalar_constant(fits(e.int_value, Scalar::Int32) ? Scalar::Int32 : Scalar::Int64,
                               static_cast<double>(e.int_value), e.int_value);
    case Expr::Kind::Float:
        literal = Value::Literal::Float;
        return scalar_constant(Scalar::Float32, e.float_value, 0);
    case Expr::Kind::Bool: return scalar_constant(Scalar::Bool, e.bool_value ? 1 : 0, e.bool_value ? 1 : 0);
    case Expr::Kind::Name:
    case Expr::Kind::Attribute: {
        auto d = dotted(e);
        if (!d) break;
        const std::string stripped = strip_warp(*d);
        const ModuleConstant *c = nullptr;
        if (auto it = constants_.find(stripped); it != constants_.end()) c = &it->second;
        if (auto it = warp_constants_.find(stripped); stripped != *d && it != warp_constants_.end()) c = &it->second;
        if (!c) break;
        literal = c->literal;
        return c->value;
    }
    case Expr::Kind::Unary: {
        Value::Literal inner;
        auto v = evaluate_constant(*e.children[0], inner);
        if (!v) return std::nullopt;
        if (e.text == "~" && v->type.is_integer()) {
            v->int_components[0] = ~v->int_components[0];
            v->components[0] = static_cast<double>(v->int_components[0]);
            literal = inner;
            return v;
        }
        if (e.text == "-" || e.text == "+") {
            if (!v->type.is_scalar() || v->type.is_bool()) break;
            const double sign = e.text == "-" ? -1 : 1;
            for (double &c : v->components) c *= sign;
            for (std::int64_t &c : v->int_components) c = e.text == "-" ? -c : c;
            literal = inner;
            return v;
        }
        break;
    }
    case Expr::Kind::Binary: {
        Value::Literal la, lb;
        auto a = evaluate_constant(*e.children[0], la);
        auto b = evaluate_constant(*e.children[1], lb);
        if (!a || !b || !a->type.is_scalar() || !b->type.is_scalar() || a->type.is_bool() || b->type.is_bool()) break;
        // Module level is Python: DT / SUBSTEPS with SUBSTEPS = wp.constant(4) is a float, so is 2 ** -1.
        const bool is_float = a->type.is_float() || b->type.is_float() || e.text == "/" ||
                              (e.text == "**" && b->int_components[0] < 0);
        const bool bitwise = e.text == "&" || e.text == "|" || e.text == "^" || e.text == "<<" || e.text == ">>";
        if (bitwise && is_float) break;
        const double x = a->components[0], y = b->components[0];
        const std::int64_t xi = a->int_components[0], yi = b->int_components[0];
        double r = 0;
        std::int64_t ri = 0;
        if (e.text == "+") r = x + y, ri = xi + yi;
        else if (e.text == "-") r = x - y, ri = xi - yi;
        else if (e.text == "*") r = x * y, ri = xi * yi;
        else if (e.text == "/") r = x / y;
        else if (e.text == "//" && y != 0) r = std::floor(x / y), ri = yi ? (xi - ((xi % yi + yi) % yi)) / yi : 0;
        else if (e.text == "%" && y != 0) r = x - y * std::floor(x / y), ri = yi ? ((xi % yi) + yi) % yi : 0;
        else if (e.text == "**") r = std::pow(x, y), ri = static_cast<std::int64_t>(std::pow(x, y));
        else if (e.text == "&") ri = xi & yi;
        else if (e.text == "|") ri = xi | yi;
        else if (e.text == "^") ri = xi ^ yi;
        else if (e.text == "<<" && yi >= 0 && yi < 63) ri = static_cast<std::int64_t>(static_cast<std::uint64_t>(xi) << yi);
        else if (e.text == ">>" && yi >= 0 && yi < 64) ri = xi >> yi;
        else break;
        literal = (la != Value::Literal::None && lb != Value::Literal::None)
                      ? (is_float ? Value::Literal::Float : Value::Literal::Int)
                      : Value::Literal::None;
        if (is_float) {
            const Scalar s = a->type.is_float() ? a->type.scalar_type() : b->type.is_float() ? b->type.scalar_type()
                                                                                               : Scalar::Float32;
            return scalar_constant(s, r, 0);
        }
        // Python ints do not overflow: a result beyond int32 becomes int64.
        Scalar is = a->type.scalar_type();
        if (literal == Value::Literal::Int && !fits(ri, Scalar::Int32)) is = Scalar::Int64;
        return scalar_constant(is, static_cast<double>(ri), ri);
    }
    case Expr::Kind::Call: {
        auto callee = dotted(*e.children[0]);
        if (!callee) break;
        auto type = type_named(*callee);
        if (!type) break;
        std::vector<ir::ConstantValue> args;
        for (std::size_t i = 1; i < e.children.size(); ++i) {
            Value::Literal l;
            auto v = evaluate_constant(*e.children[i], l);
            if (!v) return std::nullopt;
            args.push_back(*v);
        }
        if (!e.keywords.empty()) {
            // Only aggregate native types take field names; order them by field.
            const NativeTypeInfo *n = type->kind() == Type::Kind::Native ? registry_.native_type(type->native_name()) : nullptr;
            if (!n || n->initializer != Initializer::Aggregate) break;
            std::vector<std::optional<ir::ConstantValue>> slots(n->exposed.size());
            for (std::size_t i = 0; i < args.size() && i < slots.size(); ++i) slots[i] = args[i];
            for (const ast::Keyword &k : e.keywords) {
                auto f = std::find_if(n->exposed.begin(), n->exposed.end(), [&](const ExposedField &x) { return x.name == k.name; });
                if (f == n->exposed.end()) {
                    diags_.error(k.location, "native type '" + type->name() + "' has no field '" + k.name + "'");
                    return std::nullopt;
                }
                Value::Literal l;
                auto v = evaluate_constant(*k.value, l);
                if (!v) return std::nullopt;
                slots[static_cast<std::size_t>(f - n->exposed.begin())] = *v;
            }
            args.clear();
            for (std::size_t i = 0; i < slots.size(); ++i) {
                if (!slots[i]) {
                    diags_.error(e.location, "native type '" + type->name() + "' constant is missing field '" +
                                                 n->exposed[i].name + "'");
                    return std::nullopt;
                }
                args.push_back(*slots[i]);
            }
        }
        ir::ConstantValue out{*type, {}, {}};
        if (type->is_scalar()) {
            if (args.size() != 1 || !args[0].type.is_scalar()) break;
            const double v = args[0].components[0];
            const double converted = type->is_float() ? v : type->is_bool() ? (v != 0) : std::trunc(v);
            return scalar_constant(type->scalar_type(), converted, static_cast<std::int64_t>(converted));
        }
        std::size_t count = 0;
        if (type->kind() == Type::Kind::Vector || type->kind() == Type::Kind::Quaternion) count = type->rows();
        else if (type->kind() == Type::Kind::Matrix) count = static_cast<std::size_t>(type->rows() * type->cols());
        else if (type->kind() == Type::Kind::Native) {
            const NativeTypeInfo *n = registry_.native_type(type->native_name());
            if (!n || n->opaque()) {
                diags_.error(e.location, "constants of opaque native type '" + type->native_name() + "' cannot be captured");
                return std::nullopt;
            }
            if (n->initializer != Initializer::Aggregate && !args.empty()) {
                diags_.error(e.location, "native type '" + type->native_name() + "' only supports default construction");
                return std::nullopt;
            }
            count = n->exposed.size();
        } else
            break;
        if (args.empty()) {
            out.components.assign(count, 0.0);
        } else if (type->kind() == Type::Kind::Matrix && args.size() == static_cast<std::size_t>(type->rows()) &&
                   args[0].type.kind() == Type::Kind::Vector) {
            for (const auto &row : args) { // a matrix from its rows
                if (row.type.kind() != Type::Kind::Vector || row.type.rows() != type->cols()) return std::nullopt;
                out.components.insert(out.components.end(), row.components.begin(), row.components.end());
            }
        } else if (args.size() == count) {
            for (const auto &a : args) {
                if (!a.type.is_scalar()) return std::nullopt;
                out.components.push_back(a.components[0]);
            }
        } else if (args.size() == 1 && args[0].type.is_scalar() && type->kind() == Type::Kind::Vector) {
            out.components.assign(count, args[0].components[0]);
        } else {
            diags_.error(e.location, "'" + type->name() + "' constant needs " + std::to_string(count) +
                                         " components, got " + std::to_string(args.size()));
            return std::nullopt;
        }
        for (double c : out.components) out.int_components.push_back(static_cast<std::int64_t>(c));
        note_type(*type);
        return out;
    }
    default: break;
    }
    return std::nullopt;
}

} // namespace weft::kernel::detail
