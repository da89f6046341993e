// Emitter's statements and expressions: one lowered IR statement or atom at a time, into C++.
#include "emitter.hpp"

namespace weft::codegen::detail {

std::string Emitter::constant_function(const std::string &name) {
    const auto dot = name.find('.');
    if (dot == std::string::npos) return "c_" + name;
    return "c" + std::to_string(dot) + "_" + name.substr(0, dot) + "_" + name.substr(dot + 1);
}

std::string Emitter::indented(const std::string &text, int depth) const {
    std::string out;
    const std::string pad = indent(depth);
    std::size_t from = 0;
    for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
        out += pad + text.substr(from, nl + 1 - from);
    return out;
}

void Emitter::block(std::ostringstream &o, const std::vector<ir::StmtPtr> &body, int depth) {
    for (const ir::StmtPtr &s : body) statement(o, *s, depth);
}

void Emitter::statement(std::ostringstream &o, const Stmt &s, int depth) {
    o << line_marker(s.location);
    const std::string in = indent(depth);
    switch (s.kind) {
    case S::Declare:
    case S::Assign:
        if (s.value->type.is_tile()) {
            tile_assignment(o, local(s.index), *s.value, depth);
        } else if (s.value->kind == K::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid)
            o << in << local(s.index) << " = weft::int32(weft_t_.idx);\n";
        else if (replay_ && s.value->kind == K::Intrinsic && ir::is_atomic(s.value->intrinsic))
            // The forward pass applied the atomic; a replay reads the element instead.
            o << in << local(s.index) << " = " << atomic_element(*s.value) << ";\n";
        else if (const char *op = index_arithmetic(s))
            o << in << local(s.index) << " = " << expr(*s.value->args[0]) << op << expr(*s.value->args[1]) << ";\n";
        else
            o << in << local(s.index) << " = " << expr(*s.value) << ";\n";
        return;
    case S::Store:
        if (s.value->type.is_tile()) return tile_assignment(o, lvalue(*s.target), *s.value, depth); // t += u on a parameter
        if (replay_ && writes_array(*s.target)) return; // the forward pass wrote it
        o << in << element_store(lvalue(*s.target), expr(*s.value), s.value->type) << ";\n";
        return;
    case S::Unpack: {
        if (s.value->kind == K::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid) {
            // Row-major, as Warp: the last index varies fastest (computed by the entry's loop).
            for (std::size_t k = 0; k < s.targets.size(); ++k)
                o << in << local(s.targets[k]) << " = weft_t_.c[" << k << "];\n";
            return;
        }
        o << in << "{\n" << in << "    const auto weft_tuple_ = " << expr(*s.value) << ";\n";
        for (std::size_t k = 0; k < s.targets.size(); ++k)
            o << in << "    " << local(s.targets[k]) << " = weft_tuple_.e" << k << ";\n";
        o << in << "}\n";
        return;
    }
    case S::Eval:
        if (replay_ && s.value->kind == K::Intrinsic) return; // atomics, print, expect_*: done by the forward pass
        if (s.value->kind == K::Tile && s.value->name != "tile_extract") {
            // A replay (backward pass) recomputes tiles; the forward pass wrote the arrays.
            if (replay_ && (s.value->name == "tile_store" || s.value->name == "tile_atomic_add")) return;
            return tile_statement(o, "", *s.value, depth);
        }
        if (s.value->type.is_tile()) { // a function's tile result, unused: into a scratch tile
            o << in << "{\n" << in << "    " << tile_declaration(s.value->type) << " weft_unused_;\n";
            tile_assignment(o, "weft_unused_", *s.value, depth + 1);
            o << in << "}\n";
            return;
        }
        o << in << expr(*s.value) << ";\n";
        return;
    case S::If:
        o << in << "if (" << expr(*s.cond) << ") {\n";
        block(o, s.body, depth + 1);
        if (!s.orelse.empty()) {
            o << in << "} else {\n";
            block(o, s.orelse, depth + 1);
        }
        o << in << "}\n";
        return;
    case S::For: {
        // Python's range: the loop variable is assigned from a hidden counter,
        // so assigning it in the body does not change the iteration.
        // A 64-bit counter: range(2147483640, 2147483647, 5) and int8 bounds near
        // their limits must not overflow while stepping past the end.
        const std::string it = "weft_it" + std::to_string(loop_counter_++) + "_";
        const std::string t = type(f_->locals[static_cast<std::size_t>(s.index)].type);
        const std::string start = expr(*s.args[0]), stop = "(long long)(" + expr(*s.args[1]) + ")",
                          step = "(long long)(" + expr(*s.args[2]) + ")";
        o << in << "for (long long " << it << " = " << start << "; (" << step << " > 0) ? (" << it << " < " << stop
          << ") : (" << it << " > " << stop << "); " << it << " += " << step << ") {\n";
        o << in << "    " << local(s.index) << " = static_cast<" << t << ">(" << it << ");\n";
        block(o, s.body, depth + 1);
        o << in << "}\n";
        return;
    }
    case S::While:
        o << in << "while (" << expr(*s.cond) << ") {\n" << in << "    WEFT_LOOP_PROGRESS();\n";
        block(o, s.body, depth + 1);
        o << in << "}\n";
        return;
    case S::Break: o << in << "break;\n"; return;
    case S::Continue: o << in << "continue;\n"; return;
    case S::Return:
        if (s.value && s.value->type.is_tile()) { // into the caller's tile (Emitter::signature)
            o << in << "weft::tile_copy(weft_ret_, " << expr(*s.value) << ");\n" << in << "return;\n";
            return;
        }
        o << in << (s.value ? "return " + expr(*s.value) : std::string("return")) << ";\n";
        return;
    case S::AugAssign: throw InternalError("generate_cpp: an augmented assignment survived lowering");
    }
}

bool Emitter::writes_array(const Expr &path) {
    if (path.kind == K::Index && path.args[0]->type.kind() == Type::Kind::Array) return true;
    if (path.kind == K::Field || path.kind == K::Index) return writes_array(*path.args[0]);
    return false;
}

std::string Emitter::atomic_element(const Expr &atomic) {
    std::string out = codegen_.bounds_checks ? "weft::index_checked<false>(" + expr(*atomic.args[0]) + ", " +
                                                   c_string(array_name(*atomic.args[0])) + ", " +
                                                   c_string(f_->name) + ", " + c_string(logical_file_) + ", " +
                                                   std::to_string(atomic.location.line) + ", weft_t_.idx"
                                             : "weft::index(" + expr(*atomic.args[0]);
    for (std::size_t i = 1; i < ir::atomic_indices_end(atomic); ++i) out += ", " + expr(*atomic.args[i]);
    return out + ")";
}

std::string Emitter::atomic_call(const char *name, const Expr &e, const std::string &where) {
    if (const std::optional<int> p = deferred_param(e)) {
        const std::string value = e.intrinsic == ir::Intrinsic::AtomicSub ? "weft::neg(" + expr(*e.args.back()) + ")"
                                                                           : expr(*e.args.back());
        const std::string table = "static_cast<" + deferred_type(*f_) + " *>(weft_t_.deferred)->d" + std::to_string(*p);
        if (!detail::scattered(e, varying_)) return table + ".add(&" + atomic_element(e) + ", " + value + ")";
        std::string out = table + ".scatter<weft_contig_>(" + expr(*e.args[0]) + ", " + value;
        for (std::size_t i = 1; i + 1 < e.args.size(); ++i) out += ", " + expr(*e.args[i]);
        return out + ")";
    }
    if (!codegen_.bounds_checks) return "weft::" + std::string(name) + "(" + args(e) + ")";
    // The values first (they follow the indices in the kernel's call).
    const std::size_t end = ir::atomic_indices_end(e);
    std::string out = "weft::" + std::string(name) + "_checked(" + args(e, end) + ", " + expr(*e.args[0]) + ", " +
                      c_string(array_name(*e.args[0])) + ", " + where;
    for (std::size_t i = 1; i < end; ++i) out += ", " + expr(*e.args[i]);
    return out + ")";
}

std::optional<int> Emitter::deferred_param(const Expr &e) const {
    if (deferred_.empty() || e.args.empty() || e.args[0]->kind != K::Param) return std::nullopt;
    if (e.intrinsic != ir::Intrinsic::AtomicAdd && e.intrinsic != ir::Intrinsic::AtomicSub) return std::nullopt;
    if (std::find(deferred_.begin(), deferred_.end(), e.args[0]->index) == deferred_.end()) return std::nullopt;
    return e.args[0]->index;
}

std::string Emitter::args(const Expr &e, std::size_t from) {
    std::string out;
    for (std::size_t i = from; i < e.args.size(); ++i) out += (i > from ? ", " : "") + expr(*e.args[i]);
    return out;
}

std::string Emitter::component(const Expr &e) {
    // A field of a struct, native type or transform (p, q), or a vector/quaternion component.
    const Type &base = e.args[0]->type;
    if (base.kind() == Type::Kind::Struct) return ".m_" + e.name;
    if (base.kind() == Type::Kind::Native || base.kind() == Type::Kind::Transform) return "." + e.name;
    return ".c[" + std::to_string(e.index) + "]";
}

std::string Emitter::subscript(const Expr &e) {
    // Warp counts a negative index from the end (v[-1] is the last component).
    const Type &t = e.args[0]->type;
    if (e.args.size() == 3) { // m[i, j]
        const auto at = [&](const Expr &i, int n) {
            return nonneg_index(i) ? expr(i) : "weft::rt::wrap(" + expr(i) + ", " + std::to_string(n) + ")";
        };
        return ".c[" + at(*e.args[1], t.rows()) + "].c[" + at(*e.args[2], t.cols()) + "]";
    }
    const bool transform = t.kind() == Type::Kind::Transform;
    const std::string open = transform ? "[" : ".c[";
    if (nonneg_index(*e.args[1])) return open + expr(*e.args[1]) + "]";
    const int n = transform ? 7 : t.kind() == Type::Kind::Quaternion ? 4 : t.rows();
    return open + "weft::rt::wrap(" + expr(*e.args[1]) + ", " + std::to_string(n) + ")]";
}

std::string Emitter::array_element(const Expr &e) {
    if (!codegen_.bounds_checks) {
        // Warp's negative-index wrap only on the indices that need it: the
        // others stay affine in the thread index (vectorizable).
        const std::string array = expr(*e.args[0]);
        std::string out = "weft::index_nn_c<weft_contig_>(" + array;
        for (std::size_t i = 1; i < e.args.size(); ++i) {
            const std::string x = expr(*e.args[i]);
            out += nonneg_index(*e.args[i]) ? ", " + x
                                            : ", weft::rt::wrap(" + x + ", " + array + ".shape[" + std::to_string(i - 1) + "])";
        }
        return out + ")";
    }
    return "weft::index_checked<weft_contig_>(" + expr(*e.args[0]) + ", " + c_string(array_name(*e.args[0])) + ", " +
           c_string(f_->name) + ", " + c_string(logical_file_) + ", " + std::to_string(e.location.line) +
           ", weft_t_.idx, " + args(e, 1) + ")";
}

const Expr *Emitter::declared_value(const std::vector<ir::StmtPtr> &body, int index) {
    for (const ir::StmtPtr &st : body) {
        if (st->kind == S::Declare && st->index == index) return st->value.get();
        if (const Expr *v = declared_value(st->body, index)) return v;
        if (const Expr *v = declared_value(st->orelse, index)) return v;
    }
    return nullptr;
}

std::string Emitter::array_name(const Expr &e) const {
    const auto variable = [](const std::vector<ir::Variable> &vars, int i) -> std::string {
        if (i < 0 || static_cast<std::size_t>(i) >= vars.size() || vars[i].temporary) return "";
        return vars[i].name;
    };
    std::string name;
    if (e.kind == K::Param) name = variable(f_->params, e.index);
    else if (e.kind == K::Local) {
        name = variable(f_->locals, e.index);
        // A temporary lowering made for a path (p.weights): the path's name.
        if (name.empty())
            if (const Expr *source = declared_value(f_->body, e.index)) name = array_name(*source);
        if (name == "array") name.clear();
    }
    else if (e.kind == K::Field && !e.args.empty()) {
        const std::string base = array_name(*e.args[0]);
        if (base != "array") name = base + "." + e.name;
    }
    return name.empty() ? "array" : name;
}

std::string Emitter::view(const Expr &e, const std::string &base) {
    std::string out = "weft::view(" + base;
    std::size_t a = 1;
    for (int k = 0; a < e.args.size(); ++k) {
        if (e.index & (1 << k)) {
            out += ", weft::rt::slice(" + expr(*e.args[a]) + ", " + expr(*e.args[a + 1]) + ", " + expr(*e.args[a + 2]) + ")";
            a += 3;
        } else {
            out += ", " + expr(*e.args[a++]);
        }
    }
    return out + ")";
}

std::string Emitter::gather_source(const Expr &e, std::size_t k) {
    const auto &pos = e.value->int_components;
    if (e.args[0]->type.kind() != Type::Kind::Matrix) return ".c[" + ir::to_string(pos[k]) + "]";
    auto at = [&](ir::IntValue p, int extent) {
        if (p >= 0) return ir::to_string(p);
        return "weft::rt::wrap(" + expr(*e.args[1]) + ", " + std::to_string(extent) + ")";
    };
    return ".c[" + at(pos[2 * k], e.args[0]->type.rows()) + "].c[" + at(pos[2 * k + 1], e.args[0]->type.cols()) + "]";
}

std::size_t Emitter::gather_count(const Expr &e) {
    const std::size_t n = e.value->int_components.size();
    return e.args[0]->type.kind() == Type::Kind::Matrix ? n / 2 : n;
}

std::string Emitter::result_component(const Type &t, std::size_t k) {
    if (t.kind() == Type::Kind::Matrix)
        return ".c[" + std::to_string(k / static_cast<std::size_t>(t.cols())) + "].c[" +
               std::to_string(k % static_cast<std::size_t>(t.cols())) + "]";
    return ".c[" + std::to_string(k) + "]";
}

std::string Emitter::gather(const Expr &e) {
    const std::string base = expr(*e.args[0]);
    std::string out = type(e.type) + "(";
    for (std::size_t k = 0; k < gather_count(e); ++k) out += (k ? ", " : "") + base + gather_source(e, k);
    return out + ")";
}

std::string Emitter::lvalue(const Expr &e) {
    switch (e.kind) {
    case K::Local: return local(e.index);
    case K::Param: return param(e.index);
    case K::Field: return lvalue(*e.args[0]) + component(e);
    case K::Index:
        if (e.args[0]->type.kind() == Type::Kind::Array) return array_element(e);
        return lvalue(*e.args[0]) + subscript(e);
    default: throw InternalError("generate_cpp: not an lvalue");
    }
}

bool Emitter::checked_division(const Expr &e) {
    const std::string &f = e.overload->native_name;
    return (f == "weft::div" || f == "weft::floordiv" || f == "weft::mod") && e.args.size() == 2 &&
           e.args[1]->type.is_integer();
}

std::string Emitter::expr(const Expr &e) {
    switch (e.kind) {
    case K::Literal: return constant_value(*e.value);
    case K::String: return c_string(e.name);
    case K::Local: return local(e.index);
    case K::Param: return param(e.index);
    case K::Constant: return constant_function(e.name) + "()";
    case K::Builtin:
        if (codegen_.bounds_checks && checked_division(e))
            return e.overload->native_name + "_checked(" + args(e) + ", " + c_string(f_->name) + ", " +
                   c_string(logical_file_) + ", " + std::to_string(e.location.line) + ", weft_t_.idx)";
        return e.overload->native_namespace + e.overload->native_function + "(" + args(e) + ")";
    case K::Call: return e.name + (replay_ ? "_rep" : "") + "<weft_contig_>(weft_t_" + (e.args.empty() ? "" : ", " + args(e)) + ")";
    case K::Construct: {
        const Type &t = e.type;
        if (t.kind() == Type::Kind::Native || t.kind() == Type::Kind::Struct || t.kind() == Type::Kind::Tuple)
            return type(t) + "{" + args(e) + "}";
        return type(t) + "(" + args(e) + ")";
    }
    case K::Cast: return "static_cast<" + type(e.type) + ">(" + expr(*e.args[0]) + ")";
    case K::Field: return expr(*e.args[0]) + component(e);
    case K::Index:
        if (e.args[0]->type.kind() == Type::Kind::Array) return array_element(e);
        return expr(*e.args[0]) + subscript(e);
    case K::Shape: return "weft::int32(" + expr(*e.args[0]) + ".shape[" + std::to_string(e.index) + "])";
    case K::View: return view(e, expr(*e.args[0]));
    case K::Gather: return gather(e);
    case K::Not: return "!(" + expr(*e.args[0]) + ")";
    case K::Intrinsic: return intrinsic(e);
    case K::Tile:
        if (e.name == "tile_extract" && codegen_.bounds_checks)
            return "weft::tile_extract_checked(" + expr(*e.args[0]) + ", " + c_string(array_name(*e.args[0])) + ", " +
                   c_string(f_->name) + ", " + c_string(logical_file_) + ", " + std::to_string(e.location.line) +
                   ", weft_t_.idx, " + args(e, 1) + ")";
        if (e.name == "tile_extract") return "weft::tile_extract(" + args(e) + ")";
        throw InternalError("generate_cpp: tile operation " + e.name + " outside a tile statement");
    case K::Select:
    case K::And:
    case K::Or:
    case K::Compare: throw InternalError("generate_cpp: a short-circuit expression survived lowering");
    }
    throw InternalError("generate_cpp: unknown expression kind");
}

std::string Emitter::intrinsic(const Expr &e) {
    using I = ir::Intrinsic;
    // Run-time messages name the logical file: an artifact from the cache
    // may have been compiled from a copy of the module at another path.
    const std::string where = c_string(f_->name) + ", " + c_string(logical_file_) + ", " + std::to_string(e.location.line);
    const std::string checked_where = where + ", weft_t_.idx"; // an atomic's bounds failure names the thread
    switch (e.intrinsic) {
    case I::Tid: return "weft::int32(weft_t_.idx)";
    case I::BlockDim: return "weft_t_.block_dim";
    case I::Len: return "weft::len(" + args(e) + ")";
    case I::Select: return "weft::select(" + args(e) + ")";
    case I::Where: return "weft::where(" + args(e) + ")";
    case I::AtomicAdd: return atomic_call("atomic_add", e, checked_where);
    case I::AtomicSub: return atomic_call("atomic_sub", e, checked_where);
    case I::AtomicMin: return atomic_call("atomic_min", e, checked_where);
    case I::AtomicMax: return atomic_call("atomic_max", e, checked_where);
    case I::AtomicAnd: return atomic_call("atomic_and", e, checked_where);
    case I::AtomicOr: return atomic_call("atomic_or", e, checked_where);
    case I::AtomicXor: return atomic_call("atomic_xor", e, checked_where);
    case I::AtomicExch: return atomic_call("atomic_exch", e, checked_where);
    case I::AtomicCas: return atomic_call("atomic_cas", e, checked_where);
    case I::QuatToAxisAngle: return "weft::quat_to_axis_angle_tuple<" + type(e.type) + ">(" + args(e) + ")";
    case I::FixedArray: return "weft::rt::fixed_array(weft_fixed" + std::to_string(fixed_ids_.at(&e)) + "_, " + args(e) + ")";
    case I::Print:
        if (e.args.size() == 1 && e.args[0]->type.is_tile())
            return "weft::print_tile<" + std::to_string(e.args[0]->type.tile_ndim()) + ">(" + args(e) + ")";
        return "weft::print(" + args(e) + ")";
    case I::ExpectEq: return "weft::expect_eq(" + args(e) + ", " + where + ")";
    // Release builds drop the check (the condition's effects, if any, still happen).
    case I::Assert: return codegen_.bounds_checks ? "weft::assert_true(" + args(e) + ", " + where + ")" : "(void)0";
    case I::ExpectNeq: return "weft::expect_neq(" + args(e) + ", " + where + ")";
    case I::ExpectNear:
        return "weft::expect_near(" + args(e) + (e.args.size() == 2 ? ", 1e-6f" : "") + ", " + where + ")";
    case I::Identity:
        return "weft::identity<" + std::to_string(e.type.rows()) + ", " + cpp_type(Type::scalar(e.type.scalar_type())) +
               ">()";
    case I::TransformIdentity: return "weft::transform_identity<" + cpp_type(Type::scalar(e.type.scalar_type())) + ">()";
    case I::QuatIdentity: return "weft::quat_identity<" + cpp_type(Type::scalar(e.type.scalar_type())) + ">()";
    }
    throw InternalError("generate_cpp: unknown intrinsic");
}

} // namespace weft::codegen::detail
