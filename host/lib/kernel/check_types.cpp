// Type annotations, type names and module constants.
#include "checker.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <sstream>

namespace weft::kernel::detail {

using ast::Expr;

std::string join(const std::vector<std::string> &items, const std::string &sep) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
    return out;
}

std::string shown(const Value &v) {
    if (!v.ok()) return "?";
    if (v.literal == Value::Literal::Int && v.expr->value && !v.expr->value->int_components.empty())
        return "integer literal " + ir::to_string(v.expr->value->int_components[0]);
    if (v.literal == Value::Literal::Float) return "float literal";
    return v.type().name();
}

std::string type_list(const std::vector<Value> &args) {
    std::vector<std::string> names;
    for (const Value &v : args) {
        if (!v.function.empty()) names.push_back("function " + v.function);
        else if (!v.ok()) names.push_back("?");
        else if (v.literal == Value::Literal::Int) names.push_back("int literal");
        else if (v.literal == Value::Literal::Float) names.push_back("float literal");
        else names.push_back(v.type().name());
    }
    return "(" + join(names) + ")";
}

std::string wide_literal_hint(const std::vector<Value> &args) {
    std::optional<Type> partner;
    for (const Value &v : args)
        if (v.ok() && v.function.empty() && v.literal == Value::Literal::None && v.type().is_integer()) {
            partner = v.type();
            break;
        }
    if (!partner) return "";
    for (const Value &v : args) {
        if (!v.ok() || v.literal != Value::Literal::Int || !v.expr->value || v.expr->value->int_components.empty()) continue;
        const ir::IntValue x = v.expr->value->int_components[0];
        const Scalar s = partner->scalar_type();
        if (ir::fits(x, s)) continue;
        // Two's complement to the partner's width, as C++ (and warp-lang) convert.
        const int bits = static_cast<int>(scalar_size(s) * 8);
        const ir::IntValue modulus = static_cast<ir::IntValue>(1) << bits;
        ir::IntValue w = x % modulus;
        if (w < 0) w += modulus;
        if (!ir::fits(w, s)) w -= modulus; // a signed type: the upper half is negative
        return " (the literal " + ir::to_string(x) + " does not fit " + partner->name() + "; warp-lang wraps it to " +
               ir::to_string(w) + ": write that value, or compute in a type that holds it)";
    }
    return "";
}

std::string half_precision_hint(const std::vector<Value> &args) {
    std::optional<Type> half;
    bool mixed = false;
    for (const Value &v : args) {
        if (!v.ok() || !v.function.empty() || v.literal != Value::Literal::None || !v.type().is_scalar()) continue;
        const bool is_half = is_half_precision(v.type().scalar_type());
        mixed = mixed || !is_half || (half && *half != v.type());
        if (is_half) half = v.type();
    }
    if (!half || !mixed) return "";
    const std::string n = half->name();
    return " (" + n + " converts only when asked: compute in float32 with float(x), or convert with wp." + n + "(x))";
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
    // A bare name the module binds (vec3b = wp.types.vector(length=3, dtype=bool)) is the module's, as in
    // Python, even where Warp has a type of that name (wp.vec3b, int8): wp.vec3b stays Warp's.
    if (name == dotted_name)
        if (auto it = type_aliases_.find(name); it != type_aliases_.end()) return it->second;
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
/// wp.array, wp.array1d ... wp.array4d and Warp's indexedarray classes of the same names.
struct ArrayClass {
    int ndim = 0; // 0: not an array class
    bool indexed = false;
};
ArrayClass array_class(std::string name) {
    ArrayClass c;
    if (name.rfind("indexed", 0) == 0) {
        c.indexed = true;
        name.erase(0, 7);
    }
    if (name == "array" || name == "array1d") c.ndim = 1;
    else if (name == "array2d") c.ndim = 2;
    else if (name == "array3d") c.ndim = 3;
    else if (name == "array4d") c.ndim = 4;
    return c;
}
/// wp.array, wp.array2d, wp.indexedarray, ... -> ndim, or 0.
int array_ndim(const std::string &name) { return array_class(name).ndim; }
std::string generic_indexed(const std::string &written) {
    return "'" + written + "' needs a concrete dtype: generic (Any) dtypes are for wp.array; write " + written +
           "(dtype=float)";
}
Type array_type(const Type &dtype, int ndim, bool indexed) {
    return indexed ? Type::indexed_array(dtype, ndim) : Type::array(dtype, ndim);
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
            diags_.error(e.location, "'" + spelled + "' is not a concrete type: only @wp.func and @wp.kernel parameters can be generic");
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
            if (stripped == "Function") {
                if (!allow_generic) {
                    diags_.error(e.location, "'" + *name + "' is a @wp.func parameter type only (a function passed by name)");
                    return std::nullopt;
                }
                Annotation a;
                a.kind = Annotation::Kind::Function;
                return a;
            }
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
        if (failed_constants_.count(*name)) return std::nullopt; // its definition was reported
        diags_.error(e.location, "unknown type '" + *name + "'");
        return std::nullopt;
    }

    // wp.ref[T]: a @wp.func parameter passed by reference.
    if (const Expr *target = ref_target(e)) {
        if (!allow_generic) {
            diags_.error(e.location, "wp.ref[T] is a @wp.func parameter type only");
            return std::nullopt;
        }
        auto inner = annotation(*target, false);
        if (!inner) return std::nullopt;
        if (inner->type.kind() == Type::Kind::Array) {
            diags_.error(e.location, "wp.ref[T] takes a value type: arrays are written through already");
            return std::nullopt;
        }
        inner->reference = true;
        return inner;
    }
    // wp.tile[dtype, M, N], wp.tile(dtype=T, shape=(M, N)): a tile parameter.
    if ((e.kind == Expr::Kind::Subscript || e.kind == Expr::Kind::Call) && !e.children.empty())
        if (auto base = dotted(*e.children[0]); base && *base != "tile" && strip_warp(*base) == "tile") {
            auto t = tile_annotation(e);
            if (!t) return std::nullopt;
            return Annotation{Annotation::Kind::Concrete, *t};
        }
    // wp.array[T], wp.array2d[T]
    if (e.kind == Expr::Kind::Subscript && e.children.size() == 2) {
        auto base = dotted(*e.children[0]);
        const ArrayClass cls = base ? array_class(strip_warp(*base)) : ArrayClass{};
        const int ndim = cls.ndim;
        if (ndim) {
            auto inner = annotation(*e.children[1], allow_generic);
            if (!inner) return std::nullopt;
            if (inner->kind != Annotation::Kind::Concrete && cls.indexed) {
                diags_.error(e.location, generic_indexed(*base));
                return std::nullopt;
            }
            if (inner->kind != Annotation::Kind::Concrete) {
                Annotation a;
                a.kind = Annotation::Kind::ArrayAny;
                a.ndim = ndim;
                return a;
            }
            const std::optional<Type> dtype = inner->type;
            Type t = array_type(*dtype, ndim, cls.indexed);
            note_type(t);
            return Annotation{Annotation::Kind::Concrete, t};
        }
    }
    // wp.types.vector(length=N, dtype=T), wp.types.matrix(shape=(R, C), dtype=T)
    if (e.kind == Expr::Kind::Call && !e.children.empty())
        if (auto base = dotted(*e.children[0])) {
            const std::string b = warp_types_name(*base);
            if (b == "types.vector" || b == "types.matrix") {
                auto t = user_vector_type(e, b == "types.matrix");
                if (!t) return std::nullopt;
                note_type(*t);
                return Annotation{Annotation::Kind::Concrete, *t};
            }
        }
    // wp.array(dtype=T, ndim=k)
    if (e.kind == Expr::Kind::Call && !e.children.empty()) {
        auto base = dotted(*e.children[0]);
        const ArrayClass cls = base ? array_class(strip_warp(*base)) : ArrayClass{};
        int ndim = cls.ndim;
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
                    if (k.value->kind != Expr::Kind::Int || k.value->int_value < 1 || k.value->int_value > 4) { // unsigned
                        diags_.error(k.value->location, "ndim must be an integer from 1 to 4");
                        return std::nullopt;
                    }
                    ndim = static_cast<int>(k.value->int_value);
                } else {
                    diags_.error(k.location, "unknown array argument '" + k.name + "' (expected dtype, ndim)");
                    return std::nullopt;
                }
            }
            if (generic_dtype && cls.indexed) {
                diags_.error(e.location, generic_indexed(*base));
                return std::nullopt;
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
            Type t = array_type(*dtype, ndim, cls.indexed);
            note_type(t);
            return Annotation{Annotation::Kind::Concrete, t};
        }
    }
    // Omniverse's Fabric arrays view USD stage data through Fabric's own runtime, which weft does not have.
    if ((e.kind == Expr::Kind::Call || e.kind == Expr::Kind::Subscript) && !e.children.empty())
        if (const auto base = dotted(*e.children[0]))
            if (const std::string b = strip_warp(*base); b == "fabricarray" || b == "indexedfabricarray" ||
                                                        b == "fabricarrayarray" || b == "indexedfabricarrayarray") {
                diags_.error(e.location, "'" + *base + "' is an Omniverse Fabric array (USD stage data through Fabric's "
                                         "runtime), which weft does not have: pass the data as a wp.array (or "
                                         "wp.indexedarray)");
                return std::nullopt;
            }
    diags_.error(e.location, "this is not a type annotation");
    return std::nullopt;
}

const Expr *Checker::ref_target(const Expr &e) const {
    if (e.kind != Expr::Kind::Subscript || e.children.size() != 2) return nullptr;
    const auto base = dotted(*e.children[0]);
    return base && *base != "ref" && strip_warp(*base) == "ref" ? e.children[1].get() : nullptr;
}

std::string Checker::warp_types_name(const std::string &dotted) const {
    if (const auto it = warp_types_imports_.find(dotted); it != warp_types_imports_.end()) return it->second;
    return strip_warp(dotted);
}

std::optional<std::optional<Type>> Checker::tuple_annotation(const Expr &e) {
    if (e.kind != Expr::Kind::Subscript || e.children.size() < 2) return std::nullopt;
    const std::optional<std::string> base = dotted(*e.children[0]);
    if (!base) return std::nullopt;
    const auto dot = base->rfind('.');
    const std::string last = dot == std::string::npos ? *base : base->substr(dot + 1);
    const bool typing = dot != std::string::npos && typing_aliases_.count(base->substr(0, dot));
    if (!(*base == "tuple" || (last == "Tuple" && (typing || *base == "Tuple")))) return std::nullopt;
    std::vector<Type> elements;
    for (std::size_t i = 1; i < e.children.size(); ++i) {
        const Expr &x = *e.children[i];
        if (x.kind == Expr::Kind::Ellipsis) {
            diags_.error(x.location, "a returned tuple names each element's type: " + *base + "[float, wp.vec3]");
            return std::optional<Type>();
        }
        const std::optional<Type> t = concrete_type(x);
        if (!t) return std::optional<Type>();
        if (t->kind() == Type::Kind::Array || t->kind() == Type::Kind::Tuple || t->is_void()) {
            diags_.error(x.location, "a returned tuple holds values (scalars, vectors, matrices, quaternions, "
                                     "transforms, structs), not '" + t->name() + "'");
            return std::optional<Type>();
        }
        elements.push_back(*t);
    }
    if (elements.size() < 2) {
        diags_.error(e.location, "a returned tuple has at least two elements: return the value itself (-> " +
                                     elements.front().name() + ")");
        return std::optional<Type>();
    }
    const Type t = Type::tuple(std::move(elements));
    note_type(t);
    return std::optional<Type>(t);
}

std::optional<Type> Checker::user_vector_type(const Expr &e, bool matrix) {
    const std::string what = matrix ? "wp.types.matrix(shape=(rows, cols), dtype=...)" : "wp.types.vector(length=n, dtype=...)";
    const char *size_name = matrix ? "shape" : "length";
    const Expr *size = e.children.size() > 1 ? e.children[1].get() : nullptr;
    const Expr *dtype = e.children.size() > 2 ? e.children[2].get() : nullptr;
    for (const ast::Keyword &k : e.keywords) {
        if (k.name == size_name && !size) size = k.value.get();
        else if (k.name == "dtype" && !dtype) dtype = k.value.get();
        else {
            diags_.error(k.location, "unexpected argument '" + k.name + "': " + what);
            return std::nullopt;
        }
    }
    if (!size || !dtype || e.children.size() > 3) {
        diags_.error(e.location, "expected " + what);
        return std::nullopt;
    }
    // Sizes are integer constants: literals or module constants.
    constexpr int max_size = 64;
    const auto dimension = [&](const Expr &x) -> std::optional<int> {
        Value::Literal literal;
        const std::size_t errors = diags_.error_count();
        auto c = evaluate_constant(x, literal);
        if (!c || !c->type.is_integer() || c->int_components.empty() || c->int_components[0] < 1 ||
            c->int_components[0] > max_size) {
            if (diags_.error_count() == errors)
                diags_.error(x.location, std::string(size_name) + " must be an integer constant from 1 to " +
                                             std::to_string(max_size));
            return std::nullopt;
        }
        return static_cast<int>(c->int_components[0]);
    };
    int rows = 0, cols = 0;
    if (matrix) {
        if (size->kind != Expr::Kind::Tuple || size->children.size() != 2) {
            diags_.error(size->location, "shape must be a tuple of two integer constants: shape=(rows, cols)");
            return std::nullopt;
        }
        auto r = dimension(*size->children[0]);
        auto c = r ? dimension(*size->children[1]) : std::nullopt;
        if (!c) return std::nullopt;
        rows = *r;
        cols = *c;
    } else {
        auto n = dimension(*size);
        if (!n) return std::nullopt;
        rows = *n;
    }
    auto scalar = concrete_type(*dtype);
    if (!scalar) return std::nullopt;
    if (!scalar->is_scalar()) {
        diags_.error(dtype->location, "dtype must be a scalar type (float32, float64, int32, ...), got '" +
                                          scalar->name() + "'");
        return std::nullopt;
    }
    return matrix ? Type::matrix(scalar->scalar_type(), rows, cols) : Type::vector(scalar->scalar_type(), rows);
}

// ---------------------------------------------------------------------------

namespace {

ir::ConstantValue scalar_constant(Scalar s, double v, ir::IntValue i) {
    ir::ConstantValue c{Type::scalar(s), {v}, {i}};
    return c;
}

ir::ConstantValue int_constant(Scalar s, ir::IntValue i) { return scalar_constant(s, static_cast<double>(i), i); }

ir::IntValue floor_div(ir::IntValue a, ir::IntValue b) {
    ir::IntValue q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

/// a ** b for b >= 0, or nullopt when it leaves the 128-bit range.
std::optional<ir::IntValue> int_pow(ir::IntValue base, ir::IntValue exp) {
    ir::IntValue result = 1;
    while (exp > 0) {
        if (exp & 1)
            if (__builtin_mul_overflow(result, base, &result)) return std::nullopt;
        exp >>= 1;
        if (exp > 0 && __builtin_mul_overflow(base, base, &base)) return std::nullopt;
    }
    return result;
}

} // namespace

Scalar Checker::literal_int_type(ir::IntValue v) {
    if (fits(v, Scalar::Int32)) return Scalar::Int32;
    if (fits(v, Scalar::Int64)) return Scalar::Int64;
    return Scalar::UInt64;
}

std::optional<ir::ConstantValue> Checker::evaluate_constant(const Expr &e, Value::Literal &literal) {
    pending_overflow_.reset();
    auto v = fold_constant(e, literal);
    // An intermediate beyond int64 is fine (Python ints); a final value is not.
    if (v && v->type.is_integer() && !fits(v->int_components[0], v->type.scalar_type())) {
        if (pending_overflow_) diags_.error(pending_overflow_->first, pending_overflow_->second);
        else diags_.error(e.location, "integer constant " + ir::to_string(v->int_components[0]) + " does not fit " + v->type.name());
        return std::nullopt;
    }
    return v;
}

std::optional<ir::ConstantValue> Checker::fold_constant(const Expr &e, Value::Literal &literal) {
    literal = Value::Literal::None;
    switch (e.kind) {
    case Expr::Kind::Int:
        literal = Value::Literal::Int;
        return int_constant(literal_int_type(e.int_value), e.int_value);
    case Expr::Kind::Float:
        literal = Value::Literal::Float;
        return scalar_constant(Scalar::Float32, e.float_value, 0);
    case Expr::Kind::Bool: return scalar_constant(Scalar::Bool, e.bool_value ? 1 : 0, e.bool_value ? 1 : 0);
    case Expr::Kind::Name:
    case Expr::Kind::Attribute: {
        auto d = dotted(e);
        if (!d) break;
        std::string stripped = strip_warp(*d);
        if (const std::string member = enum_value_member(stripped); !member.empty()) stripped = member;
        const ModuleConstant *c = nullptr;
        if (auto it = constants_.find(stripped); it != constants_.end()) c = &it->second;
        if (auto it = warp_constants_.find(stripped); stripped != *d && it != warp_constants_.end()) c = &it->second;
        if (!c) break;
        literal = c->literal;
        return c->value;
    }
    case Expr::Kind::Unary: {
        Value::Literal inner;
        auto v = fold_constant(*e.children[0], inner);
        if (!v) return std::nullopt;
        if (e.text == "~" && v->type.is_integer()) {
            const ir::IntValue r = ~v->int_components[0];
            return fold_int_result(e, *v, std::nullopt, inner, inner, r, "~" + ir::to_string(v->int_components[0]),
                                   literal);
        }
        if (e.text == "-" || e.text == "+") {
            if (!v->type.is_scalar() || v->type.is_bool()) break;
            if (v->type.is_integer()) {
                const ir::IntValue r = e.text == "-" ? -v->int_components[0] : v->int_components[0];
                return fold_int_result(e, *v, std::nullopt, inner, inner, r,
                                       e.text + "(" + ir::to_string(v->int_components[0]) + ")", literal);
            }
            if (e.text == "-") v->components[0] = -v->components[0];
            literal = inner;
            return v;
        }
        break;
    }
    case Expr::Kind::Binary: {
        Value::Literal la, lb;
        auto a = fold_constant(*e.children[0], la);
        auto b = fold_constant(*e.children[1], lb);
        if (!a || !b || !a->type.is_scalar() || !b->type.is_scalar() || a->type.is_bool() || b->type.is_bool()) break;
        const std::string &op = e.text;
        // Module level is Python: DT / SUBSTEPS with SUBSTEPS = wp.constant(4) is a float, so is 2 ** -1.
        const bool is_float = a->type.is_float() || b->type.is_float() || op == "/" ||
                              (op == "**" && b->int_components[0] < 0);
        const bool bitwise = op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>";
        if (bitwise && is_float) break;
        if (is_float) {
            const double x = a->components[0], y = b->components[0];
            double r = 0;
            if ((op == "/" || op == "//" || op == "%") && y == 0) {
                diags_.error(e.location, "division by zero in a constant expression");
                return std::nullopt;
            }
            if (op == "+") r = x + y;
            else if (op == "-") r = x - y;
            else if (op == "*") r = x * y;
            else if (op == "/") r = x / y;
            else if (op == "//") r = std::floor(x / y);
            else if (op == "%") r = x - y * std::floor(x / y);
            else if (op == "**") {
                // Python raises here rather than yield inf or nan; a constant that silently
                // became one would poison every kernel that reads it.
                auto operand = [](const ir::ConstantValue &c) {
                    std::ostringstream os;
                    if (c.type.is_integer()) os << ir::to_string(c.int_components[0]);
                    else os << c.components[0];
                    const std::string s = os.str();
                    return s[0] == '-' ? "(" + s + ")" : s;
                };
                const std::string shown_pow = operand(*a) + " ** " + operand(*b);
                if (x == 0 && y < 0) {
                    diags_.error(e.location, "division by zero in a constant expression: " + shown_pow +
                                                 " (zero to a negative power)");
                    return std::nullopt;
                }
                if (x < 0 && std::isfinite(y) && y != std::floor(y)) {
                    diags_.error(e.location, "a constant expression has no real value: " + shown_pow +
                                                 " (a negative number to a fractional power)");
                    return std::nullopt;
                }
                r = std::pow(x, y);
                if (!std::isfinite(r) && std::isfinite(x) && std::isfinite(y)) {
                    diags_.error(e.location, "floating-point overflow in a constant expression: " + shown_pow);
                    return std::nullopt;
                }
            } else break;
            literal = (la != Value::Literal::None && lb != Value::Literal::None) ? Value::Literal::Float
                                                                                 : Value::Literal::None;
            // The typed operand decides (3.0 * X with X float64 is float64); a literal only between literals.
            const bool a_typed = a->type.is_float() && la == Value::Literal::None;
            const bool b_typed = b->type.is_float() && lb == Value::Literal::None;
            const Scalar fs = a_typed ? a->type.scalar_type()
                              : b_typed ? b->type.scalar_type()
                              : a->type.is_float() ? a->type.scalar_type()
                              : b->type.is_float() ? b->type.scalar_type()
                                                   : Scalar::Float32;
            return scalar_constant(fs, r, 0);
        }
        // Exact integer arithmetic; the result must fit its type (below).
        const ir::IntValue x = a->int_components[0], y = b->int_components[0];
        const std::string shown_op = ir::to_string(x) + " " + op + " " + ir::to_string(y);
        ir::IntValue r = 0;
        if ((op == "//" || op == "%") && y == 0) {
            diags_.error(e.location, "division by zero in a constant expression: " + shown_op);
            return std::nullopt;
        }
        if (op == "+") r = x + y; // operands are within 65 bits: no 128-bit overflow
        else if (op == "-") r = x - y;
        else if (op == "*") r = x * y;
        else if (op == "//") r = floor_div(x, y);
        else if (op == "%") r = x - y * floor_div(x, y);
        else if (op == "**") {
            auto p = int_pow(x, y);
            if (!p) {
                diags_.error(e.location, "integer overflow in a constant expression: " + shown_op +
                                             " does not fit a 64-bit integer");
                return std::nullopt;
            }
            r = *p;
        } else if (op == "&") r = x & y;
        else if (op == "|") r = x | y;
        else if (op == "^") r = x ^ y;
        else if (op == "<<" || op == ">>") {
            if (y < 0) {
                diags_.error(e.location, "negative shift count in a constant expression: " + shown_op);
                return std::nullopt;
            }
            if (op == ">>") r = y >= 127 ? (x < 0 ? -1 : 0) : x >> static_cast<int>(y);
            else if (x != 0 && y >= 64) {
                diags_.error(e.location, "integer overflow in a constant expression: " + shown_op +
                                             " does not fit a 64-bit integer");
                return std::nullopt;
            } else r = x * (static_cast<ir::IntValue>(1) << static_cast<int>(y));
        } else
            break;
        return fold_int_result(e, *a, *b, la, lb, r, shown_op, literal);
    }
    case Expr::Kind::Subscript: {
        // T[i] of a module-level tuple, i a constant (negative from the end, as Python).
        if (e.children.size() != 2 || e.children[0]->kind != Expr::Kind::Name) break;
        const auto t = tuple_constants_.find(e.children[0]->text);
        if (t == tuple_constants_.end()) break;
        Value::Literal l;
        auto i = fold_constant(*e.children[1], l);
        if (!i || !i->type.is_integer()) break;
        const auto n = static_cast<ir::IntValue>(t->second->children.size());
        const ir::IntValue at = i->int_components[0] < 0 ? i->int_components[0] + n : i->int_components[0];
        if (at < 0 || at >= n) {
            diags_.error(e.children[1]->location, "index " + ir::to_string(i->int_components[0]) + " is outside the tuple '" +
                                                      t->first + "' of " + ir::to_string(n) + " elements");
            return std::nullopt;
        }
        return fold_constant(*t->second->children[static_cast<std::size_t>(at)], literal);
    }
    case Expr::Kind::Call: {
        auto callee = dotted(*e.children[0]);
        if (!callee) break;
        // len(T) of a module-level tuple.
        if (*callee == "len" && e.children.size() == 2 && e.keywords.empty() && e.children[1]->kind == Expr::Kind::Name) {
            if (const auto t = tuple_constants_.find(e.children[1]->text); t != tuple_constants_.end()) {
                literal = Value::Literal::Int;
                return int_constant(Scalar::Int32, static_cast<ir::IntValue>(t->second->children.size()));
            }
            if (const auto n = enum_sizes_.find(e.children[1]->text); n != enum_sizes_.end()) {
                literal = Value::Literal::Int; // len(Color): its members
                return int_constant(Scalar::Int32, static_cast<ir::IntValue>(n->second));
            }
        }
        // Python's math module on constants (wp.static(math.sqrt(2.0)), N = math.floor(...)):
        // the host computes these in double, and the result is a float literal as in Python.
        if (callee->rfind("math.", 0) == 0 && e.keywords.empty()) {
            const std::string fn = callee->substr(5);
            std::vector<double> xs;
            for (std::size_t i = 1; i < e.children.size(); ++i) {
                Value::Literal l;
                auto v = fold_constant(*e.children[i], l);
                if (!v || !v->type.is_scalar() || v->components.empty()) return std::nullopt;
                xs.push_back(v->type.is_float() ? v->components[0] : static_cast<double>(v->int_components[0]));
            }
            using F1 = double (*)(double);
            static const std::map<std::string, F1> one{
                {"sqrt", [](double x) { return std::sqrt(x); }}, {"sin", [](double x) { return std::sin(x); }},
                {"cos", [](double x) { return std::cos(x); }},   {"tan", [](double x) { return std::tan(x); }},
                {"exp", [](double x) { return std::exp(x); }},   {"log", [](double x) { return std::log(x); }},
                {"fabs", [](double x) { return std::fabs(x); }}, {"atan", [](double x) { return std::atan(x); }},
                {"radians", [](double x) { return x * 0.017453292519943295; }},
                {"degrees", [](double x) { return x * 57.29577951308232; }}};
            std::optional<double> r;
            if (auto f = one.find(fn); f != one.end() && xs.size() == 1) r = f->second(xs[0]);
            else if (fn == "pow" && xs.size() == 2) r = std::pow(xs[0], xs[1]);
            else if (fn == "atan2" && xs.size() == 2) r = std::atan2(xs[0], xs[1]);
            if (!r || !std::isfinite(*r)) break;
            literal = Value::Literal::Float;
            return ir::ConstantValue{Type::scalar(Scalar::Float32), {*r}, {0}};
        }
        auto type = type_named(*callee);
        if (!type) break;
        std::vector<ir::ConstantValue> args;
        for (std::size_t i = 1; i < e.children.size(); ++i) {
            Value::Literal l;
            auto v = fold_constant(*e.children[i], l);
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
                auto v = fold_constant(*k.value, l);
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
            if (type->is_float())
                return scalar_constant(type->scalar_type(), args[0].components[0], 0);
            if (type->is_bool()) {
                const bool b = args[0].type.is_float() ? args[0].components[0] != 0 : args[0].int_components[0] != 0;
                return scalar_constant(Scalar::Bool, b ? 1 : 0, b ? 1 : 0);
            }
            const ir::IntValue converted = args[0].type.is_float()
                                               ? static_cast<ir::IntValue>(std::trunc(args[0].components[0]))
                                               : args[0].int_components[0];
            if ((args[0].type.is_float() && !(std::fabs(args[0].components[0]) < 1.8e19)) ||
                !fits(converted, type->scalar_type())) {
                diags_.error(e.location, "constant " + (args[0].type.is_float() ? std::to_string(args[0].components[0])
                                                                                 : ir::to_string(converted)) +
                                             " does not fit " + type->name());
                return std::nullopt;
            }
            return int_constant(type->scalar_type(), converted);
        }
        std::size_t count = 0;
        if (type->kind() == Type::Kind::Vector || type->kind() == Type::Kind::Quaternion ||
            type->kind() == Type::Kind::Transform)
            count = type->rows();
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
        } else if (type->kind() == Type::Kind::Transform && args.size() <= 2 &&
                   args[0].type == Type::vector(type->scalar_type(), 3)) {
            // transform(p[, q]): q defaults to the identity rotation, as in kernels.
            if (args.size() == 2 && args[1].type != Type::quaternion(type->scalar_type())) {
                diags_.error(e.location, "'" + type->name() + "' constant rotation q must be " +
                                             Type::quaternion(type->scalar_type()).name() + ", got '" +
                                             args[1].type.name() + "'");
                return std::nullopt;
            }
            out.components = args[0].components;
            if (args.size() == 2) out.components.insert(out.components.end(), args[1].components.begin(), args[1].components.end());
            else out.components.insert(out.components.end(), {0.0, 0.0, 0.0, 1.0});
        } else if (args.size() == count) {
            for (const auto &a : args) {
                if (!a.type.is_scalar()) return std::nullopt;
                out.components.push_back(a.components[0]);
            }
        } else if (args.size() == 1 && args[0].type.is_scalar() &&
                   (type->kind() == Type::Kind::Vector || type->kind() == Type::Kind::Transform)) {
            out.components.assign(count, args[0].components[0]);
        } else {
            diags_.error(e.location, "'" + type->name() + "' constant needs " + std::to_string(count) +
                                         " components, got " + std::to_string(args.size()));
            return std::nullopt;
        }
        for (double c : out.components) out.int_components.push_back(static_cast<ir::IntValue>(c));
        note_type(*type);
        return out;
    }
    default: break;
    }
    return std::nullopt;
}

std::optional<ir::ConstantValue> Checker::fold_int_result(const Expr &e, const ir::ConstantValue &a,
                                                          const std::optional<ir::ConstantValue> &b,
                                                          Value::Literal la, Value::Literal lb, ir::IntValue r,
                                                          const std::string &shown_op, Value::Literal &literal) {
    // The result's type: uint64 when an operand is; else, for literals only, the
    // smallest of int32/int64 that holds it (Python ints grow); else the typed operand's.
    const bool literals = la != Value::Literal::None && (!b || lb != Value::Literal::None);
    const bool unsigned64 = a.type.scalar_type() == Scalar::UInt64 || (b && b->type.scalar_type() == Scalar::UInt64);
    Scalar type;
    if (unsigned64 && (literals || a.type.scalar_type() == Scalar::UInt64)) type = Scalar::UInt64;
    else if (literals) type = fits(r, Scalar::Int32) ? Scalar::Int32 : Scalar::Int64;
    else type = la == Value::Literal::None ? a.type.scalar_type() : b->type.scalar_type();
    if (literals && unsigned64 && !fits(r, Scalar::UInt64) && fits(r, Scalar::Int64)) type = Scalar::Int64;
    if (literals && !fits(r, type) && fits(r, Scalar::UInt64) && fits(r, Scalar::Int64) == false) {
        // Python ints: an intermediate may leave int64 (-2**63 computes 2**63 first).
        // Only the value of the whole expression must fit; remember why it would not.
        pending_overflow_ = {e.location, "integer overflow in a constant expression: " + shown_op + " = " +
                                             ir::to_string(r) + " does not fit " + std::string(scalar_name(type))};
        literal = Value::Literal::Int;
        ir::ConstantValue v = int_constant(type, r);
        return v;
    }
    if (!fits(r, type)) {
        diags_.error(e.location, "integer overflow in a constant expression: " + shown_op + " = " + ir::to_string(r) +
                                     " does not fit " + std::string(scalar_name(type)));
        return std::nullopt;
    }
    literal = literals ? Value::Literal::Int : Value::Literal::None;
    return int_constant(type, r);
}

} // namespace weft::kernel::detail
