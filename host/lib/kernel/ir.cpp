#include "weft/kernel/ir.hpp"

#include "weft/support/error.hpp"

#include <array>
#include <utility>

namespace weft::kernel::ir {

std::string to_string(IntValue v) {
    if (v == 0) return "0";
    const bool negative = v < 0;
    // Magnitude as unsigned: -(min) would overflow in the signed type.
    __extension__ typedef unsigned __int128 Magnitude;
    Magnitude m = negative ? static_cast<Magnitude>(-(v + 1)) + 1 : static_cast<Magnitude>(v);
    std::string digits;
    while (m) {
        digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(m % 10)));
        m /= 10;
    }
    return negative ? "-" + digits : digits;
}

bool fits(IntValue v, Scalar s) {
    auto in = [&](IntValue lo, IntValue hi) { return v >= lo && v <= hi; };
    const IntValue i64_min = -(static_cast<IntValue>(1) << 63);
    switch (s) {
    case Scalar::Bool: return in(0, 1);
    case Scalar::Int8: return in(-128, 127);
    case Scalar::Int16: return in(-32768, 32767);
    case Scalar::Int32: return in(-2147483648LL, 2147483647LL);
    case Scalar::Int64: return in(i64_min, -(i64_min + 1));
    case Scalar::UInt8: return in(0, 255);
    case Scalar::UInt16: return in(0, 65535);
    case Scalar::UInt32: return in(0, 4294967295LL);
    case Scalar::UInt64: return in(0, (static_cast<IntValue>(1) << 64) - 1);
    case Scalar::Float16:
    case Scalar::BFloat16:
    case Scalar::Float32:
    case Scalar::Float64: return true;
    }
    return false;
}

namespace {
constexpr std::array<std::pair<Intrinsic, std::string_view>, 24> intrinsic_names{{
    {Intrinsic::Tid, "tid"},
    {Intrinsic::Len, "len"},
    {Intrinsic::Select, "select"},
    {Intrinsic::Where, "where"},
    {Intrinsic::AtomicAdd, "atomic_add"},
    {Intrinsic::AtomicSub, "atomic_sub"},
    {Intrinsic::AtomicMin, "atomic_min"},
    {Intrinsic::AtomicMax, "atomic_max"},
    {Intrinsic::AtomicAnd, "atomic_and"},
    {Intrinsic::AtomicOr, "atomic_or"},
    {Intrinsic::AtomicXor, "atomic_xor"},
    {Intrinsic::AtomicExch, "atomic_exch"},
    {Intrinsic::AtomicCas, "atomic_cas"},
    {Intrinsic::QuatToAxisAngle, "quat_to_axis_angle"},
    {Intrinsic::FixedArray, "zeros"},
    {Intrinsic::Print, "print"},
    {Intrinsic::ExpectEq, "expect_eq"},
    {Intrinsic::ExpectNeq, "expect_neq"},
    {Intrinsic::ExpectNear, "expect_near"},
    {Intrinsic::Identity, "identity"},
    {Intrinsic::TransformIdentity, "transform_identity"},
    {Intrinsic::QuatIdentity, "quat_identity"},
    {Intrinsic::Assert, "assert"},
    {Intrinsic::BlockDim, "block_dim"},
}};
} // namespace

std::string_view intrinsic_name(Intrinsic i) {
    for (const auto &[k, name] : intrinsic_names)
        if (k == i) return name;
    throw InternalError("intrinsic_name: unknown intrinsic");
}

std::optional<Intrinsic> parse_intrinsic(std::string_view name) {
    for (const auto &[k, n] : intrinsic_names)
        if (n == name) return k;
    return std::nullopt;
}

bool is_atomic(Intrinsic i) {
    return i == Intrinsic::AtomicAdd || i == Intrinsic::AtomicSub || i == Intrinsic::AtomicMin ||
           i == Intrinsic::AtomicMax || i == Intrinsic::AtomicAnd || i == Intrinsic::AtomicOr ||
           i == Intrinsic::AtomicXor || i == Intrinsic::AtomicExch || i == Intrinsic::AtomicCas;
}

std::size_t atomic_indices_end(const Expr &atomic) {
    const std::size_t values = atomic.intrinsic == Intrinsic::AtomicCas ? 2 : 1;
    return atomic.args.size() > values ? atomic.args.size() - values : 1;
}

ExprPtr Expr::clone() const {
    auto e = std::make_unique<Expr>(kind, location);
    e->type = type;
    e->name = name;
    e->index = index;
    e->intrinsic = intrinsic;
    e->value = value;
    e->overload = overload;
    e->chain = chain;
    for (const ExprPtr &a : args) e->args.push_back(a->clone());
    return e;
}

StmtPtr Stmt::clone() const {
    auto s = std::make_unique<Stmt>(kind, location);
    s->index = index;
    s->targets = targets;
    if (target) s->target = target->clone();
    if (value) s->value = value->clone();
    if (cond) s->cond = cond->clone();
    for (const ExprPtr &a : args) s->args.push_back(a->clone());
    for (const StmtPtr &b : body) s->body.push_back(b->clone());
    for (const StmtPtr &b : orelse) s->orelse.push_back(b->clone());
    s->overload = overload;
    s->atomic = atomic;
    return s;
}

Function Function::clone() const {
    Function f;
    f.name = name;
    f.mangled_name = mangled_name;
    f.is_kernel = is_kernel;
    f.params = params;
    f.return_type = return_type;
    f.locals = locals;
    for (const StmtPtr &s : body) f.body.push_back(s->clone());
    f.location = location;
    f.uses_tid = uses_tid;
    f.uses_tiles = uses_tiles;
    f.custom_adjoint = custom_adjoint;
    f.custom_replay = custom_replay;
    f.reference_params_from = reference_params_from;
    f.is_native = is_native;
    f.writes_through_refs = writes_through_refs;
    f.native = native;
    f.native_adjoint = native_adjoint;
    f.native_replay = native_replay;
    f.enable_backward = enable_backward;
    f.enable_backward_explicit = enable_backward_explicit;
    f.abi = abi;
    f.entry_name = entry_name;
    f.tid_dims = tid_dims;
    f.launch_bounds = launch_bounds;
    f.unique = unique;
    f.own_options = own_options;
    return f;
}

bool Expr::is_atom() const {
    return kind == Kind::Local || kind == Kind::Param || kind == Kind::Literal || kind == Kind::String ||
           kind == Kind::Constant;
}

namespace {
/// Type codes hold characters C++ names cannot ('{', ':', ...): escape them
/// (and '_' itself) as _XX so the mapping stays injective.
std::string identifier_safe(std::string_view code) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (char c : code) {
        const auto u = static_cast<unsigned char>(c);
        if ((u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z')) {
            out += c;
        } else {
            out += '_';
            out += hex[u >> 4];
            out += hex[u & 15];
        }
    }
    return out;
}
} // namespace

std::string identifier_safe_name(std::string_view text) { return identifier_safe(text); }

std::string mangle_function(std::string_view name, const std::vector<Type> &arg_types) {
    std::string out = "wf" + std::to_string(name.size()) + std::string(name);
    for (const Type &t : arg_types) {
        const std::string code = identifier_safe(t.code());
        out += "_" + std::to_string(code.size()) + code;
    }
    return out;
}

std::string mangle_kernel(std::string_view name) { return "wk" + std::to_string(name.size()) + std::string(name); }

std::string mangle_kernel(std::string_view name, const std::vector<Type> &param_types) {
    // The function scheme after the kernel prefix: "wk5scale_6array..." never equals a plain "wk5scale".
    return mangle_kernel(name) + mangle_function("", param_types).substr(3);
}

std::vector<std::size_t> reached_functions(const Module &m, const std::vector<std::size_t> &roots) {
    std::vector<char> reached(m.functions.size(), 0);
    std::vector<std::size_t> work;
    const auto reach = [&](std::size_t i) {
        if (i < reached.size() && !reached[i]) {
            reached[i] = 1;
            work.push_back(i);
        }
    };
    const auto by_mangled = [&](const std::string &mangled) {
        for (std::size_t i = 0; i < m.functions.size(); ++i)
            if (m.functions[i].mangled_name == mangled) reach(i);
    };
    for (std::size_t r : roots) reach(r);
    while (!work.empty()) {
        const Function &f = m.functions[work.back()];
        work.pop_back();
        for (const StmtPtr &s : f.body)
            for_each_expr(*s, [&](const Expr &e) {
                if (e.kind == Expr::Kind::Call && e.index >= 0) reach(static_cast<std::size_t>(e.index));
            });
        if (!f.custom_adjoint.empty()) by_mangled(f.custom_adjoint);
        if (!f.custom_replay.empty()) by_mangled(f.custom_replay);
    }
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < reached.size(); ++i)
        if (reached[i]) out.push_back(i);
    return out;
}

} // namespace weft::kernel::ir
