// Reverse mode over the lowered IR. Each function's adjoint replays the
// forward statements (without side effects: the forward launch already wrote
// arrays and applied atomics), then walks them backwards accumulating
// adjoints into "adj_" twins of every local and parameter.
//
// Values the reverse walk needs but the replay overwrites are kept on a
// per-thread tape (weft::rt::adj_tape): before a statement overwrites a
// variable assigned more than once (or inside a loop), its old value is
// pushed, and the reverse walk pops it back. Branch decisions and loop trip
// counts are recorded the same way, after the branch or loop, so the reverse
// walk pops them first. Unlike Warp's replay of dynamic loops, this is exact
// for loop-carried values. break, continue and return become an exit flag
// and guarded blocks, so every path is a structured one.
#include "emitter.hpp"

namespace weft::codegen::detail {

struct Emitter::AdNode {
    enum class Kind { Plain, If, Guard, For, While, Exit } kind = Kind::Plain;
    const Stmt *s = nullptr;
    std::vector<AdNode> body, orelse;
    bool in_loop = false;
    int id = 0;
};

/// A `for` loop whose body the backward pass replays per iteration instead of
/// saving every value each iteration overwrites: the forward pass saves only
/// the locals an iteration starts from (`state`: the loop variable, values
/// carried from the previous iteration, values used after the loop); each
/// reverse iteration restores them, replays the body (saving, within the
/// iteration, only what the body overwrites twice or carries) and walks it
/// backwards. An n-body's loop saved 76 bytes per iteration; now nothing.
struct Emitter::Checkpoint {
    std::vector<int> state;
    std::set<int> iteration_saved;
    /// The loop variable is computed from the reverse counter (constant start
    /// and step: range(64), range(n)), not saved per iteration.
    bool counted = false;
};

struct Emitter::AdState {
    std::vector<bool> saved_locals;
    std::vector<bool> saved_params;
    std::ostringstream decls; // function-scope flags and counters
    int next_id = 0;
    int dummies = 0;
    bool uses_tape = false;
    /// Kernel array parameters every access of which is indexed by the thread's
    /// own tid(): each thread owns its elements, so their gradients need no atomics.
    std::set<int> owned_params;
    /// Locals whose value depends on a differentiable input (depends_on_input).
    std::vector<bool> input_locals;
    /// Inside a checkpointed loop (Checkpoint): the first pass saves nothing;
    /// each reverse iteration's replay saves `iteration_saved`.
    enum class Saving { Function, Nothing, Iteration } saving = Saving::Function;
    std::set<int> iteration_saved;
    /// Whether the plain statement being emitted is inside a loop.
    bool plain_in_loop = false;
    /// Values saved outside loops, each in a variable of its own (statement,
    /// local): runs once per thread, so no tape. On the tape, a 400-statement
    /// kernel's backward pass took 134x its forward's compile (the optimizer
    /// follows every tape write through memory); in variables, SSA values.
    std::map<std::pair<const Stmt *, int>, std::string> saved_vars;
    /// Emitter::checkpoint's answer per loop (asked by the forward and the reverse walk).
    std::map<const Stmt *, std::optional<Checkpoint>> checkpoints;
};


namespace {

/// Types whose values carry a gradient.
bool active(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar: return t.is_float();
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return Type::scalar(t.scalar_type()).is_float();
    case Type::Kind::Struct:
    case Type::Kind::Tuple: return true;
    case Type::Kind::Native: return t.is_differentiable_native();
    case Type::Kind::Tile: return t.element().is_float(); // tiles of vectors and matrices: none yet (check_tile_gradients)
    default: return false;
    }
}

/// A struct's or tuple's member the adjoint helpers add: natives only when differentiable.
bool summed_member(const Type &t) { return t.kind() != Type::Kind::Native || t.is_differentiable_native(); }

/// Types that get an adj_ twin: active ones and arrays (whose twin is the gradient array).
bool has_adjoint(const Type &t) {
    return active(t) || t.kind() == Type::Kind::Array || (t.kind() == Type::Kind::Scalar);
}

void count_assignments(const std::vector<ir::StmtPtr> &body, bool in_loop, std::vector<int> &count,
                       std::vector<bool> &in_loops, std::vector<bool> &params_written) {
    auto note = [&](int local) {
        ++count[static_cast<std::size_t>(local)];
        if (in_loop) in_loops[static_cast<std::size_t>(local)] = true;
    };
    for (const ir::StmtPtr &s : body) {
        switch (s->kind) {
        case S::Declare:
        case S::Assign: note(s->index); break;
        case S::Unpack:
            for (int t : s->targets) note(t);
            break;
        case S::Store: {
            const Expr *root = s->target.get();
            while (root->kind == K::Field || root->kind == K::Index) {
                if (root->kind == K::Index && root->args[0]->type.kind() == Type::Kind::Array) {
                    root = nullptr;
                    break;
                }
                root = root->args[0].get();
            }
            if (!root) break;
            if (root->kind == K::Local) note(root->index);
            if (root->kind == K::Param) params_written[static_cast<std::size_t>(root->index)] = true;
            break;
        }
        case S::If:
            count_assignments(s->body, in_loop, count, in_loops, params_written);
            count_assignments(s->orelse, in_loop, count, in_loops, params_written);
            break;
        case S::For:
            // The loop variable is assigned on every iteration, inside the loop.
            ++count[static_cast<std::size_t>(s->index)];
            in_loops[static_cast<std::size_t>(s->index)] = true;
            count_assignments(s->body, true, count, in_loops, params_written);
            break;
        case S::While: count_assignments(s->body, true, count, in_loops, params_written); break;
        default: break;
        }
    }
}

bool contains_return(const std::vector<Emitter::AdNode> &nodes);

/// The array parameters of a kernel whose every use is an element access (or
/// atomic, len, shape) indexed exactly by the thread's tid() values, assigned once.
class OwnedArrays {
public:
    OwnedArrays(const ir::Function &k, const std::vector<int> &assignments) : k_(k), count_(assignments) {}

    std::set<int> run() {
        find_tid(k_.body);
        for (std::size_t i = 0; i < k_.params.size(); ++i)
            // An indexed array's positions may select one element twice.
            if (k_.params[i].type.kind() == Type::Kind::Array && !k_.params[i].type.is_indexed_array())
                candidates_.insert(static_cast<int>(i));
        if (tid_.empty()) return {};
        visit(k_.body);
        return candidates_;
    }

private:
    const ir::Function &k_;
    const std::vector<int> &count_;
    std::vector<int> tid_; // the locals holding tid(), in order
    std::set<int> candidates_;

    bool once(int local) const { return count_[static_cast<std::size_t>(local)] == 1; }

    void find_tid(const std::vector<ir::StmtPtr> &body) {
        for (const ir::StmtPtr &s : body) {
            const bool tid = s->value && s->value->kind == K::Intrinsic && s->value->intrinsic == ir::Intrinsic::Tid;
            if (tid && (s->kind == S::Declare || s->kind == S::Assign) && once(s->index) && tid_.empty()) tid_ = {s->index};
            if (tid && s->kind == S::Unpack && tid_.empty()) {
                bool ok = true;
                for (int t : s->targets) ok = ok && once(t);
                if (ok) tid_ = s->targets;
            }
        }
    }

    bool tid_indexed(const Expr &e, std::size_t from, std::size_t to) const {
        if (to - from != tid_.size()) return false;
        for (std::size_t i = from; i < to; ++i)
            if (e.args[i]->kind != K::Local || e.args[i]->index != tid_[i - from]) return false;
        return true;
    }

    void expr(const Expr &e) {
        const bool array_param = !e.args.empty() && e.args[0]->kind == K::Param &&
                                 e.args[0]->type.kind() == Type::Kind::Array;
        if (array_param && e.kind == K::Index) {
            if (!tid_indexed(e, 1, e.args.size())) candidates_.erase(e.args[0]->index);
            for (std::size_t i = 1; i < e.args.size(); ++i) expr(*e.args[i]);
            return;
        }
        if (array_param && e.kind == K::Intrinsic && ir::is_atomic(e.intrinsic)) {
            if (!tid_indexed(e, 1, ir::atomic_indices_end(e))) candidates_.erase(e.args[0]->index);
            for (std::size_t i = 1; i < e.args.size(); ++i) expr(*e.args[i]);
            return;
        }
        if (array_param && (e.kind == K::Shape || (e.kind == K::Intrinsic && e.intrinsic == ir::Intrinsic::Len))) return;
        // Tiles loaded from or stored to the array: their adjoints add to its
        // gradient element by element (tile_adj_load), plainly when it is private.
        if (array_param && e.kind == K::Tile &&
            (e.name == "tile_load" || e.name == "tile_store" || e.name == "tile_atomic_add")) {
            for (std::size_t i = 1; i < e.args.size(); ++i) expr(*e.args[i]);
            return;
        }
        if (e.kind == K::Param && e.type.kind() == Type::Kind::Array) candidates_.erase(e.index); // passed along: anything goes
        for (const ir::ExprPtr &a : e.args) expr(*a);
    }

    void visit(const std::vector<ir::StmtPtr> &body) {
        for (const ir::StmtPtr &s : body) {
            for (const ir::Expr *e : {s->value.get(), s->target.get(), s->cond.get()})
                if (e) expr(*e);
            for (const ir::ExprPtr &a : s->args) expr(*a);
            visit(s->body);
            visit(s->orelse);
        }
    }
};

/// The array parameters of a kernel whose gradients several threads add to
/// (an n-body's pos[j], an MLP's w[o, k]) and that the kernel only reads,
/// element by element: every use is a full-rank element read, len or shape.
/// Their backward adds are plain (the launch gives each range of threads a
/// private copy, KernelEntry::private_gradients). An array written, passed
/// to a function or viewed may have its gradient read during the launch,
/// which a private copy would hide: those keep atomics.
class SharedGradients {
public:
    SharedGradients(const ir::Function &k, const std::set<int> &owned) : k_(k) {
        for (std::size_t i = 0; i < k.params.size(); ++i) {
            const Type &t = k.params[i].type;
            if (t.kind() != Type::Kind::Array || t.is_indexed_array()) continue;
            // Float32 and float64 elements (scalars or composites of them): the
            // launch adds the copies up as such.
            const bool floats = active(t.element()) && t.element().kind() != Type::Kind::Struct &&
                                t.element().kind() != Type::Kind::Tuple && t.element().kind() != Type::Kind::Native &&
                                (t.element().scalar_type() == Scalar::Float32 || t.element().scalar_type() == Scalar::Float64);
            if (t.kind() == Type::Kind::Array && !t.is_indexed_array() && floats && !owned.count(static_cast<int>(i)))
                candidates_.insert(static_cast<int>(i));
        }
    }

    std::set<int> run() {
        visit(k_.body);
        return candidates_;
    }

private:
    const ir::Function &k_;
    std::set<int> candidates_;

    void expr(const Expr &e) {
        const bool array_param = !e.args.empty() && e.args[0]->kind == K::Param &&
                                 e.args[0]->type.kind() == Type::Kind::Array;
        if (array_param && e.kind == K::Index) {
            if (e.args.size() != static_cast<std::size_t>(e.args[0]->type.ndim()) + 1) candidates_.erase(e.args[0]->index);
            for (std::size_t i = 1; i < e.args.size(); ++i) expr(*e.args[i]);
            return;
        }
        if (array_param && (e.kind == K::Shape || (e.kind == K::Intrinsic && e.intrinsic == ir::Intrinsic::Len))) return;
        if (e.kind == K::Param && e.type.kind() == Type::Kind::Array) candidates_.erase(e.index);
        for (const ir::ExprPtr &a : e.args) expr(*a);
    }

    void visit(const std::vector<ir::StmtPtr> &body) {
        for (const ir::StmtPtr &s : body) {
            if (s->target) {
                // A write: its value's adjoint reads the gradient.
                const Expr *root = s->target.get();
                while ((root->kind == K::Field || root->kind == K::Index) && !root->args.empty()) root = root->args[0].get();
                if (root->kind == K::Param) candidates_.erase(root->index);
            }
            for (const ir::Expr *e : {s->value.get(), s->target.get(), s->cond.get()})
                if (e) expr(*e);
            for (const ir::ExprPtr &a : s->args) expr(*a);
            visit(s->body);
            visit(s->orelse);
        }
    }
};

} // namespace

// --- analysis ---------------------------------------------------------------

namespace {
bool may_exit(const Emitter::AdNode &n);
bool any_may_exit(const std::vector<Emitter::AdNode> &nodes) {
    for (const Emitter::AdNode &c : nodes)
        if (may_exit(c)) return true;
    return false;
}
bool may_exit(const Emitter::AdNode &n) {
    using NK = Emitter::AdNode::Kind;
    switch (n.kind) {
    case NK::Exit: return true;
    case NK::If:
    case NK::Guard: return any_may_exit(n.body) || any_may_exit(n.orelse);
    case NK::For:
    case NK::While: return contains_return(n.body); // break and continue stop at the loop
    case NK::Plain: return false;
    }
    return false;
}
bool contains_return(const std::vector<Emitter::AdNode> &nodes) {
    using NK = Emitter::AdNode::Kind;
    for (const Emitter::AdNode &n : nodes) {
        if (n.kind == NK::Exit && n.s->kind == S::Return) return true;
        if (contains_return(n.body) || contains_return(n.orelse)) return true;
    }
    return false;
}
} // namespace

std::vector<Emitter::AdNode> Emitter::ad_build(const std::vector<ir::StmtPtr> &stmts, std::size_t from, bool in_loop) {
    using NK = AdNode::Kind;
    std::vector<AdNode> out;
    for (std::size_t i = from; i < stmts.size(); ++i) {
        const Stmt &s = *stmts[i];
        AdNode n;
        n.s = &s;
        n.in_loop = in_loop;
        n.id = ad_->next_id++;
        switch (s.kind) {
        case S::Break:
        case S::Continue:
        case S::Return:
            n.kind = NK::Exit;
            out.push_back(std::move(n));
            return out; // what follows in this block never runs
        case S::If:
            n.kind = NK::If;
            n.body = ad_build(s.body, 0, in_loop);
            n.orelse = ad_build(s.orelse, 0, in_loop);
            break;
        case S::For:
            n.kind = NK::For;
            n.body = ad_build(s.body, 0, true);
            break;
        case S::While:
            n.kind = NK::While;
            n.body = ad_build(s.body, 0, true);
            break;
        default: n.kind = NK::Plain; break;
        }
        const bool exits = may_exit(n);
        out.push_back(std::move(n));
        if (exits && i + 1 < stmts.size()) {
            // The rest of the block runs only when nothing above left it.
            AdNode g;
            g.kind = NK::Guard;
            g.in_loop = in_loop;
            g.id = ad_->next_id++;
            g.body = ad_build(stmts, i + 1, in_loop);
            out.push_back(std::move(g));
            return out;
        }
    }
    return out;
}

bool Emitter::saved(int index) const {
    switch (ad_->saving) {
    case AdState::Saving::Nothing: return false;
    case AdState::Saving::Iteration: return ad_->iteration_saved.count(index) != 0;
    case AdState::Saving::Function: break;
    }
    return ad_->saved_locals[static_cast<std::size_t>(index)];
}

namespace {
/// Locals `e` reads.
void expr_reads(const Expr &e, std::set<int> &out) {
    ir::for_each_expr(e, [&](const Expr &x) {
        if (x.kind == K::Local) out.insert(x.index);
    });
}
/// Locals `s` (and what it nests) reads; a store into part of a local reads the rest of it.
void stmt_reads(const Stmt &s, std::set<int> &out) {
    ir::for_each_expr(s, [&](const Expr &x) {
        if (x.kind == K::Local) out.insert(x.index);
    });
}
/// Locals `s` (and what it nests) assigns, with how often.
void stmt_assigns(const Stmt &s, std::map<int, int> &out) {
    switch (s.kind) {
    case S::Declare:
    case S::Assign:
    case S::For: ++out[s.index]; break;
    case S::Unpack:
        for (int t : s.targets) ++out[t];
        break;
    case S::Store: {
        const Expr *root = s.target.get();
        while ((root->kind == K::Field || root->kind == K::Index) && !root->args.empty()) root = root->args[0].get();
        if (root->kind == K::Local) ++out[root->index];
        break;
    }
    default: break;
    }
    for (const ir::StmtPtr &b : s.body) stmt_assigns(*b, out);
    for (const ir::StmtPtr &b : s.orelse) stmt_assigns(*b, out);
}
/// Whether a loop body can be checkpointed: straight code and branches, no
/// nested loop, no break, continue or return, no write to a parameter's value.
bool checkpointable(const std::vector<ir::StmtPtr> &body) {
    for (const ir::StmtPtr &s : body) {
        switch (s->kind) {
        case S::For:
        case S::While:
        case S::Break:
        case S::Continue:
        case S::Return: return false;
        case S::Store: {
            const Expr *root = s->target.get();
            bool array = false;
            while ((root->kind == K::Field || root->kind == K::Index) && !root->args.empty()) {
                if (root->kind == K::Index && root->args[0]->type.kind() == Type::Kind::Array) array = true;
                root = root->args[0].get();
            }
            if (root->kind == K::Param && !array) return false;
            break;
        }
        default: break;
        }
        // A builtin that advances a state it takes by reference (randf(state), ...):
        // the replays would draw other numbers unless the state were restored.
        bool mutates = false;
        ir::for_each_expr(*s, [&](const Expr &e) {
            if (e.kind != K::Builtin || !e.overload) return;
            const ParameterList &ps = e.overload->params;
            for (std::size_t i = 0; i < ps.size() && i < e.args.size(); ++i)
                if ((ps[i].name == "state" || ps[i].inout) && e.args[i]->kind != K::Literal) mutates = true;
        });
        if (mutates) return false;
        if (!checkpointable(s->body) || !checkpointable(s->orelse)) return false;
    }
    return true;
}
/// Locals referenced in `body` outside the statement `skip`'s body.
void outside_refs(const std::vector<ir::StmtPtr> &body, const Stmt *skip, std::set<int> &out) {
    for (const ir::StmtPtr &s : body) {
        if (s.get() == skip) {
            for (const ir::ExprPtr &a : s->args) expr_reads(*a, out);
            continue;
        }
        for (const Expr *e : {s->value.get(), s->target.get(), s->cond.get()})
            if (e) expr_reads(*e, out);
        for (const ir::ExprPtr &a : s->args) expr_reads(*a, out);
        if (s->kind == S::Declare || s->kind == S::Assign || s->kind == S::For) out.insert(s->index);
        for (int t : s->targets) out.insert(t);
        outside_refs(s->body, skip, out);
        outside_refs(s->orelse, skip, out);
    }
}
/// Whether `e` is a linear operation whose adjoint needs no operand's value:
/// a sum or difference of atoms, or a copy of one.
bool value_free(const Expr &e) {
    if (e.kind == K::Local || e.kind == K::Param || e.kind == K::Literal || e.kind == K::Constant) return true;
    if (e.kind != K::Builtin || !e.overload || e.overload->external) return false;
    const std::string &f = e.overload->native_name;
    if (f != "weft::add" && f != "weft::sub" && f != "weft::neg") return false;
    for (const ir::ExprPtr &a : e.args)
        if (a->kind != K::Local && a->kind != K::Param && a->kind != K::Literal && a->kind != K::Constant) return false;
    return true;
}

/// Whether a local of `set` is used in `body` where its value matters to
/// the backward pass: anywhere but as an operand of a value_free assignment
/// or as the value of an array store.
bool value_needed(const std::vector<ir::StmtPtr> &body, const std::set<int> &set) {
    const auto reads = [&](const Expr &e) {
        bool found = false;
        ir::for_each_expr(e, [&](const Expr &x) { found = found || (x.kind == K::Local && set.count(x.index)); });
        return found;
    };
    for (const ir::StmtPtr &s : body) {
        switch (s->kind) {
        case S::Declare:
        case S::Assign:
            if (!value_free(*s->value) && reads(*s->value)) return true;
            break;
        case S::Store: {
            // The stored value's adjoint is the element's gradient; the path's indices matter.
            const bool array = s->target->kind == K::Index && s->target->args[0]->type.kind() == Type::Kind::Array &&
                               s->target->args[0]->kind == K::Param;
            if (!array || reads(*s->target) || (s->value->kind != K::Local && reads(*s->value))) return true;
            break;
        }
        default: {
            bool found = false;
            for (const Expr *e : {s->value.get(), s->target.get(), s->cond.get()})
                if (e) found = found || reads(*e);
            for (const ir::ExprPtr &a : s->args) found = found || reads(*a);
            if (found) return true;
        }
        }
        if (value_needed(s->body, set) || value_needed(s->orelse, set)) return true;
    }
    return false;
}

} // namespace

std::optional<Emitter::Checkpoint> Emitter::checkpoint(const Stmt &loop) const {
    const auto known = ad_->checkpoints.find(&loop);
    if (known != ad_->checkpoints.end()) return known->second;
    return ad_->checkpoints[&loop] = analyze_checkpoint(loop);
}

bool Emitter::checkpointed(const Stmt &loop) const { return checkpoint(loop).has_value(); }

namespace {
/// A call of a builtin that writes an argument (an inout parameter) that a
/// backward pass cannot walk back, in `f` or a function it calls: every one
/// but the call a query loop advances by (the checker's query_loop: `more =
/// next(query, index)`, whose index it then assigns by a statement).
std::string loose_inout_call(const ir::Module &m, const ir::Function &f, std::set<const ir::Function *> &seen) {
    if (!seen.insert(&f).second) return "";
    std::string found;
    ir::for_each_stmt(f.body, [&](const Stmt &s) {
        if (!found.empty()) return;
        const bool loop_step = s.kind == S::Declare && s.index >= 0 &&
                               f.locals[static_cast<std::size_t>(s.index)].temporary &&
                               f.locals[static_cast<std::size_t>(s.index)].name == "query_more";
        const auto visit = [&](const Expr &root) {
            ir::for_each_expr(root, [&](const Expr &e) {
                if (!found.empty()) return;
                if (e.kind == K::Call) {
                    found = loose_inout_call(m, m.functions[static_cast<std::size_t>(e.index)], seen);
                    return;
                }
                if (e.kind != K::Builtin || !e.overload || (loop_step && &e == s.value.get())) return;
                for (const Parameter &p : e.overload->params)
                    if (p.inout) {
                        found = "kernel code at line " + std::to_string(e.location.line) + " calls '" + e.overload->name +
                                "', which writes its argument '" + p.name +
                                "', outside a loop condition: a backward pass cannot walk that write back (write "
                                "it as `while " + e.overload->name + "(...)` or `for x in query`, or declare the "
                                "kernel @wp.kernel(enable_backward=False))";
                        return;
                    }
            });
        };
        for (const Expr *e : {s.target.get(), s.value.get(), s.cond.get()})
            if (e) visit(*e);
        for (const kernel::ir::ExprPtr &a : s.args) visit(*a);
    });
    return found;
}
} // namespace

std::string Emitter::gradient_refusal(const ir::Function &f) {
    if (!f.is_kernel || !f.enable_backward || f.abi != ir::EntryPointAbi::Warp) return "";
    std::set<const ir::Function *> seen;
    if (std::string why = loose_inout_call(m_, f, seen); !why.empty()) return "kernel '" + f.name + "': " + why;
    if (reaches_fixed_arrays(f))
        return "kernel '" + f.name + "' makes a zeros() array (Warp's fixed-size array), here or in a function it "
               "calls: weft has no backward pass through those yet (declare it @wp.kernel(enable_backward=False))";
    if (!has_tiles(f)) return "";
    const ir::Function *outer_function = f_;
    AdState *outer_state = ad_;
    AdState state;
    ad_ = &state;
    f_ = &f;
    std::string why;
    try {
        check_tile_gradients(f);
    } catch (const UserError &e) {
        why = e.what();
    }
    ad_ = outer_state;
    f_ = outer_function;
    return why;
}

std::optional<Emitter::Checkpoint> Emitter::analyze_checkpoint(const Stmt &loop) const {
    if (loop.kind != S::For || !checkpointable(loop.body)) return std::nullopt;
    std::map<int, int> assigned;
    for (const ir::StmtPtr &s : loop.body) stmt_assigns(*s, assigned);
    // Read before the body assigns them at its top level: carried from the
    // previous iteration (or from before the loop).
    std::set<int> defined{loop.index}, carried;
    for (const ir::StmtPtr &s : loop.body) {
        std::set<int> r;
        stmt_reads(*s, r);
        for (int x : r)
            if (assigned.count(x) && !defined.count(x)) carried.insert(x);
        if (s->kind == S::Declare || s->kind == S::Assign) defined.insert(s->index);
        if (s->kind == S::Unpack) defined.insert(s->targets.begin(), s->targets.end());
    }
    std::set<int> outside;
    outside_refs(f_->body, &loop, outside);
    // A value carried only through sums (an accumulator: acc = acc + w[k] * x[k])
    // need not be restored: no adjoint in the loop needs it, nor anything
    // computed from it. Only for loops at the function's top level, whose
    // earlier statements do not read it (their adjoints run after the loop's,
    // when it holds what the replays left); later ones run before.
    std::size_t at = 0;
    while (at < f_->body.size() && f_->body[at].get() != &loop) ++at;
    const bool top_level = at < f_->body.size();
    std::set<int> before;
    if (top_level)
        for (std::size_t i = 0; i < at; ++i) stmt_reads(*f_->body[i], before);
    const auto droppable = [&](int x) {
        if (!top_level || before.count(x)) return false;
        std::set<int> from{x}; // x and what the body computes from it
        for (bool grew = true; grew;) {
            grew = false;
            ir::for_each_stmt(loop.body, [&](const Stmt &s) {
                if ((s.kind != S::Declare && s.kind != S::Assign) || from.count(s.index)) return;
                bool uses = false;
                ir::for_each_expr(*s.value, [&](const Expr &e) { uses = uses || (e.kind == K::Local && from.count(e.index)); });
                if (uses) grew = from.insert(s.index).second || grew;
            });
        }
        for (int y : from)
            if (y != x && before.count(y)) return false;
        return !value_needed(loop.body, from);
    };
    Checkpoint c;
    const auto constant = [](const Expr &e) { return e.kind == K::Literal || e.kind == K::Constant; };
    c.counted = constant(*loop.args[0]) && constant(*loop.args[2]);
    if (!c.counted) c.state.push_back(loop.index);
    for (const auto &[x, n] : assigned) {
        (void)n;
        if (f_->locals[static_cast<std::size_t>(x)].type.is_tile()) continue; // recomputed, never saved (check_tile_gradients)
        if (x != loop.index && (carried.count(x) || outside.count(x)) && !droppable(x)) c.state.push_back(x);
    }
    for (int x : c.state)
        if (const Type &t = f_->locals[static_cast<std::size_t>(x)].type; t.kind() == Type::Kind::Struct && nests_array(t))
            return std::nullopt; // its twin's arrays would need restoring apart from its gradients
    c.iteration_saved.insert(c.state.begin(), c.state.end());
    for (const auto &[x, n] : assigned)
        if (n > 1 && !f_->locals[static_cast<std::size_t>(x)].type.is_tile()) c.iteration_saved.insert(x);
    return c;
}

// --- adjoint references -------------------------------------------------------

std::string Emitter::adj_ref(const Expr &atom) const {
    // A tile_map operation's element operand: the adjoint the loop gives it (adjoint_tiles.cpp).
    if (atom.kind == K::Local && atom.index < 0) return adj_placeholders_.at(static_cast<std::size_t>(-1 - atom.index));
    if (atom.kind == K::Local && has_adjoint(atom.type)) return adj_local(atom.index);
    if (atom.kind == K::Param && has_adjoint(atom.type)) return "adj_" + param(atom.index);
    return {};
}

/// Adjoint lvalues for e's arguments from `from` on: atoms without one (literals,
/// constants, native values) get a zero dummy declared in `o` at indentation `in`.
std::string Emitter::adj_args(std::ostringstream &o, const Expr &e, const std::string &in, std::size_t from) {
    std::string out;
    for (std::size_t i = from; i < e.args.size(); ++i) {
        std::string r = adj_ref(*e.args[i]);
        if (r.empty()) {
            r = "weft_d" + std::to_string(ad_->dummies++) + "_";
            o << in << type(e.args[i]->type) << " " << r << "{};\n";
        }
        out += (i > from ? ", " : "") + r;
    }
    return out;
}

/// The gradient array an array-valued expression's adjoint twin holds.
std::string Emitter::adj_mirror(const Expr &e) {
    if (e.kind == K::Local || e.kind == K::Param) {
        const std::string r = adj_ref(e);
        if (!r.empty()) return r;
    }
    if (e.kind == K::View) { // the same view of the gradient array: writes through it land in the parent's gradient
        const std::string base = adj_mirror(*e.args[0]);
        if (base != "{}") return view(e, base);
    }
    if (e.kind == K::Field && e.args[0]->type.kind() == Type::Kind::Struct) {
        const std::string base = adj_struct_path(*e.args[0]);
        if (!base.empty()) return base + ".m_" + e.name;
    }
    return "{}"; // no gradient reaches this array
}

/// The adjoint twin of a struct value read from a local or parameter, through
/// struct fields; "" for any other value.
std::string Emitter::adj_struct_path(const Expr &e) const {
    if (e.kind == K::Local || e.kind == K::Param) return adj_ref(e);
    if (e.kind == K::Field && e.args[0]->type.kind() == Type::Kind::Struct) {
        const std::string base = adj_struct_path(*e.args[0]);
        if (!base.empty()) return base + ".m_" + e.name;
    }
    return {};
}

/// Field `f` of the native value `value` as an lvalue of the field's kernel type.
std::string Emitter::native_field(const std::string &value, const ExposedField &f, bool is_const) {
    const std::string c = is_const ? "const " : "";
    return "(*reinterpret_cast<" + c + type(f.type) + " *>(reinterpret_cast<" + c + "char *>(&" + value + ") + " +
           std::to_string(f.offset) + "))";
}

/// The gradient element `adj_array`[indices of `access` from position 1 to
/// `end`] as an lvalue: in debug mode checked against the gradient array's
/// shape (a failure names the array's gradient, the kernel and the line), as
/// the forward pass checks the array. Only where the gradient array has data
/// (gradient_data): an array without a gradient has a null one.
std::string Emitter::grad_element(const std::string &adj_array, const Expr &array, const Expr &access, std::size_t end) {
    std::string out;
    if (codegen_.bounds_checks)
        out = "weft::index_checked<false>(" + adj_array + ", " + c_string(array_name(array) + ".grad") + ", " +
              c_string(f_->name) + ", " + c_string(logical_file_) + ", " + std::to_string(access.location.line) +
              ", weft_t_.idx";
    else if (array.type.is_indexed_array())
        out = "weft::index(" + adj_array;
    else {
        // As the forward pass reads the array (array_element): dense copies use
        // constant inner strides, and only indices that may be negative wrap.
        out = "weft::index_nn_c<weft_contig_>(" + adj_array;
        for (std::size_t i = 1; i < end; ++i) {
            const std::string x = expr(*access.args[i]);
            out += nonneg_index(*access.args[i]) ? ", " + x
                                                 : ", weft::rt::wrap(" + x + ", " + adj_array + ".shape[" +
                                                       std::to_string(i - 1) + "])";
        }
        return out + ")";
    }
    for (std::size_t i = 1; i < end; ++i) out += ", " + expr(*access.args[i]);
    return out + ")";
}

/// Whether the gradient array `adj_array` (of `array`'s type) has data.
std::string Emitter::gradient_data(const std::string &adj_array, const Expr &array) {
    return adj_array + (array.type.is_indexed_array() ? ".arr.data" : ".data");
}

/// The registry's record of a native type the module references.
const NativeTypeInfo &Emitter::native_info(const Type &t) const {
    for (const NativeTypeInfo &n : m_.references.native_types)
        if (n.native_name == t.native_name()) return n;
    throw InternalError("generate_cpp: native type " + t.name() + " is not among the module's references");
}

/// The adjoint of an lvalue path rooted at a local or parameter: the same path on its twin.
std::string Emitter::adj_lvalue(const Expr &e) {
    switch (e.kind) {
    case K::Local: return adj_local(e.index);
    case K::Param: return "adj_" + param(e.index);
    case K::Field: return adj_lvalue(*e.args[0]) + component(e);
    case K::Index:
        return adj_lvalue(*e.args[0]) + subscript(e);
    default: throw InternalError("generate_cpp: not an lvalue (adjoint)");
    }
}

// --- helpers for the struct and tuple adjoints ---------------------------------------

std::string Emitter::struct_adjoint_helpers() {
    std::ostringstream o;
    o << "using weft::adj_acc;\nusing weft::adj_atomic_acc;\n";
    // Each plugin adjoint a kernel may call must have the declared signature:
    // a mismatch names plugin and builtin instead of failing at the call.
    int checks = 0;
    for (const BuiltinOverload &b : m_.references.builtins) {
        if (b.adjoint_native.empty() || !b.result) continue;
        std::string sig = "void (*)(";
        for (const Parameter &p : b.params) sig += type(p.type) + ", ";
        for (const Parameter &p : b.params) sig += type(p.type) + " &, ";
        sig += type(*b.result) + ")";
        const std::string owner = b.owners.empty() ? "?" : b.owners.front();
        const std::string probe = "weft_adjoint_signature_" + std::to_string(checks++) + "_";
        o << "// gradient contract of " << b.signature() << " (plugin '" << owner << "')\n"
          << "struct " << probe << " {\n"
          << "    template <typename F> WEFT_RT_HD static constexpr bool test(decltype(static_cast<F>(&" << b.adjoint_native
          << ")) *) { return true; }\n"
          << "    template <typename F> WEFT_RT_HD static constexpr bool test(...) { return false; }\n"
          << "};\n"
          << "static_assert(" << probe << "::test<" << sig << ">(nullptr), "
          << c_string("plugin '" + owner + "': builtin " + b.signature() + ": its adjoint " + b.adjoint_native +
                      " must have the signature void(" + sig.substr(9) +
                      " (the arguments, references to their adjoints, the result's adjoint)")
          << ");\n";
    }
    // Differentiable native types: their adjoint is a T whose exposed fields
    // hold gradients, added field by field (each field's kernel type, at its
    // offset: the C++ member may be the plugin's own type of that layout),
    // or by the plugin's accumulate function.
    for (const NativeTypeInfo &n : m_.references.native_types) {
        if (!n.differentiable) continue;
        o << "WEFT_FN void adj_acc(" << n.native_name << " &a, const " << n.native_name << " &v) {";
        if (!n.adjoint_accumulate.empty()) o << " " << n.adjoint_accumulate << "(a, v);";
        else
            for (const ExposedField &f : n.exposed) o << " adj_acc(" << native_field("a", f, false) << ", " << native_field("v", f, true) << ");";
        o << " }\n";
        o << "WEFT_FN void adj_atomic_acc(" << n.native_name << " *p, const " << n.native_name << " &v) {";
        for (const ExposedField &f : n.exposed)
            o << " adj_atomic_acc(&" << native_field("(*p)", f, false) << ", " << native_field("v", f, true) << ");";
        o << " }\n";
    }
    for (const ir::Struct &s : m_.structs) {
        const StructLayout &l = s.type.layout();
        const std::string name = cpp_type(s.type);
        o << "WEFT_FN void adj_acc(" << name << " &a, const " << name << " &v) {";
        for (const auto &f : l.fields)
            if (summed_member(f.type)) o << " adj_acc(a.m_" << f.name << ", v.m_" << f.name << ");";
        o << " (void)a; (void)v; }\n";
        o << "WEFT_FN void adj_atomic_acc(" << name << " *p, const " << name << " &v) {";
        for (const auto &f : l.fields)
            if (summed_member(f.type)) o << " adj_atomic_acc(&p->m_" << f.name << ", v.m_" << f.name << ");";
        o << " (void)p; (void)v; }\n";
        if (nests_array(s.type)) {
            // A struct copied to a local holds the same arrays; its adjoint
            // twin holds their gradients (gradients flow into a struct's arrays).
            o << "WEFT_FN void adj_share_arrays(" << name << " &a, const " << name << " &v) {";
            for (const auto &f : l.fields)
                if (f.type.kind() == Type::Kind::Array) o << " a.m_" << f.name << " = v.m_" << f.name << ";";
                else if (nests_array(f.type)) o << " adj_share_arrays(a.m_" << f.name << ", v.m_" << f.name << ");";
            o << " }\n";
        }
    }
    return o.str();
}

// --- the adjoint function ------------------------------------------------------------

bool Emitter::depends_on_input(const Expr &e) const {
    switch (e.kind) {
    case K::Param: return active(e.type) && f_->params[static_cast<std::size_t>(e.index)].type.kind() != Type::Kind::Array;
    case K::Local: return e.index < 0 || ad_->input_locals[static_cast<std::size_t>(e.index)]; // < 0: a tile element
    case K::Index:
        if (!e.args.empty() && e.args[0]->type.kind() == Type::Kind::Array && active(e.type)) return true;
        break;
    default: break;
    }
    for (const ir::ExprPtr &a : e.args)
        if (a && depends_on_input(*a)) return true;
    return false;
}

void Emitter::refuse_native_adjoint(const Expr &e, const Expr &native, const std::string &what) const {
    if (native.type.kind() != Type::Kind::Native || native.type.is_differentiable_native() || !depends_on_input(native))
        return;
    throw UserError(py_file_ + ":" + std::to_string(e.location.line) + ":" + std::to_string(e.location.column) + ": " +
                    (f_->is_kernel ? "kernel '" : "function '") + f_->name + "': " + what + " of native type " +
                    native.type.name() +
                    ", whose value depends on differentiable inputs; a native type is not differentiable, so the "
                    "gradient would be lost and the backward pass would compute wrong gradients without a word. "
                    "Declare the type differentiable in its plugin (weft_native_type_desc::differentiable), pass the "
                    "float parts to a builtin that takes them, or keep the native value out of what is differentiated");
}

namespace {
/// Marks the locals assigned (anywhere in `body`, to a fixpoint over loops) a
/// value that `depends` says depends on a differentiable input.
template <class Depends>
bool mark_input_locals(const std::vector<ir::StmtPtr> &body, std::vector<bool> &marked, const Depends &depends) {
    bool changed = false;
    auto mark = [&](int local) {
        if (local >= 0 && !marked[static_cast<std::size_t>(local)]) {
            marked[static_cast<std::size_t>(local)] = true;
            changed = true;
        }
    };
    for (const ir::StmtPtr &s : body) {
        switch (s->kind) {
        case S::Declare:
        case S::Assign:
            if (s->value && depends(*s->value)) mark(s->index);
            break;
        case S::Unpack:
            if (s->value && depends(*s->value))
                for (int t : s->targets) mark(t);
            break;
        case S::Store:
        case S::AugAssign:
            if (s->target && s->value && depends(*s->value)) {
                const ir::Expr *root = s->target.get();
                while ((root->kind == K::Field || root->kind == K::Index) && !root->args.empty()) root = root->args[0].get();
                if (root->kind == K::Local) mark(root->index);
            }
            break;
        default: break;
        }
        changed = mark_input_locals(s->body, marked, depends) || changed;
        changed = mark_input_locals(s->orelse, marked, depends) || changed;
    }
    return changed;
}
} // namespace

void Emitter::adjoint_function(std::ostringstream &o, const ir::Function &f) {
    f_ = &f;
    find_nonneg_locals(f);
    loop_counter_ = 0;
    AdState state;
    ad_ = &state;
    state.input_locals.assign(f.locals.size(), false);
    while (mark_input_locals(f.body, state.input_locals, [&](const Expr &e) { return depends_on_input(e); })) {
    }
    {
        std::vector<int> count(f.locals.size(), 0);
        std::vector<bool> in_loops(f.locals.size(), false), params_written(f.params.size(), false);
        count_assignments(f.body, false, count, in_loops, params_written);
        state.saved_locals.resize(f.locals.size());
        // Tiles are never saved (kilobytes each): their values are recomputed, and
        // check_tile_gradients refuses what recomputing cannot give.
        for (std::size_t i = 0; i < f.locals.size(); ++i)
            state.saved_locals[i] = (count[i] > 1 || in_loops[i]) && !f.locals[i].type.is_tile();
        state.saved_params = params_written;
        if (f.is_kernel) state.owned_params = OwnedArrays(f, count).run();
        // On the CPU, a launch keeps shared gradients in private copies
        // (launch_cpu); CUDA threads add to them atomically.
        private_gradients_.clear();
        if (f.is_kernel && backend_ == Backend::Cpu)
            for (int p : SharedGradients(f, state.owned_params).run()) private_gradients_.push_back(p);
    }
    if (!f.custom_adjoint.empty()) {
        // @wp.func_grad: the adjoint is the user's, given the inputs, the result's adjoint and the inputs' adjoints.
        o << "\ntemplate <bool weft_contig_>\nWEFT_FN void adj_" << f.mangled_name << "(const weft::tid_t &weft_t_";
        for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << type(f.params[i].type) << " " << param(static_cast<int>(i));
        for (std::size_t i = 0; i < f.params.size(); ++i)
            o << ", " << type(f.params[i].type) << " &adj_" << param(static_cast<int>(i));
        if (f.return_type) o << ", const " << type(*f.return_type) << " &weft_adj_ret_";
        o << ") {\n    " << f.custom_adjoint << "<weft_contig_>(weft_t_";
        for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << param(static_cast<int>(i));
        if (f.return_type) o << ", weft_adj_ret_";
        for (std::size_t i = 0; i < f.params.size(); ++i) o << ", adj_" << param(static_cast<int>(i));
        o << ");\n}\n";
        ad_ = nullptr;
        return;
    }
    if (f.is_native) {
        // @wp.func_native: the adjoint is adj_snippet (none given: no gradient flows, as in Warp).
        o << "\ntemplate <bool weft_contig_>\nWEFT_FN void adj_" << f.mangled_name << "(const weft::tid_t &weft_t_";
        for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << type(f.params[i].type) << " " << param(static_cast<int>(i));
        for (std::size_t i = 0; i < f.params.size(); ++i)
            o << ", " << type(f.params[i].type) << " &adj_" << param(static_cast<int>(i));
        if (f.return_type) o << ", const " << type(*f.return_type) << " &weft_adj_ret_";
        o << ") {\n    (void)weft_t_;\n";
        native_aliases(o, f, true);
        if (!f.native_adjoint.text.empty()) o << line_marker(f.native_adjoint.location) << f.native_adjoint.text << "\n";
        o << "}\n";
        ad_ = nullptr;
        return;
    }
    // A tile kernel reaches here only when check_tile_gradients accepted it (emit_functions).
    const std::vector<AdNode> nodes = ad_build(f.body, 0, false);

    std::ostringstream fwd, rev;
    replay_ = true;
    ad_forward(fwd, nodes, 1);
    ad_reverse(rev, nodes, 1);
    replay_ = false;

    const std::string name = f.is_kernel ? f.mangled_name + "_body_adj" : "adj_" + f.mangled_name;
    o << "\ntemplate <bool weft_contig_>\nWEFT_FN void " << name << "(const weft::tid_t &weft_t_";
    for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << type(f.params[i].type) << " " << param(static_cast<int>(i));
    // Kernels take their adjoints by value (each thread accumulates its own
    // copy of a value's adjoint; arrays are gradient views), functions by reference.
    for (std::size_t i = 0; i < f.params.size(); ++i)
        o << ", " << type(f.params[i].type) << (f.is_kernel ? " " : " &") << "adj_" << param(static_cast<int>(i));
    if (f.return_type) o << ", const " << type(*f.return_type) << " &weft_adj_ret_";
    o << ") {\n    (void)weft_t_;\n";
    for (std::size_t i = 0; i < f.params.size(); ++i) o << "    (void)adj_" << param(static_cast<int>(i)) << ";\n";
    if (f.return_type) o << "    (void)weft_adj_ret_;\n";
    for (std::size_t i = 0; i < f.locals.size(); ++i) {
        const Type &t = f.locals[i].type;
        if (t.is_tile()) { // no initializer (CUDA: shared); the adjoint zeroed
            o << "    " << tile_declaration(t) << " " << local(static_cast<int>(i)) << ";\n";
            if (has_adjoint(t))
                o << "    " << tile_declaration(t) << " " << adj_local(static_cast<int>(i)) << ";\n    weft::tile_fill("
                  << adj_local(static_cast<int>(i)) << ", " << cpp_type(t.element()) << "(0));\n";
            continue;
        }
        o << "    " << type(t) << " " << local(static_cast<int>(i)) << "{};\n";
        if (has_adjoint(t)) o << "    " << type(t) << " " << adj_local(static_cast<int>(i)) << "{};\n";
    }
    o << "    int weft_exit_ = 0;\n    (void)weft_exit_;\n";
    if (state.uses_tape) o << "    weft::rt::adj_tape weft_tape_;\n";
    o << state.decls.str();
    o << "    // forward (replayed)\n" << fwd.str();
    o << "    // reverse\n" << rev.str();
    if (state.uses_tape)
        o << "    weft::rt::adj_tape_overflow(weft_tape_, " << c_string(f.name) << ", " << c_string(logical_file_) << ", "
          << f.location.line << ");\n";
    o << "}\n";
    ad_ = nullptr;
    if (f.is_kernel) {
        if (backend_ == Backend::Cuda) cuda_entry(o, f);
        else entry(o, f);
    }
}

// --- forward replay --------------------------------------------------------------------

void Emitter::ad_forward(std::ostringstream &o, const std::vector<AdNode> &nodes, int depth) {
    using NK = AdNode::Kind;
    const std::string in = indent(depth);
    auto record = [&](const AdNode &n, const std::string &kind, const std::string &value) {
        // A checkpointed loop's first pass: its reverse iterations replay the body and record then.
        if (ad_->saving == AdState::Saving::Nothing) return;
        // After the branch or loop: the reverse walk takes it first.
        if (n.in_loop) {
            ad_->uses_tape = true;
            o << in << "    weft_tape_.push<" << kind << ">(" << value << ");\n";
        } else {
            const std::string var = "weft_r" + std::to_string(n.id) + "_";
            ad_->decls << "    " << kind << " " << var << "{};\n";
            o << in << "    " << var << " = " << value << ";\n";
        }
    };
    auto loop_exits = [&](const std::string &at) {
        o << at << "if (weft_exit_ == 1) weft_exit_ = 0;\n"
          << at << "else if (weft_exit_ == 2) { weft_exit_ = 0; break; }\n"
          << at << "else if (weft_exit_ == 3) break;\n";
    };
    for (const AdNode &n : nodes) {
        switch (n.kind) {
        case NK::Plain:
            ad_->plain_in_loop = n.in_loop;
            ad_forward_plain(o, *n.s, depth);
            break;
        case NK::Exit:
            o << line_marker(n.s->location);
            o << in << "weft_exit_ = " << (n.s->kind == S::Continue ? 1 : n.s->kind == S::Break ? 2 : 3) << ";\n";
            break;
        case NK::If:
        case NK::Guard: {
            const std::string b = "weft_b" + std::to_string(n.id) + "_";
            if (n.kind == NK::If) o << line_marker(n.s->location);
            o << in << "{\n" << in << "    const bool " << b << " = "
              << (n.kind == NK::If ? expr(*n.s->cond) : std::string("weft_exit_ == 0")) << ";\n";
            o << in << "    if (" << b << ") {\n";
            ad_forward(o, n.body, depth + 2);
            if (!n.orelse.empty()) {
                o << in << "    } else {\n";
                ad_forward(o, n.orelse, depth + 2);
            }
            o << in << "    }\n";
            record(n, "bool", b);
            o << in << "}\n";
            break;
        }
        case NK::For: {
            const Stmt &s = *n.s;
            o << line_marker(s.location);
            const std::string count = "weft_n" + std::to_string(n.id) + "_";
            const std::string it = "weft_it" + std::to_string(loop_counter_++) + "_";
            const std::string t = type(f_->locals[static_cast<std::size_t>(s.index)].type);
            const std::string start = expr(*s.args[0]), stop = "(long long)(" + expr(*s.args[1]) + ")",
                              step = "(long long)(" + expr(*s.args[2]) + ")";
            const std::optional<Checkpoint> cp = ad_->saving == AdState::Saving::Function ? checkpoint(s) : std::nullopt;
            o << in << "{\n" << in << "    long long " << count << " = 0;\n";
            if (cp) {
                // The loop variable's value before the loop, for what precedes it (a reused name).
                ad_->uses_tape = true;
                o << in << "    weft_tape_.push(" << local(s.index) << ");\n";
            }
            o << in << "    for (long long " << it << " = " << start << "; (" << step << " > 0) ? (" << it << " < " << stop
              << ") : (" << it << " > " << stop << "); " << it << " += " << step << ") {\n";
            o << in << "        ++" << count << ";\n";
            if (cp) {
                // The iteration's starting state only; the body saves nothing.
                o << in << "        " << local(s.index) << " = static_cast<" << t << ">(" << it << ");\n";
                ad_->uses_tape = true;
                for (int x : cp->state) {
                    o << in << "        weft_tape_.push(" << local(x) << ");\n";
                    if (f_->locals[static_cast<std::size_t>(x)].type.kind() == Type::Kind::Array)
                        o << in << "        weft_tape_.push(" << adj_local(x) << ");\n";
                }
                ad_->saving = AdState::Saving::Nothing;
                ad_forward(o, n.body, depth + 2);
                ad_->saving = AdState::Saving::Function;
            } else {
                if (saved(s.index)) {
                    ad_->uses_tape = true;
                    o << in << "        weft_tape_.push(" << local(s.index) << ");\n";
                }
                o << in << "        " << local(s.index) << " = static_cast<" << t << ">(" << it << ");\n";
                ad_forward(o, n.body, depth + 2);
                loop_exits(in + "        ");
            }
            o << in << "    }\n";
            record(n, "long long", count);
            o << in << "}\n";
            break;
        }
        case NK::While: {
            const Stmt &s = *n.s;
            o << line_marker(s.location);
            const std::string count = "weft_n" + std::to_string(n.id) + "_";
            o << in << "{\n" << in << "    long long " << count << " = 0;\n";
            o << in << "    while (" << expr(*s.cond) << ") {\n" << in << "        WEFT_LOOP_PROGRESS();\n";
            o << in << "        ++" << count << ";\n";
            ad_forward(o, n.body, depth + 2);
            loop_exits(in + "        ");
            o << in << "    }\n";
            record(n, "long long", count);
            o << in << "}\n";
            break;
        }
        }
    }
}

void Emitter::ad_forward_plain(std::ostringstream &o, const Stmt &s, int depth) {
    const std::string in = indent(depth);
    auto save_local = [&](int index) {
        if (!saved(index)) return;
        const Type &t = f_->locals[static_cast<std::size_t>(index)].type;
        // An array's twin is its gradient view, a struct's holds its arrays' (adj_share_arrays).
        const bool twin = t.kind() == Type::Kind::Array || (t.kind() == Type::Kind::Struct && nests_array(t));
        if (!ad_->plain_in_loop && ad_->saving == AdState::Saving::Function) {
            const std::string var = "weft_sv" + std::to_string(ad_->saved_vars.size()) + "_";
            ad_->saved_vars[{&s, index}] = var;
            ad_->decls << "    " << type(t) << " " << var << "{};\n";
            o << in << var << " = " << local(index) << ";\n";
            if (twin) {
                ad_->decls << "    " << type(t) << " " << var << "a{};\n";
                o << in << var << "a = " << adj_local(index) << ";\n";
            }
            return;
        }
        ad_->uses_tape = true;
        o << in << "weft_tape_.push(" << local(index) << ");\n";
        if (twin) o << in << "weft_tape_.push(" << adj_local(index) << ");\n";
    };
    switch (s.kind) {
    case S::Declare:
    case S::Assign:
        save_local(s.index);
        statement(o, s, depth);
        if (f_->locals[static_cast<std::size_t>(s.index)].type.kind() == Type::Kind::Array)
            o << in << adj_local(s.index) << " = " << adj_mirror(*s.value) << ";\n";
        if (const Type &t = f_->locals[static_cast<std::size_t>(s.index)].type; t.kind() == Type::Kind::Struct && nests_array(t)) {
            // Kernels build no struct from arrays (struct construction with
            // arguments and field stores into empty structs are issue 43's);
            // a struct local holding arrays is a copy of a parameter's, or of one's field.
            if (const std::string source = adj_struct_path(*s.value); !source.empty())
                o << in << "adj_share_arrays(" << adj_local(s.index) << ", " << source << ");\n";
        }
        return;
    case S::Unpack:
        for (int t : s.targets) save_local(t);
        statement(o, s, depth);
        return;
    case S::Store: {
        if (!writes_array(*s.target)) {
            const Expr *root = s.target.get();
            while (root->kind == K::Field || root->kind == K::Index) root = root->args[0].get();
            if (root->kind == K::Local) save_local(root->index);
            if (root->kind == K::Param) {
                ad_->uses_tape = true;
                o << in << "weft_tape_.push(" << param(root->index) << ");\n";
            }
        }
        statement(o, s, depth);
        return;
    }
    case S::Eval: statement(o, s, depth); return;
    default: throw InternalError("generate_cpp: control flow in a plain adjoint statement");
    }
}

// --- reverse walk ----------------------------------------------------------------------

void Emitter::ad_reverse(std::ostringstream &o, const std::vector<AdNode> &nodes, int depth) {
    using NK = AdNode::Kind;
    const std::string in = indent(depth);
    auto take = [&](const AdNode &n, const std::string &kind) -> std::string {
        if (n.in_loop) return "weft_tape_.take<" + kind + ">()";
        return "weft_r" + std::to_string(n.id) + "_";
    };
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        const AdNode &n = *it;
        switch (n.kind) {
        case NK::Plain:
            ad_->plain_in_loop = n.in_loop;
            ad_reverse_plain(o, *n.s, depth);
            break;
        case NK::Exit:
            if (n.s->kind == S::Return && n.s->value && f_->return_type && active(*f_->return_type)) {
                const std::string r = adj_ref(*n.s->value);
                if (!r.empty()) o << in << "adj_acc(" << r << ", weft_adj_ret_);\n";
            }
            break;
        case NK::If:
        case NK::Guard:
            o << in << "if (" << take(n, "bool") << ") {\n";
            ad_reverse(o, n.body, depth + 1);
            if (!n.orelse.empty()) {
                o << in << "} else {\n";
                ad_reverse(o, n.orelse, depth + 1);
            }
            o << in << "}\n";
            break;
        case NK::For:
        case NK::While: {
            const std::string count = "weft_n" + std::to_string(n.id) + "_";
            o << in << "for (long long " << count << " = " << take(n, "long long") << "; " << count << " > 0; --" << count
              << ") {\n";
            const std::optional<Checkpoint> cp =
                n.kind == NK::For && ad_->saving == AdState::Saving::Function ? checkpoint(*n.s) : std::nullopt;
            if (cp) {
                // Back to the iteration's start, the body replayed, then walked backwards.
                if (cp->counted) {
                    const Stmt &s = *n.s;
                    o << in << "    " << local(s.index) << " = static_cast<" << type(f_->locals[static_cast<std::size_t>(s.index)].type)
                      << ">((long long)(" << expr(*s.args[0]) << ") + (" << count << " - 1) * (long long)(" << expr(*s.args[2])
                      << "));\n";
                }
                for (auto x = cp->state.rbegin(); x != cp->state.rend(); ++x) {
                    if (f_->locals[static_cast<std::size_t>(*x)].type.kind() == Type::Kind::Array)
                        o << in << "    weft_tape_.pop(" << adj_local(*x) << ");\n";
                    o << in << "    weft_tape_.pop(" << local(*x) << ");\n";
                }
                ad_->saving = AdState::Saving::Iteration;
                const std::set<int> outer = ad_->iteration_saved;
                ad_->iteration_saved = cp->iteration_saved;
                ad_forward(o, n.body, depth + 1);
                ad_reverse(o, n.body, depth + 1);
                ad_->iteration_saved = outer;
                ad_->saving = AdState::Saving::Function;
                o << in << "}\n";
                o << in << "weft_tape_.pop(" << local(n.s->index) << ");\n"; // its value before the loop
                break;
            }
            ad_reverse(o, n.body, depth + 1);
            if (n.kind == NK::For && saved(n.s->index))
                o << in << "    weft_tape_.pop(" << local(n.s->index) << ");\n";
            o << in << "}\n";
            break;
        }
        }
    }
}

void Emitter::ad_reverse_plain(std::ostringstream &o, const Stmt &s, int depth) {
    const std::string in = indent(depth);
    auto restore_local = [&](int index, const std::string &at) {
        if (!saved(index)) return;
        const Type &t = f_->locals[static_cast<std::size_t>(index)].type;
        if (const auto v = ad_->saved_vars.find({&s, index}); v != ad_->saved_vars.end()) {
            if (t.kind() == Type::Kind::Array) o << at << adj_local(index) << " = " << v->second << "a;\n";
            if (t.kind() == Type::Kind::Struct && nests_array(t))
                o << at << "adj_share_arrays(" << adj_local(index) << ", " << v->second << "a);\n";
            o << at << local(index) << " = " << v->second << ";\n";
            return;
        }
        if (t.kind() == Type::Kind::Array) o << at << "weft_tape_.pop(" << adj_local(index) << ");\n";
        if (t.kind() == Type::Kind::Struct && nests_array(t))
            // Its arrays' gradient views as they were; its gradients stay.
            o << at << "{ " << type(t) << " weft_s_{}; weft_tape_.pop(weft_s_); adj_share_arrays(" << adj_local(index)
              << ", weft_s_); }\n";
        o << at << "weft_tape_.pop(" << local(index) << ");\n";
    };
    switch (s.kind) {
    case S::Declare:
    case S::Assign: {
        const Type &t = f_->locals[static_cast<std::size_t>(s.index)].type;
        if (t.is_tile()) return tile_reverse(o, s, depth);
        const bool grad = active(t) && !(s.value->kind == K::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid);
        if (!grad && !saved(s.index)) return;
        o << line_marker(s.location) << in << "{\n";
        if (grad)
            o << in << "    " << type(t) << " weft_a_ = " << adj_local(s.index) << ";\n"
              << in << "    " << adj_local(s.index) << " = " << type(t) << "{};\n";
        if (grad && t.kind() == Type::Kind::Struct && nests_array(t))
            o << in << "    adj_share_arrays(" << adj_local(s.index) << ", weft_a_);\n"; // zeroed, but its arrays' views stay
        restore_local(s.index, in + "    ");
        if (grad) ad_value(o, *s.value, "weft_a_", depth + 1);
        o << in << "}\n";
        return;
    }
    case S::Unpack: {
        const bool from_tid = s.value->kind == K::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid;
        o << line_marker(s.location) << in << "{\n";
        if (!from_tid) {
            o << in << "    " << type(s.value->type) << " weft_a_{};\n";
            for (std::size_t k = 0; k < s.targets.size(); ++k) {
                const int t = s.targets[k];
                if (!has_adjoint(f_->locals[static_cast<std::size_t>(t)].type)) continue;
                o << in << "    weft_a_.e" << k << " = " << adj_local(t) << ";\n";
                o << in << "    " << adj_local(t) << " = " << type(f_->locals[static_cast<std::size_t>(t)].type) << "{};\n";
            }
        }
        for (auto t = s.targets.rbegin(); t != s.targets.rend(); ++t) restore_local(*t, in + "    ");
        if (!from_tid) ad_value(o, *s.value, "weft_a_", depth + 1);
        o << in << "}\n";
        return;
    }
    case S::Store: {
        const Expr &target = *s.target;
        if (writes_array(target)) {
            // The value's adjoint is the written element's gradient.
            const std::string r = adj_ref(*s.value);
            if (r.empty() || !active(s.value->type)) return;
            // The path's array element, then its components, on the gradient array.
            std::vector<const Expr *> chain;
            const Expr *e = &target;
            while (!(e->kind == K::Index && e->args[0]->type.kind() == Type::Kind::Array)) {
                chain.push_back(e);
                e = e->args[0].get();
            }
            const std::string adj_array = adj_mirror(*e->args[0]);
            if (adj_array == "{}") return;
            std::string path = "weft::adj_array_load(" + adj_array;
            for (std::size_t i = 1; i < e->args.size(); ++i) path += ", " + expr(*e->args[i]);
            path += ")";
            if (codegen_.bounds_checks)
                path = "(" + gradient_data(adj_array, *e->args[0]) + " ? " + grad_element(adj_array, *e->args[0], *e, e->args.size()) +
                       " : " + type(e->type) + "{})";
            for (auto c = chain.rbegin(); c != chain.rend(); ++c) {
                const Expr &step = **c;
                if (step.kind == K::Field) path += component(step);
                else path += subscript(step);
            }
            o << line_marker(s.location) << in << "adj_acc(" << r << ", " << path << ");\n";
            return;
        }
        const Expr *root = &target;
        while (root->kind == K::Field || root->kind == K::Index) root = root->args[0].get();
        // A native value's fields carry no gradient (it has no adjoint twin).
        const bool grad = active(target.type) && has_adjoint(root->type);
        o << line_marker(s.location) << in << "{\n";
        if (grad)
            o << in << "    " << type(target.type) << " weft_a_ = " << adj_lvalue(target) << ";\n"
              << in << "    " << adj_lvalue(target) << " = " << type(target.type) << "{};\n";
        if (root->kind == K::Local) restore_local(root->index, in + "    ");
        if (root->kind == K::Param) o << in << "    weft_tape_.pop(" << param(root->index) << ");\n";
        if (grad) {
            const std::string r = adj_ref(*s.value);
            if (!r.empty()) o << in << "    adj_acc(" << r << ", weft_a_);\n";
        }
        o << in << "}\n";
        return;
    }
    case S::Eval: {
        const Expr &v = *s.value;
        if (v.kind == K::Tile) return tile_reverse(o, s, depth);
        if (v.kind == K::Call || (v.kind == K::Intrinsic && ir::is_atomic(v.intrinsic))) {
            o << line_marker(s.location) << in << "{\n";
            if (v.kind == K::Call && !v.type.is_void()) o << in << "    " << type(v.type) << " weft_a_{};\n";
            ad_value(o, v, v.type.is_void() ? std::string() : "weft_a_", depth + 1);
            o << in << "}\n";
        }
        return;
    }
    default: throw InternalError("generate_cpp: control flow in a plain adjoint statement");
    }
}

/// Adds the adjoint `r` of `e`'s value to the adjoints of its operands.
void Emitter::ad_value(std::ostringstream &o, const Expr &e, const std::string &r, int depth) {
    const std::string in = indent(depth);
    switch (e.kind) {
    case K::Local:
    case K::Param: {
        const std::string a = adj_ref(e);
        if (!a.empty() && active(e.type)) o << in << "adj_acc(" << a << ", " << r << ");\n";
        return;
    }
    case K::Tile: { // t[i, j] (tile_extract): the element's adjoint, when the element is inside the tile
        const std::string a = adj_ref(*e.args[0]);
        if (a.empty() || !active(e.type)) return;
        const Type &t = e.args[0]->type;
        const std::string i = expr(*e.args[1]), j = e.args.size() == 3 ? expr(*e.args[2]) : "0";
        o << in << "if (" << i << " >= 0 && " << i << " < " << t.tile_rows() << " && " << j << " >= 0 && " << j << " < "
          << t.tile_cols() << ") " << a << ".data[" << i << " * " << t.tile_cols() << " + " << j << "] += " << r << ";\n";
        return;
    }
    case K::Literal:
    case K::String:
    case K::Constant:
    case K::Shape:
    case K::View: // an array: its gradient is the view's twin (adj_mirror)
    case K::Not: return;
    case K::Gather: {
        const std::string a = adj_ref(*e.args[0]);
        if (a.empty() || !active(e.type)) return;
        for (std::size_t k = 0; k < gather_count(e); ++k)
            o << in << "adj_acc(" << a << gather_source(e, k) << ", " << r << result_component(e.type, k) << ");\n";
        return;
    }
    case K::Builtin: {
        const BuiltinOverload &b = *e.overload;
        if (!active(e.type) || e.args.empty()) return; // no operands: nothing to propagate to
        std::string fn;
        if (!b.external && b.differentiable) fn = "weft::adj_" + b.native_function;
        else if (!b.adjoint_native.empty()) fn = b.adjoint_native;
        else return; // not differentiable: a constant to the backward pass
        // The contract writes an adjoint for every argument: one of a native
        // type would be written into a dummy and thrown away.
        for (std::size_t i = 0; i < e.args.size(); ++i)
            refuse_native_adjoint(e, *e.args[i], "the gradient contract of builtin " + b.signature() +
                                                     " writes the adjoint of its argument " + std::to_string(i + 1));
        const std::string adjs = adj_args(o, e, in);
        o << in << fn << "(" << args(e) << (e.args.empty() ? "" : ", ") << adjs << ", " << r << ");\n";
        return;
    }
    case K::Call: {
        std::string call = "adj_" + e.name + "<weft_contig_>(weft_t_";
        if (!e.args.empty()) call += ", " + args(e);
        if (!e.args.empty()) call += ", " + adj_args(o, e, in);
        if (!e.type.is_void()) call += ", " + r;
        o << in << call << ");\n";
        return;
    }
    case K::Construct: {
        const Type &t = e.type;
        if (e.args.empty()) return;
        if (t.kind() == Type::Kind::Struct) {
            const auto &fields = t.layout().fields;
            for (std::size_t i = 0; i < e.args.size() && i < fields.size(); ++i) {
                const std::string a = adj_ref(*e.args[i]);
                if (!a.empty() && active(e.args[i]->type)) o << in << "adj_acc(" << a << ", " << r << ".m_" << fields[i].name << ");\n";
            }
            return;
        }
        if (t.kind() == Type::Kind::Tuple) {
            for (std::size_t i = 0; i < e.args.size(); ++i) {
                const std::string a = adj_ref(*e.args[i]);
                if (!a.empty() && active(e.args[i]->type)) o << in << "adj_acc(" << a << ", " << r << ".e" << i << ");\n";
            }
            return;
        }
        if (t.kind() == Type::Kind::Native) {
            // Aggregate construction: argument i is exposed field i.
            if (!t.is_differentiable_native()) return;
            const NativeTypeInfo &n = native_info(t);
            for (std::size_t i = 0; i < e.args.size() && i < n.exposed.size(); ++i) {
                const std::string a = adj_ref(*e.args[i]);
                if (!a.empty() && active(e.args[i]->type))
                    o << in << "adj_acc(" << a << ", " << native_field(r, n.exposed[i], true) << ");\n";
            }
            return;
        }
        if (!active(t)) return;
        if (t.kind() == Type::Kind::Scalar) {
            const std::string a = adj_ref(*e.args[0]);
            if (!a.empty()) o << in << "weft::adj_cast(" << a << ", " << r << ");\n";
            return;
        }
        const bool scalars = [&] {
            for (const ir::ExprPtr &a : e.args)
                if (!a->type.is_scalar()) return false;
            return true;
        }();
        if (scalars && e.args.size() == 1) {
            const std::string a = adj_ref(*e.args[0]);
            if (!a.empty() && active(e.args[0]->type)) o << in << "weft::adj_fill(" << a << ", " << r << ");\n";
            return;
        }
        if (scalars) {
            for (std::size_t i = 0; i < e.args.size(); ++i) {
                const std::string a = adj_ref(*e.args[i]);
                if (!a.empty() && active(e.args[i]->type))
                    o << in << "weft::adj_component(" << a << ", " << r << ", " << i << ");\n";
            }
            return;
        }
        if (t.kind() == Type::Kind::Transform && e.args.front()->type.kind() == Type::Kind::Vector) {
            // transform(p[, q]): its p and q parts.
            const char *part[] = {".p", ".q"};
            for (std::size_t i = 0; i < e.args.size() && i < 2; ++i) {
                const std::string a = adj_ref(*e.args[i]);
                if (!a.empty() && active(e.args[i]->type)) o << in << "adj_acc(" << a << ", " << r << part[i] << ");\n";
            }
            return;
        }
        if (t.kind() == Type::Kind::Matrix && e.args.size() == static_cast<std::size_t>(t.rows())) {
            for (std::size_t i = 0; i < e.args.size(); ++i) {
                const std::string a = adj_ref(*e.args[i]);
                if (!a.empty() && active(e.args[i]->type)) o << in << "adj_acc(" << a << ", " << r << ".c[" << i << "]);\n";
            }
            return;
        }
        if (e.args.size() == 1) { // a conversion between composite types
            const std::string a = adj_ref(*e.args[0]);
            if (!a.empty() && active(e.args[0]->type)) o << in << "weft::adj_cast(" << a << ", " << r << ");\n";
            return;
        }
        throw InternalError("generate_cpp: no adjoint for constructing " + t.name());
    }
    case K::Cast: {
        const std::string a = adj_ref(*e.args[0]);
        if (!a.empty() && active(e.args[0]->type) && active(e.type)) o << in << "weft::adj_cast(" << a << ", " << r << ");\n";
        return;
    }
    case K::Field: {
        const Expr &base = *e.args[0];
        if (!active(e.type)) return;
        if (base.type.kind() == Type::Kind::Native) {
            if (base.type.is_differentiable_native()) {
                const std::string a = adj_ref(base);
                const NativeTypeInfo &n = native_info(base.type);
                for (const ExposedField &f : n.exposed)
                    if (!a.empty() && f.name == e.name) o << in << "adj_acc(" << native_field(a, f, false) << ", " << r << ");\n";
                return;
            }
            refuse_native_adjoint(e, base, "reading field '" + e.name + "' passes a gradient to a value");
            return;
        }
        const std::string a = adj_ref(base);
        if (!a.empty()) o << in << "adj_acc(" << a << component(e) << ", " << r << ");\n";
        return;
    }
    case K::Index: {
        const Expr &base = *e.args[0];
        if (!active(e.type)) return;
        if (base.type.kind() == Type::Kind::Array) {
            const std::string a = adj_mirror(base);
            if (a == "{}") return;
            const bool owned = base.kind == K::Param &&
                               (ad_->owned_params.count(base.index) ||
                                std::find(private_gradients_.begin(), private_gradients_.end(), base.index) !=
                                    private_gradients_.end());
            if (!base.type.is_indexed_array() || codegen_.bounds_checks) {
                // Spelled out: indexed as the forward pass indexes (checked in
                // debug mode); and a native element's adjoint functions,
                // generated at global scope, are not found from the runtime's
                // templates (argument-dependent lookup looks in the type's own
                // namespace).
                const std::string element = grad_element(a, base, e, e.args.size());
                o << in << "if (" << gradient_data(a, base) << ") "
                  << (owned ? "adj_acc(" + element : "adj_atomic_acc(&" + element) << ", " << r << ");\n";
                return;
            }
            o << in << (owned ? "weft::adj_array_read_owned(" : "weft::adj_array_read(") << a << ", " << r;
            for (std::size_t i = 1; i < e.args.size(); ++i) o << ", " << expr(*e.args[i]);
            o << ");\n";
            return;
        }
        const std::string a = adj_ref(base);
        if (a.empty()) return;
        o << in << "adj_acc(" << a << subscript(e) << ", " << r << ");\n";
        return;
    }
    case K::Intrinsic: {
        using I = ir::Intrinsic;
        switch (e.intrinsic) {
        case I::Select:
        case I::Where: {
            if (!active(e.type)) return;
            // select(c, a, b) is a when c is false; where(c, a, b) is a when c is true.
            const std::string a = adj_ref(*e.args[1]), b = adj_ref(*e.args[2]);
            const std::string when_true = e.intrinsic == I::Select ? b : a, when_false = e.intrinsic == I::Select ? a : b;
            o << in << "if (" << expr(*e.args[0]) << ") {";
            if (!when_true.empty()) o << " adj_acc(" << when_true << ", " << r << ");";
            o << " } else {";
            if (!when_false.empty()) o << " adj_acc(" << when_false << ", " << r << ");";
            o << " }\n";
            return;
        }
        case I::QuatToAxisAngle: {
            const std::string q = adj_ref(*e.args[0]);
            if (q.empty()) return;
            o << in << "weft::adj_quat_to_axis_angle(" << expr(*e.args[0]) << ", " << q << ", " << r << ".e0, " << r
              << ".e1);\n";
            return;
        }
        case I::AtomicAdd:
        case I::AtomicSub:
        case I::AtomicMin:
        case I::AtomicMax: {
            // The returned old value is not differentiable; the added value's
            // adjoint is the element's gradient (min/max: when it won).
            const Expr &value = *e.args.back();
            const std::string v = adj_ref(value);
            const std::string g = adj_mirror(*e.args[0]);
            if (v.empty() || g == "{}" || !active(value.type)) return;
            std::string idx;
            for (std::size_t i = 1; i + 1 < e.args.size(); ++i) idx += ", " + expr(*e.args[i]);
            std::string load = "weft::adj_array_load(" + g + idx + ")";
            if (codegen_.bounds_checks)
                load = "(" + gradient_data(g, *e.args[0]) + " ? " + grad_element(g, *e.args[0], e, e.args.size() - 1) + " : " +
                       type(value.type) + "{})";
            if (e.intrinsic == I::AtomicAdd) o << in << "adj_acc(" << v << ", " << load << ");\n";
            else if (e.intrinsic == I::AtomicSub) o << in << "weft::adj_sub_from(" << v << ", " << load << ");\n";
            else
                o << in << "if (weft::eq(" << atomic_element(e) << ", " << expr(value) << ")) adj_acc(" << v << ", "
                  << load << ");\n";
            return;
        }
        default: return; // tid, len, print, expect_*, identity: nothing to propagate
        }
    }
    case K::Select:
    case K::And:
    case K::Or:
    case K::Compare: throw InternalError("generate_cpp: a short-circuit expression survived lowering");
    }
}

} // namespace weft::codegen::detail
