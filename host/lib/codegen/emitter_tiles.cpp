// Emitter's tile operations: each lowered tile statement as one weft::tile_*
// call (rt/tile.h) that writes its destination tile whole.
#include "emitter.hpp"

namespace weft::codegen::detail {

namespace {
/// Operations whose every destination element reads only the same element of
/// each operand: they may write a tile they read.
bool elementwise(const std::string &op) { return op == "tile_map" || op == "tile_astype"; }
} // namespace

std::string Emitter::tile_declaration(const Type &t) const {
    // CUDA: the block's threads share each tile; the CPU, and a backward pass
    // (one lane per block): the thread's own locals.
    return std::string(backend_ == Backend::Cuda && !codegen_.adjoint ? "__shared__ " : "") + cpp_type(t);
}

std::string Emitter::tile_locals(const ir::Function &f) const {
    // CUDA forward code: the function's tiles in one shared arena, a tile
    // whose live range overlaps no other's sharing its bytes (statically
    // allocated shared memory is at most 48 KiB a block, and a layer-by-layer
    // MLP names a dozen tiles). A live range: from the tile's first statement
    // to its last, in statement order; one used inside a loop lives through
    // the whole loop.
    struct Range {
        int local;
        int first = -1, last = -1;
        std::uint64_t bytes = 0, offset = 0;
    };
    std::vector<Range> ranges;
    std::map<int, std::size_t> of;
    for (std::size_t i = 0; i < f.locals.size(); ++i)
        if (f.locals[i].type.is_tile()) {
            of[static_cast<int>(i)] = ranges.size();
            ranges.push_back({static_cast<int>(i), -1, -1, (f.locals[i].type.size() + 15) / 16 * 16, 0});
        }
    if (ranges.empty()) return "";
    int counter = 0;
    std::vector<int> open_loops; // the statement numbers of the loops around the statement being walked
    const auto touch = [&](int local, int at) {
        const auto it = of.find(local);
        if (it == of.end()) return;
        Range &r = ranges[it->second];
        r.first = r.first < 0 ? at : std::min(r.first, at);
        r.last = std::max(r.last, at);
    };
    std::map<int, std::set<int>> used_in_loop; // loop start -> tiles it touches
    std::vector<std::pair<int, int>> loop_spans;
    std::function<void(const std::vector<ir::StmtPtr> &)> walk = [&](const std::vector<ir::StmtPtr> &body) {
        for (const ir::StmtPtr &s : body) {
            const int at = counter++;
            std::set<int> here;
            if (s->kind == S::Declare || s->kind == S::Assign) here.insert(s->index);
            for (int t : s->targets) here.insert(t);
            const auto exprs = [&](const Expr &e) {
                ir::for_each_expr(e, [&](const Expr &x) {
                    if (x.kind == K::Local && x.index >= 0) here.insert(x.index);
                });
            };
            for (const Expr *e : {s->target.get(), s->value.get(), s->cond.get()})
                if (e) exprs(*e);
            for (const ir::ExprPtr &a : s->args) exprs(*a);
            for (int t : here) {
                touch(t, at);
                for (int start : open_loops) used_in_loop[start].insert(t);
            }
            const bool loop = s->kind == S::For || s->kind == S::While;
            if (loop) open_loops.push_back(at);
            walk(s->body);
            walk(s->orelse);
            if (loop) {
                open_loops.pop_back();
                loop_spans.emplace_back(at, counter - 1);
            }
        }
    };
    walk(f.body);
    for (const auto &[start, end] : loop_spans)
        for (int t : used_in_loop[start]) touch(t, start), touch(t, end);
    // First fit, by first statement: the lowest offset clear of every placed range it overlaps.
    std::vector<std::size_t> order(ranges.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ranges[a].first < ranges[b].first; });
    std::vector<std::size_t> placed;
    std::uint64_t total = 0;
    for (std::size_t i : order) {
        Range &r = ranges[i];
        std::uint64_t offset = 0;
        for (bool moved = true; moved;) {
            moved = false;
            for (std::size_t j : placed) {
                const Range &p = ranges[j];
                const bool live_together = r.first <= p.last && p.first <= r.last;
                const bool bytes_overlap = offset < p.offset + p.bytes && p.offset < offset + r.bytes;
                if (live_together && bytes_overlap) {
                    offset = p.offset + p.bytes;
                    moved = true;
                }
            }
        }
        r.offset = offset;
        total = std::max(total, offset + r.bytes);
        placed.push_back(i);
    }
    std::string out = "    __shared__ alignas(16) unsigned char weft_tiles_[" + std::to_string(total) + "];\n";
    for (const Range &r : ranges) {
        const std::string t = cpp_type(f.locals[static_cast<std::size_t>(r.local)].type);
        out += "    " + t + " &" + local(r.local) + " = *reinterpret_cast<" + t + " *>(weft_tiles_ + " +
               std::to_string(r.offset) + ");\n";
    }
    return out;
}

std::string Emitter::tile_callback(const Expr &e, const std::vector<std::string> &operands) {
    // The per-element call with each placeholder replaced: tile operands by
    // `operands` (their element), other operands (broadcast values) by their value.
    std::vector<std::string> saved = std::move(placeholders_);
    placeholders_.clear();
    for (std::size_t k = 1; k < e.args.size(); ++k)
        placeholders_.push_back(e.args[k]->type.is_tile() || e.name == "tile_reduce" ? operands.at(k - 1) : expr(*e.args[k]));
    if (e.name == "tile_reduce") placeholders_ = operands;
    const std::string body = expr(*e.args[0]);
    placeholders_ = std::move(saved);
    return body;
}

bool Emitter::has_tiles(const ir::Function &f) {
    if (f.uses_tiles || (f.return_type && f.return_type->is_tile())) return true;
    for (const ir::Variable &v : f.params)
        if (v.type.is_tile()) return true;
    for (const ir::Variable &v : f.locals)
        if (v.type.is_tile()) return true;
    return false;
}

void Emitter::tile_assignment(std::ostringstream &o, const std::string &dst, const Expr &value, int depth) {
    const std::string in = indent(depth);
    if (value.kind == K::Tile) return tile_statement(o, dst, value, depth);
    if (value.kind == K::Local || value.kind == K::Param) {
        o << in << "weft::tile_copy(" << dst << ", " << expr(value) << ");\n";
        return;
    }
    if (value.kind == K::Call) { // a @wp.func's tile result: written into dst (Emitter::signature)
        o << in << value.name << (replay_ ? "_rep" : "") << "<weft_contig_>(weft_t_" << (value.args.empty() ? "" : ", " + args(value))
          << ", " << dst << ");\n";
        return;
    }
    throw InternalError("generate_cpp: a tile assigned from a " + value.type.name() + " expression");
}

void Emitter::tile_statement(std::ostringstream &o, const std::string &dst, const Expr &e, int depth) {
    const std::string in = indent(depth);
    const std::string &op = e.name;
    std::vector<std::string> a;
    for (const ir::ExprPtr &x : e.args) a.push_back(x->type.is_tile() || !ir::tile_callback(e) ? expr(*x) : "");
    const auto rest = [&](std::size_t from) {
        std::string out;
        for (std::size_t i = from; i < a.size(); ++i) out += ", " + a[i];
        return out;
    };
    // Effects with no destination.
    if (op == "tile_store") {
        o << in << "weft::tile_store(" << a[0] << ", " << a[1] << rest(2) << ");\n";
        return;
    }
    if (op == "tile_matmul_acc") {
        o << in << "weft::tile_gemm<true>(" << a[2] << ", " << a[0] << ", " << a[1] << ", " << a[3] << ", " << a[4] << ");\n";
        return;
    }
    if (op == "tile_axpy") {
        o << in << "weft::tile_axpy(" << a[0] << ", " << a[1] << ", " << a[2] << ");\n";
        return;
    }
    if (op == "tile_atomic_add" && dst.empty()) {
        o << in << "weft::tile_atomic_add(static_cast<" << cpp_type(e.type) << " *>(nullptr), " << a[0] << ", " << a[1]
          << rest(2) << ");\n";
        return;
    }
    if (dst.empty()) return; // a tile computed for nothing: no effect
    // An operation that reads other elements than the one it writes goes
    // through a scratch tile when it writes a tile it reads (t = tile_transpose(t)).
    bool aliased = false;
    if (!elementwise(op))
        for (std::size_t i = 0; i < e.args.size(); ++i)
            aliased = aliased || (e.args[i]->type.is_tile() && a[i] == dst);
    std::string target = dst;
    std::string close;
    if (aliased) {
        o << in << "{\n" << in << "    " << tile_declaration(e.type) << " weft_alias_;\n";
        target = "weft_alias_";
        close = in + "    weft::tile_copy(" + dst + ", weft_alias_);\n" + in + "}\n";
    }
    const std::string pad = aliased ? in + "    " : in;
    // Vector and matrix elements: T() is zero, T(s) fills with the scalar s.
    const std::string element = cpp_type(e.type.element());
    const std::string one = cpp_type(Type::scalar(e.type.scalar_type())) + "(1)";
    o << pad;
    if (op == "tile_zeros") o << "weft::tile_fill(" << target << ", " << element << "());\n";
    else if (op == "tile_ones") o << "weft::tile_fill(" << target << ", " << element << "(" << one << "));\n";
    else if (op == "tile_full") o << "weft::tile_fill(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_arange") o << "weft::tile_arange(" << target << ", " << a[0] << ", " << a[1] << ");\n";
    else if (op == "tile_load") o << "weft::tile_load(" << target << ", " << a[0] << rest(1) << ");\n";
    else if (op == "tile_atomic_add") o << "weft::tile_atomic_add(&" << target << ", " << a[0] << ", " << a[1] << rest(2) << ");\n";
    else if (op == "tile_map") {
        // The loop in place, not a callback: NVRTC compiles no lambdas in
        // device code, and the CPU's loop vectorizes the same.
        std::vector<std::string> elements;
        for (std::size_t i = 1; i < e.args.size(); ++i) elements.push_back(a[i] + ".data[weft_e_]");
        o << "WEFT_TILE_SYNC();\n"
          << pad << "WEFT_TILE_FOR(weft_e_, " << e.type.tile_count() << ") " << target
          << ".data[weft_e_] = " << tile_callback(e, elements) << ";\n"
          << pad << "WEFT_TILE_SYNC();\n";
    } else if (op == "tile_reduce") {
        // Warp's CPU order: the first element, then each next folded in.
        o << "WEFT_TILE_SYNC();\n"
          << pad << "WEFT_TILE_ONE {\n"
          << pad << "    " << element << " weft_acc_ = " << a[1] << ".data[0];\n"
          << pad << "    for (int weft_e_ = 1; weft_e_ < " << e.args[1]->type.tile_count() << "; ++weft_e_)\n"
          << pad << "        weft_acc_ = " << tile_callback(e, {"weft_acc_", a[1] + ".data[weft_e_]"}) << ";\n"
          << pad << "    " << target << ".data[0] = weft_acc_;\n"
          << pad << "}\n"
          << pad << "WEFT_TILE_SYNC();\n";
    }
    else if (op == "tile_astype") o << "weft::tile_astype(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_transpose") o << "weft::tile_transpose(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_reshape") o << "weft::tile_copy(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_broadcast")
        o << "weft::tile_broadcast<" << e.args[0]->type.tile_ndim() << ", " << e.type.tile_ndim() << ">(" << target << ", "
          << a[0] << ");\n";
    else if (op == "tile_sum" && e.index >= 0 && e.args[0]->type.tile_ndim() == 2)
        o << "weft::tile_sum_axis<" << e.index << ">(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_sum" || op == "tile_min" || op == "tile_max")
        o << "weft::" << op << "(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_argmin" || op == "tile_argmax")
        o << "weft::tile_arg_extreme<" << (op == "tile_argmin" ? "true" : "false") << ">(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_scan_inclusive" || op == "tile_scan_exclusive")
        o << "weft::tile_scan<" << (op == "tile_scan_inclusive" ? "true" : "false") << ">(" << target << ", " << a[0] << ");\n";
    else if (op == "tile_matmul")
        o << "weft::tile_gemm<false>(" << target << ", " << a[0] << ", " << a[1] << ", " << a[2] << ", " << element << "(0));\n";
    else if (op == "tile_dot") o << "weft::tile_dot(" << target << ", " << a[0] << ", " << a[1] << ");\n";
    else throw InternalError("generate_cpp: no code for tile operation " + op);
    o << close;
}

} // namespace weft::codegen::detail
