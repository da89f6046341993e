// Emitter's tile adjoints: the reverse of each tile statement, on the
// backward pass's one lane per block (rt/tile_adjoint.h). Tiles are never
// saved: the forward replay recomputes them (a loop's body per reverse
// iteration), so check_tile_gradients refuses every use whose value that
// recomputation would not give back.
#include "emitter.hpp"

namespace weft::codegen::detail {

namespace {

/// A tile of float scalars: one with an adjoint (tiles of vectors and matrices have none yet).
bool float_tile(const Type &t) { return t.is_tile() && t.element().is_float(); }

/// tile_reduce's operation when its adjoint is a known one's: "add" (tile_sum's),
/// "min" / "max" (tile_min's / tile_max's); "" for any other operation.
std::string reduce_kind(const Expr &v) {
    const Expr &f = *v.args[0];
    if (f.kind != K::Builtin || !f.overload || f.overload->external) return "";
    const std::string &n = f.overload->name;
    return n == "add" || n == "min" || n == "max" ? n : "";
}

/// A statement's place: the body lists from the function's down to its own, and its index in each.
using Path = std::vector<std::pair<const std::vector<ir::StmtPtr> *, std::size_t>>;

/// Whether a definition at `def` is evaluated before `use`, in the same iteration of every loop
/// around `use` that is not also around `def`: its list is one of use's, at an earlier index.
bool defined_before(const Path &def, const Path &use) {
    if (def.size() > use.size()) return false;
    for (std::size_t i = 0; i + 1 < def.size(); ++i)
        if (def[i] != use[i]) return false;
    const std::size_t last = def.size() - 1;
    return def[last].first == use[last].first && def[last].second < use[last].second;
}

/// The tile operands (argument indices) whose values a tile expression's adjoint reads.
std::vector<std::size_t> value_operands(const Expr &v, const std::function<bool(const Expr &)> &has_adjoint) {
    std::vector<std::size_t> out;
    const std::string &op = v.name;
    if (v.kind != K::Tile) return out;
    if (op == "tile_map") {
        // Sums and differences need no values; every other operation may.
        const Expr &f = *v.args[0];
        const bool linear = f.kind == K::Builtin && f.overload &&
                            (f.overload->name == "add" || f.overload->name == "sub" || f.overload->name == "neg" ||
                             f.overload->name == "pos");
        if (!linear)
            for (std::size_t i = 1; i < v.args.size(); ++i)
                if (v.args[i]->type.is_tile()) out.push_back(i);
    } else if (op == "tile_matmul" || op == "tile_matmul_acc" || op == "tile_dot") {
        out = {0, 1};
    } else if (op == "tile_min" || op == "tile_max" || (op == "tile_reduce" && reduce_kind(v) != "add")) {
        out = {op == "tile_reduce" ? std::size_t(1) : std::size_t(0)};
    } else if (op == "tile_axpy" && has_adjoint(*v.args[0])) {
        out = {1};
    }
    return out;
}

} // namespace

void Emitter::check_tile_gradients(const ir::Function &f) {
    const auto at = [&](const kernel::SourceLocation &l) {
        return py_file_ + ":" + std::to_string(l.line) + ":" + std::to_string(l.column) + ": kernel '" + f.name + "': ";
    };
    const auto has_adj = [&](const Expr &e) { return !adj_ref(e).empty() && e.type.is_float(); };
    // Each tile local's definitions (assignments and operations that write it in place).
    std::map<int, std::vector<Path>> defs;
    std::map<int, int> writes;
    std::function<void(const std::vector<ir::StmtPtr> &, Path &)> collect = [&](const std::vector<ir::StmtPtr> &body, Path &path) {
        for (std::size_t i = 0; i < body.size(); ++i) {
            const Stmt &s = *body[i];
            path.emplace_back(&body, i);
            if ((s.kind == S::Declare || s.kind == S::Assign) && f.locals[static_cast<std::size_t>(s.index)].type.is_tile()) {
                defs[s.index].push_back(path);
                ++writes[s.index];
            }
            if (s.kind == S::Eval && s.value->kind == K::Tile) {
                const std::string &op = s.value->name;
                const int in_place = op == "tile_matmul_acc" || op == "tile_axpy" ? 2 : -1;
                if (in_place >= 0 && s.value->args[static_cast<std::size_t>(in_place)]->kind == K::Local)
                    ++writes[s.value->args[static_cast<std::size_t>(in_place)]->index];
            }
            collect(s.body, path);
            collect(s.orelse, path);
            path.pop_back();
        }
    };
    Path path;
    collect(f.body, path);
    for (const ir::Variable &v : f.locals)
        if (v.type.is_tile() && !v.type.element().is_scalar() && Type::scalar(v.type.scalar_type()).is_float())
            throw UserError(at(v.location) + "tile '" + v.name + "' holds " + v.type.element().name() +
                            ", and tiles of vectors and matrices have no gradient yet: declare the kernel "
                            "enable_backward=False");

    int loops = 0; // loops around the statement being checked
    std::function<void(const std::vector<ir::StmtPtr> &)> check = [&](const std::vector<ir::StmtPtr> &body) {
        for (std::size_t i = 0; i < body.size(); ++i) {
            const Stmt &s = *body[i];
            path.emplace_back(&body, i);
            const Expr *v = s.value.get();
            bool tile_statement = v && (v->kind == K::Tile || v->type.is_tile());
            if (v && v->kind == K::Call) {
                bool tiles = v->type.is_tile();
                for (const ir::ExprPtr &a : v->args) tiles = tiles || a->type.is_tile();
                if (tiles)
                    throw UserError(at(s.location) + "calls '" + m_.functions[static_cast<std::size_t>(v->index)].name +
                                    "' with tiles, and tile functions have no "
                                    "gradient yet: declare the kernel enable_backward=False, or keep the tile operations "
                                    "in the kernel");
            }
            if (tile_statement && v->kind == K::Tile) {
                const std::string &op = v->name;
                if (op == "tile_reduce" && float_tile(v->args[1]->type) && reduce_kind(*v).empty())
                    throw UserError(at(s.location) + "tile_reduce has a gradient with wp.add, wp.min and wp.max only "
                                    "(those of tile_sum, tile_min and tile_max); this operation has none yet");
                if (op == "tile_atomic_add" && s.kind != S::Eval && float_tile(v->type))
                    throw UserError(at(s.location) + "the values tile_atomic_add returns have no gradient: declare the "
                                    "kernel enable_backward=False, or leave the result unused");
                if (op == "tile_matmul_acc" && has_adj(*v->args[4]))
                    throw UserError(at(s.location) + "tile_matmul's beta has no gradient (it would need out's value "
                                    "before the product, which tiles do not keep): pass beta as a constant");
                for (std::size_t k : value_operands(*v, has_adj)) {
                    const Expr &x = *v->args[k];
                    if (x.kind != K::Local || !float_tile(x.type)) continue;
                    const std::string name = f.locals[static_cast<std::size_t>(x.index)].name;
                    const auto d = defs.find(x.index);
                    const bool single = writes[x.index] == 1 && d != defs.end() && d->second.size() == 1;
                    if (!single || !defined_before(d->second.front(), path))
                        throw UserError(at(s.location) + "the gradient of " + op + " needs tile '" + name +
                                        "' as it is here, and the kernel " +
                                        (single ? "carries it from one loop iteration to the next"
                                                : "changes it later (or in place)") +
                                        "; tiles are recomputed for the backward pass, never saved: give each value its "
                                        "own name, or declare the kernel enable_backward=False");
                    if (loops > 1 && d->second.front().size() > 1)
                        throw UserError(at(s.location) + "the gradient of " + op + " needs tile '" + name +
                                        "' from inside nested loops, which the backward pass does not replay per "
                                        "iteration: declare the kernel enable_backward=False");
                }
            }
            if (s.kind == S::While || s.kind == S::For) {
                bool tiles = false;
                ir::for_each_stmt(s.body, [&](const Stmt &b) {
                    tiles = tiles || (b.value && (b.value->kind == K::Tile || b.value->type.is_tile()));
                });
                if (tiles && (s.kind == S::While || (loops == 0 && !checkpointed(s))))
                    throw UserError(at(s.location) + "tile operations inside this " +
                                    (s.kind == S::While ? "while loop" : "loop") +
                                    " are not replayed per iteration by the backward pass: use a for loop over a "
                                    "range, or declare the kernel enable_backward=False");
                ++loops;
                check(s.body);
                --loops;
            } else {
                check(s.body);
                check(s.orelse);
            }
            path.pop_back();
        }
    };
    path.clear();
    check(f.body);
}

void Emitter::tile_reverse(std::ostringstream &o, const Stmt &s, int depth) {
    const std::string in = indent(depth);
    const Expr &v = *s.value;
    if (s.kind == S::Declare || s.kind == S::Assign) {
        const Type &t = f_->locals[static_cast<std::size_t>(s.index)].type;
        if (!float_tile(t)) return;
        // The result's adjoint, taken out of the variable (its value before
        // this statement is another value, whose adjoint starts at zero).
        o << line_marker(s.location) << in << "{\n"
          << in << "    " << tile_declaration(t) << " weft_g_;\n"
          << in << "    weft::tile_copy(weft_g_, " << adj_local(s.index) << ");\n"
          << in << "    weft::tile_fill(" << adj_local(s.index) << ", " << cpp_type(t.element()) << "(0));\n";
        tile_value_adjoint(o, v, "weft_g_", depth + 1);
        o << in << "}\n";
        return;
    }
    // Effects: stores and in-place operations.
    const std::string &op = v.name;
    std::vector<std::string> a;
    for (const ir::ExprPtr &x : v.args) a.push_back(expr(*x));
    const auto offsets = [&](std::size_t from) {
        std::string out;
        for (std::size_t i = from; i < a.size(); ++i) out += ", " + a[i];
        return out;
    };
    o << line_marker(s.location);
    if (op == "tile_store" || op == "tile_atomic_add") {
        // The stored tile's adjoint: the gradient array's elements it went to.
        const std::string grad = adj_mirror(*v.args[0]), adj = adj_ref(*v.args[1]);
        if (grad != "{}" && !adj.empty() && float_tile(v.args[1]->type))
            o << in << "weft::tile_adj_store(" << adj << ", " << grad << offsets(2) << ");\n";
    } else if (op == "tile_matmul_acc") {
        // out = alpha a b + beta out: a and b get alpha g b^T and alpha a^T g; out's old value beta g.
        const std::string g = adj_ref(*v.args[2]);
        if (g.empty()) return;
        o << in << "weft::tile_adj_matmul(" << adj_ref(*v.args[0]) << ", " << adj_ref(*v.args[1]) << ", " << a[0] << ", "
          << a[1] << ", " << g << ", " << a[3] << ");\n";
        if (const std::string alpha = adj_ref(*v.args[3]); !alpha.empty())
            o << in << "weft::adj_acc(" << alpha << ", weft::tile_adj_matmul_alpha(" << a[0] << ", " << a[1] << ", " << g << "));\n";
        o << in << "weft::tile_adj_scale(" << g << ", " << a[4] << ");\n";
    } else if (op == "tile_axpy") {
        // dest += alpha src: src gets alpha times dest's adjoint, alpha the sum of that adjoint times src.
        const std::string g = adj_ref(*v.args[2]), src = adj_ref(*v.args[1]);
        if (g.empty()) return;
        if (!src.empty())
            o << in << "for (int weft_e_ = 0; weft_e_ < " << v.args[1]->type.tile_count() << "; ++weft_e_) " << src
              << ".data[weft_e_] += " << a[0] << " * " << g << ".data[weft_e_];\n";
        if (const std::string alpha = adj_ref(*v.args[0]); !alpha.empty())
            o << in << "weft::adj_acc(" << alpha << ", weft::tile_adj_inner(" << g << ", " << a[1] << "));\n";
    }
}

void Emitter::tile_value_adjoint(std::ostringstream &o, const Expr &v, const std::string &g, int depth) {
    const std::string in = indent(depth);
    if (v.kind == K::Local || v.kind == K::Param) { // a copy
        if (const std::string adj = adj_ref(v); !adj.empty()) o << in << "weft::tile_adj_add(" << adj << ", " << g << ");\n";
        return;
    }
    if (v.kind != K::Tile) throw InternalError("generate_cpp: the adjoint of a tile from a " + v.type.name() + " expression");
    const std::string &op = v.name;
    const auto operand_adj = [&](std::size_t i) { return float_tile(v.args[i]->type) ? adj_ref(*v.args[i]) : std::string(); };
    std::vector<std::string> a;
    for (std::size_t i = 0; i < v.args.size(); ++i) a.push_back(ir::tile_callback(v) && i == 0 ? "" : expr(*v.args[i]));
    const auto offsets = [&](std::size_t from) {
        std::string out;
        for (std::size_t i = from; i < a.size(); ++i) out += ", " + a[i];
        return out;
    };
    if (op == "tile_zeros" || op == "tile_ones" || op == "tile_arange" || op == "tile_argmin" || op == "tile_argmax") return;
    if (op == "tile_full") {
        if (const std::string adj = adj_ref(*v.args[0]); !adj.empty() && v.args[0]->type.is_float())
            o << in << "weft::adj_acc(" << adj << ", weft::tile_adj_total(" << g << "));\n";
        return;
    }
    if (op == "tile_load") {
        // Plain adds into a gradient the CPU launch keeps a private copy of per range of blocks
        // (launch_cpu); atomic ones otherwise (blocks load overlapping parts of an array).
        const bool plain = v.args[0]->kind == K::Param &&
                           std::find(private_gradients_.begin(), private_gradients_.end(), v.args[0]->index) !=
                               private_gradients_.end();
        if (const std::string grad = adj_mirror(*v.args[0]); grad != "{}")
            o << in << "weft::tile_adj_load<" << (plain ? "false" : "true") << ">(" << grad << ", " << g << offsets(1) << ");\n";
        return;
    }
    if (op == "tile_map") {
        // Per element: the scalar operation's adjoint, over the operands' elements.
        std::vector<std::string> values, adjs;
        std::string declare, collect;
        const std::size_t n = static_cast<std::size_t>(v.type.tile_count());
        for (std::size_t i = 1; i < v.args.size(); ++i) {
            const Expr &x = *v.args[i];
            if (x.type.is_tile()) {
                values.push_back(a[i] + ".data[weft_e_]");
                const std::string adj = operand_adj(i);
                if (adj.empty()) {
                    adjs.push_back("");
                    continue;
                }
                const std::string mine = "weft_ax" + std::to_string(i - 1) + "_";
                declare += in + "    " + cpp_type(x.type.element()) + " " + mine + "{};\n";
                collect += in + "    " + adj + ".data[weft_e_] += " + mine + ";\n";
                adjs.push_back(mine);
            } else {
                values.push_back(expr(x));
                adjs.push_back(adj_ref(x));
            }
        }
        std::vector<std::string> saved_values = std::move(placeholders_), saved_adjs = std::move(adj_placeholders_);
        placeholders_ = values;
        adj_placeholders_ = adjs;
        o << in << "for (int weft_e_ = 0; weft_e_ < " << n << "; ++weft_e_) {\n" << declare;
        ad_value(o, *v.args[0], g + ".data[weft_e_]", depth + 1);
        o << collect << in << "}\n";
        placeholders_ = std::move(saved_values);
        adj_placeholders_ = std::move(saved_adjs);
        return;
    }
    const std::string adj0 = v.args.empty() ? std::string() : operand_adj(0);
    if (op == "tile_astype" || op == "tile_reshape") {
        if (!adj0.empty()) o << in << "weft::tile_adj_add(" << adj0 << ", " << g << ");\n";
    } else if (op == "tile_transpose") {
        if (!adj0.empty()) o << in << "weft::tile_adj_transpose(" << adj0 << ", " << g << ");\n";
    } else if (op == "tile_broadcast") {
        if (!adj0.empty())
            o << in << "weft::tile_adj_broadcast<" << v.args[0]->type.tile_ndim() << ", " << v.type.tile_ndim() << ">(" << adj0
              << ", " << g << ");\n";
    } else if (op == "tile_sum") {
        if (adj0.empty()) return;
        if (v.index >= 0 && v.args[0]->type.tile_ndim() == 2)
            o << in << "weft::tile_adj_sum_axis<" << v.index << ">(" << adj0 << ", " << g << ");\n";
        else
            o << in << "weft::tile_adj_sum(" << adj0 << ", " << g << ");\n";
    } else if (op == "tile_reduce") {
        // wp.add, wp.min, wp.max (check_tile_gradients refuses the others): tile_sum's, tile_min's, tile_max's adjoint.
        const std::string kind = reduce_kind(v), adj = operand_adj(1);
        if (adj.empty()) return;
        if (kind == "add") o << in << "weft::tile_adj_sum(" << adj << ", " << g << ");\n";
        else
            o << in << "weft::tile_adj_extreme<" << (kind == "min" ? "true" : "false") << ">(" << adj << ", " << a[1] << ", "
              << g << ");\n";
    } else if (op == "tile_min" || op == "tile_max") {
        if (!adj0.empty())
            o << in << "weft::tile_adj_extreme<" << (op == "tile_min" ? "true" : "false") << ">(" << adj0 << ", " << a[0] << ", "
              << g << ");\n";
    } else if (op == "tile_scan_inclusive" || op == "tile_scan_exclusive") {
        if (!adj0.empty())
            o << in << "weft::tile_adj_scan<" << (op == "tile_scan_inclusive" ? "true" : "false") << ">(" << adj0 << ", " << g
              << ");\n";
    } else if (op == "tile_matmul") {
        o << in << "weft::tile_adj_matmul(" << adj0 << ", " << operand_adj(1) << ", " << a[0] << ", " << a[1] << ", " << g << ", "
          << a[2] << ");\n";
        if (const std::string alpha = adj_ref(*v.args[2]); !alpha.empty())
            o << in << "weft::adj_acc(" << alpha << ", weft::tile_adj_matmul_alpha(" << a[0] << ", " << a[1] << ", " << g << "));\n";
    } else if (op == "tile_dot") {
        o << in << "weft::tile_adj_dot(" << adj0 << ", " << operand_adj(1) << ", " << a[0] << ", " << a[1] << ", " << g << ");\n";
    } else {
        throw InternalError("generate_cpp: no adjoint for tile operation " + op);
    }
}

} // namespace weft::codegen::detail
