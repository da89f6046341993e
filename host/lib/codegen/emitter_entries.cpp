// Emitter's kernel entry points: the CPU launch loops (row guards, disjoint rows, strided copies) and CUDA kernels.
#include "emitter.hpp"

namespace weft::codegen::detail {

bool Emitter::strided_view(const Expr &e) {
    if (e.kind == K::View) {
        const int source_dims = e.args[0]->type.ndim();
        int positions = 0;
        std::size_t last_slice_step = 0; // arg index of the last position's step, 0: an integer index
        for (std::size_t a = 1; a < e.args.size(); ++positions) {
            const bool slice = e.index & (1 << positions);
            last_slice_step = slice ? a + 2 : 0;
            a += slice ? 3 : 1;
        }
        if (positions == source_dims) {
            if (last_slice_step == 0) return true;
            const Expr &step = *e.args[last_slice_step];
            if (!(step.kind == K::Literal && step.value && !step.value->int_components.empty() &&
                  step.value->int_components[0] == 1))
                return true;
        }
    }
    for (const ir::ExprPtr &a : e.args)
        if (strided_view(*a)) return true;
    return false;
}

bool Emitter::strided_views(const std::vector<ir::StmtPtr> &body) {
    for (const ir::StmtPtr &s : body) {
        for (const ir::Expr *e : {s->value.get(), s->target.get(), s->cond.get()})
            if (e && strided_view(*e)) return true;
        for (const ir::ExprPtr &a : s->args)
            if (strided_view(*a)) return true;
        if (strided_views(s->body) || strided_views(s->orelse)) return true;
    }
    return false;
}

bool Emitter::module_strided_views() const {
    for (const ir::Function &f : m_.functions)
        if (strided_views(f.body)) return true;
    return false;
}

bool Emitter::nests_array(const Type &t) {
    if (t.kind() == Type::Kind::Struct)
        for (const auto &f : t.layout().fields)
            if (f.type.kind() == Type::Kind::Array || nests_array(f.type)) return true;
    if (t.kind() == Type::Kind::Tuple)
        for (const Type &e : t.elements())
            if (e.kind() == Type::Kind::Array || nests_array(e)) return true;
    return false;
}

std::string Emitter::where(const ir::Function &f) const {
    return py_file_ + ":" + std::to_string(f.location.line) + ":" + std::to_string(f.location.column) + ": kernel '" +
           f.name + "'";
}

void Emitter::external_entry(std::ostringstream &o, const ir::Function &f) {
    if (f.params.size() != 1 || f.params[0].type.kind() != Type::Kind::Struct)
        throw UserError(where(f) + " uses entry_point_abi='external_constant_params' and must take exactly one "
                                   "@wp.struct parameter (it takes " +
                        std::to_string(f.params.size()) + " parameter" + (f.params.size() == 1 ? "" : "s") +
                        (f.params.size() == 1 ? " of type " + f.params[0].type.name() : std::string()) + ")");
    if (f.uses_tid)
        throw UserError(where(f) + " uses entry_point_abi='external_constant_params' and cannot call tid(): the "
                                   "external runtime decides the launch");
    const Type &P = f.params[0].type;
    if (external_params_ && *external_params_ != P)
        throw UserError(where(f) + ": every external_constant_params kernel of a module shares one params type; this "
                                   "one takes " + P.name() + ", another takes " + external_params_->name());
    const std::string t = type(P);
    if (!external_params_) {
        external_params_ = P;
        o << "extern \"C\" { __constant__ __align__(alignof(" << t << ")) unsigned char params[sizeof(" << t << ")]; }\n";
    }
    KernelEntry k;
    k.name = f.name;
    k.key = f.entry_name;
    k.symbol = f.entry_name.empty() ? f.mangled_name : f.entry_name;
    k.abi = f.abi;
    k.params.push_back({f.params[0].name, P});
    o << "extern \"C\" __global__ void " << k.symbol << "() {\n"
      << "    const " << t << " a0_ = *reinterpret_cast<const " << t << " *>(params);\n"
      << "    const weft::tid_t weft_t_{};\n"
      << "    " << f.mangled_name << "_body<false>(weft_t_, a0_);\n}\n";
    result_.kernels.push_back(std::move(k));
}

std::vector<KernelParam> Emitter::entry_params(const ir::Function &f) const {
    std::vector<KernelParam> out;
    for (const ir::Variable &p : f.params) out.push_back({p.name, p.type});
    if (codegen_.adjoint)
        for (const ir::Variable &p : f.params) out.push_back({"adj_" + p.name, p.type});
    return out;
}

std::string Emitter::cuda_tid_components(int tid_dims) {
    if (tid_dims == 0) return "";
    if (tid_dims == 1)
        return "    weft_t_.c[0] = weft::int32(weft_launch_.ndim == 1 ? weft_idx_ : weft_idx_ / (weft_launch_.size / "
               "weft_launch_.shape[0]));\n";
    std::string out = "    long long weft_rest_ = weft_idx_;\n";
    for (int k = tid_dims - 1; k > 0; --k) {
        const std::string d = std::to_string(k);
        out += "    weft_t_.c[" + d + "] = weft::int32(weft_rest_ % weft_launch_.shape[" + d + "]);\n" +
               "    weft_rest_ /= weft_launch_.shape[" + d + "];\n";
    }
    return out + "    weft_t_.c[0] = weft::int32(weft_rest_);\n";
}

void Emitter::cuda_entry(std::ostringstream &o, const ir::Function &f) {
    if (const int mode = m_.options.deterministic.value_or(0); mode > 0)
        throw UserError(where(f) + ": module option deterministic=wp.DeterministicMode." +
                        (mode == 1 ? "RUN_TO_RUN" : "GPU_TO_GPU") +
                        " has no CUDA code in weft: its atomics are not recorded and replayed in a fixed order "
                        "(Warp's are). On the CPU the module runs each launch on one thread in index order; for "
                        "CUDA, leave the option out (or NOT_GUARANTEED)");
    if (f.abi == ir::EntryPointAbi::ExternalConstantParams) return external_entry(o, f);
    KernelEntry k;
    k.name = f.name;
    k.key = f.entry_name;
    k.symbol = f.mangled_name + "_cuda" + entry_suffix();
    k.tid_dims = f.tid_dims;
    k.abi = f.abi;
    k.params = entry_params(f);
    k.tiled = f.uses_tiles;
    if (!codegen_.adjoint) k.no_backward = gradient_refusal(f);
    std::string decl, grid_decl, pass, dense = "true";
    bool specializable = true;
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        const Type &pt = k.params[i].type;
        const std::string t = type(pt);
        decl += ", const " + t + " a" + std::to_string(i) + "_";
        grid_decl += ", const WEFT_GRID_CONSTANT " + t + " a" + std::to_string(i) + "_";
        pass += ", a" + std::to_string(i) + "_";
        if (pt.kind() == Type::Kind::Array) dense += " && weft::innermost_dense(a" + std::to_string(i) + "_)";
        if (nests_array(pt)) specializable = false;
    }
    if (module_strided_views()) specializable = false;
    const std::string body = f.mangled_name + "_body" + entry_suffix(), run = f.mangled_name + "_run" + entry_suffix();
    o << "template <bool weft_contig_>\nWEFT_FN void " << run
      << "(const weft::launch_t &weft_launch_, long long weft_idx_" << decl << ") {\n"
      << "    weft::tid_t weft_t_{};\n    weft_t_.idx = weft_idx_;\n    weft_t_.block_dim = int(blockDim.x);\n"
      << cuda_tid_components(f.tid_dims) << "    " << body << "<weft_contig_>(weft_t_" << pass << ");\n}\n";
    // A grid-stride loop over the launch: any grid covers any dimension.
    // __grid_constant__ parameters are read in place: without it, taking a
    // parameter's address (the run function's references) copies it to
    // the thread's local memory, a stack frame of the parameters' size.
    // launch_bounds=: the compiler may then use more registers per thread.
    const std::string bounds =
        f.launch_bounds > 0 ? "__launch_bounds__(" + std::to_string(f.launch_bounds) + ") " : std::string();
    o << "extern \"C\" __global__ void " << bounds << k.symbol << "(const WEFT_GRID_CONSTANT weft::launch_t weft_launch_"
      << grid_decl << ") {\n"
      << "    const bool weft_dense_ = " << (specializable ? dense : std::string("false")) << ";\n";
    if (f.uses_tiles) {
        // A tiled launch's grid counts blocks: every thread of a block runs
        // its body (with the same index), the tile operations split between
        // them. One instantiation: each would have its own shared tiles.
        o << "    (void)weft_dense_;\n"
          // A backward pass runs each block on its thread 0 (WEFT_TILE_SINGLE_LANE).
          << (codegen_.adjoint ? "    if (threadIdx.x != 0) return;\n" : "")
          << "    for (long long weft_idx_ = blockIdx.x; weft_idx_ < weft_launch_.size; weft_idx_ += gridDim.x)\n"
          << "        " << run << "<false>(weft_launch_, weft_idx_" << pass << ");\n}\n";
        result_.kernels.push_back(std::move(k));
        return;
    }
    o << "    for (long long weft_idx_ = (long long)blockIdx.x * blockDim.x + threadIdx.x; weft_idx_ < weft_launch_.size;\n"
      << "         weft_idx_ += (long long)blockDim.x * gridDim.x) {\n"
      << "        if (weft_dense_) " << run << "<true>(weft_launch_, weft_idx_" << pass << ");\n"
      << "        else " << run << "<false>(weft_launch_, weft_idx_" << pass << ");\n"
      << "    }\n}\n";
    result_.kernels.push_back(std::move(k));
}

void Emitter::entry(std::ostringstream &o, const ir::Function &f) {
    if (backend_ == Backend::Cuda) return cuda_entry(o, f);
    KernelEntry k;
    k.name = f.name;
    k.key = f.entry_name;
    k.symbol = f.mangled_name + "_cpu" + entry_suffix();
    k.tid_dims = f.tid_dims;
    k.abi = f.abi;
    k.params = entry_params(f);
    k.loops = has_loop(f) || f.uses_tiles; // a tile block's work is a loop per operation
    k.serial = m_.options.deterministic.value_or(0) > 0;
    k.tiled = f.uses_tiles;
    if (!codegen_.adjoint) k.no_backward = gradient_refusal(f);
    if (codegen_.adjoint)
        for (int p : private_gradients_) k.private_gradients.push_back(static_cast<int>(f.params.size()) + p);
    std::string params_decl, params_pass, dense = "true";
    bool specializable = true;
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        const Type &pt = k.params[i].type;
        const std::string t = type(pt);
        params_decl += ", const " + t + " a" + std::to_string(i) + "_"; // by value: no alias with stores
        params_pass += ", a" + std::to_string(i) + "_";
        if (pt.kind() == Type::Kind::Array) dense += " && weft::innermost_dense(a" + std::to_string(i) + "_)";
        if (nests_array(pt)) specializable = false;
    }
    if (module_strided_views()) specializable = false;
    const std::string body = f.mangled_name + "_body" + entry_suffix(), run = f.mangled_name + "_run" + entry_suffix();
    // A kernel whose work sits under a bounds test on its innermost index
    // runs each row's passing range without the test (row_guard.hpp).
    const std::optional<RowGuard> guard = codegen_.adjoint ? std::nullopt : find_row_guard(f);
    if (guard) row_guard_functions(o, f, *guard);
    // Guarded rows of an N-D launch over dense arrays: when the launch's
    // arrays are disjoint, each row runs without the compiler's overlap
    // tests (disjoint_rows.hpp).
    // Not with deferred atomics: the row function would need the chunk's
    // tables through a pointer, and a pointer to them that leaves the run
    // function keeps their sums out of registers (deferred_adds).
    const bool disjoint = deferred_.empty() && guard && f.tid_dims >= 2 && specializable && dense != "true" &&
                          options_.cpu_preamble.empty() && disjoint_rows_apply(m_, f, k.params);
    // Rows of the launch grid: the last dimension is a counted inner loop
    // (vectorizable); the outer components are computed once per row. Each
    // element gets its own copy of the thread index, which the compiler
    // keeps in registers. A kernel that unpacks tid() into N >= 2 values
    // runs on N-D launches only (checked at launch): the innermost
    // component has a constant index. One that takes tid() as one value,
    // or not at all, reads only the linear index: no components are kept.
    const bool components = f.tid_dims >= 2;
    // The rows of an N-D launch are one dimension long (often a few
    // hundred elements): two vectors per iteration, the compiler's choice
    // for such loops, leave a scalar tail of up to 2 * width - 1 elements
    // per row, which cost more than the interleaving gains (diffuse3d on
    // 160^3: 12% fewer instructions). 1-D launches run one long row.
    const std::string one_vector_per_iteration =
        components ? "        _Pragma(\"clang loop interleave_count(1)\")\n" : "";
    // The chunk's deferred atomics reach the body in each element's copy
    // only: stored in weft_t_, which stays in memory, their address would
    // escape and their sums with it (deferred_adds).
    const std::string each =
        (components ? "            weft::tid_t weft_e_ = weft_t_;\n"
                      "            weft_e_.c[" + std::to_string(f.tid_dims - 1) + "] = weft::int32(weft_j_);\n"
                      "            weft_e_.idx = weft_base_ + weft_j_;\n"
                    : "            weft::tid_t weft_e_{};\n"
                      "            weft_e_.idx = weft_base_ + weft_j_;\n"
                      "            weft_e_.block_dim = weft_t_.block_dim;\n") +
        std::string(deferred_.empty() ? "" : "            weft_e_.deferred = &weft_deferred_;\n");
    if (disjoint) disjoint_row_function(o, f, k.params, each);
    o << "template <bool weft_contig_>\nstatic void " << run
      << "(const weft::launch_t &weft_launch_, long long weft_begin_, long long weft_end_" << params_decl << ") {\n"
      << "    const int weft_n_ = weft_launch_.ndim;\n"
      << "    const long long weft_inner_ = weft_launch_.shape[weft_n_ - 1];\n";
    if (disjoint) {
        std::string test = "weft_contig_";
        for (std::size_t a = 0; a < k.params.size(); ++a)
            for (std::size_t b = a + 1; b < k.params.size(); ++b)
                if (k.params[a].type.kind() == Type::Kind::Array && k.params[b].type.kind() == Type::Kind::Array)
                    test += " && weft::disjoint(a" + std::to_string(a) + "_, a" + std::to_string(b) + "_)";
        o << "    const bool weft_disjoint_ = " << test << ";\n";
    }
    if (guard)
        // A 1-D test compares the int32 tid() value, the linear index: rows
        // of a launch beyond int32 take the plain loop.
        o << "    const bool weft_rows_ = " << (f.tid_dims == 1 ? "weft_launch_.size <= 0x7fffffffLL" : "true") << ";\n";
    // The outer components of the first row by division, of each next row
    // by a carry (divisions per row cost as much as a short row's work).
    o << "    weft::tid_t weft_t_{};\n"
      << "    weft_t_.block_dim = weft_launch_.block_dim;\n"
      << "    long long weft_row_ = weft_begin_ / weft_inner_;\n";
    if (!deferred_.empty()) {
        // Deferred only while the array shares no byte with another array
        // parameter: otherwise a read through the other would miss the sums.
        // Each table is an object of its own (deferred_adds says why).
        o << "    " << deferred_type(f) << " weft_deferred_;\n";
        for (int p : deferred_) {
            const std::string d = std::to_string(p);
            std::string alone = "true";
            for (std::size_t b = 0; b < k.params.size(); ++b)
                if (static_cast<int>(b) != p && k.params[b].type.kind() == Type::Kind::Array)
                    alone += " && weft::disjoint_copies(a" + d + "_, a" + std::to_string(b) + "_)";
            o << "    weft::rt::deferred_table weft_table" << d << "_;\n"
              << "    weft_deferred_.d" << d << ".begin(" << alone << ", &weft_table" << d << "_);\n";
            if (std::find(scattered_.begin(), scattered_.end(), p) != scattered_.end())
                o << "    weft_deferred_.d" << d << ".privatize(a" << d << "_, weft_end_ - weft_begin_);\n";
        }
    }
    // Unrolled for the kernel's tid() dimensionality, which the launch's
    // matches (checked at launch): indexed by a loop counter, weft_t_.c
    // stayed in memory and each element reloaded its outer components
    // (row_sums ran at 0.67x the hand-written loop).
    if (components) {
        o << "    long long weft_rest_ = weft_row_;\n";
        for (int c = f.tid_dims - 2; c >= 0; --c) {
            const std::string d = std::to_string(c);
            o << "    weft_t_.c[" << d << "] = weft::int32(weft_rest_ % weft_launch_.shape[" << d << "]);\n"
              << "    weft_rest_ /= weft_launch_.shape[" << d << "];\n";
        }
    }
    o << "    for (long long weft_idx_ = weft_begin_; weft_idx_ < weft_end_; ++weft_row_) {\n"
      << "        const long long weft_base_ = weft_row_ * weft_inner_;\n"
      << "        const long long weft_stop_ = weft_base_ + weft_inner_ < weft_end_ ? weft_base_ + weft_inner_ : weft_end_;\n"
      << "        const int weft_j0_ = int(weft_idx_ - weft_base_), weft_j1_ = int(weft_stop_ - weft_base_);\n";
    if (guard) {
        // The test's j is the component (tid_dims >= 2) or the linear index
        // (1); the range stays inside [j0, j1) of this row, an int.
        const std::string shift = f.tid_dims == 1 ? "weft_base_" : "0";
        o << "        if (weft_rows_) {\n"
          << "            const long long weft_shift_ = " << shift << ";\n"
          << "            long long weft_lo_ = weft_j0_ + weft_shift_, weft_hi_ = weft_j1_ + weft_shift_;\n"
          << "            if (" << f.mangled_name << "_rows<weft_contig_>(weft_t_, weft_lo_, weft_hi_" << params_pass << "))"
          << (disjoint ? " {\n" : "\n");
        if (disjoint) {
            std::string pointers;
            for (std::size_t i = 0; i < k.params.size(); ++i)
                if (k.params[i].type.kind() == Type::Kind::Array) pointers += "a" + std::to_string(i) + "_.data, ";
            // Only the dense instantiation names the row function: the
            // strided one, compiled alone, does not compile it.
            o << "                if (weft_disjoint_) {\n"
              << "                    if constexpr (weft_contig_)\n"
              << "                        " << f.mangled_name << "_row_disjoint(" << pointers
              << "weft_t_, int(weft_lo_), int(weft_hi_), weft_base_" << params_pass << ");\n"
              << "                } else\n";
        }
        o << one_vector_per_iteration << "                for (int weft_j_ = int(weft_lo_ - weft_shift_); weft_j_ < int(weft_hi_ - weft_shift_); ++weft_j_) {\n"
          << indented(each, 2) << "                    " << f.mangled_name << "_body_rows<weft_contig_>(weft_e_" << params_pass
          << ");\n"
          << "                }\n"
          << (disjoint ? "            }\n" : "")
          << "        } else {\n";
    }
    o << one_vector_per_iteration << "        for (int weft_j_ = weft_j0_; weft_j_ < weft_j1_; ++weft_j_) {\n"
      << each << "            " << body << "<weft_contig_>(weft_e_" << params_pass << ");\n"
      << "        }\n";
    if (guard) o << "        }\n";
    o << "        weft_idx_ = weft_stop_;\n";
    if (components) {
        // The carry into the outer components, innermost first.
        std::string close;
        for (int c = f.tid_dims - 2; c >= 0; --c) {
            const std::string d = std::to_string(c), in(static_cast<std::size_t>(8 + 4 * (f.tid_dims - 2 - c)), ' ');
            o << in << "if (++weft_t_.c[" << d << "] >= weft_launch_.shape[" << d << "]) {\n"
              << in << "    weft_t_.c[" << d << "] = 0;\n";
            close = in + "}\n" + close;
        }
        o << close;
    }
    o << "    }\n";
    for (int p : deferred_) o << "    weft_deferred_.d" << p << ".flush();\n";
    o << "}\n";
    std::string unpack, unpack_arrays;
    for (std::size_t i = 0; i < k.params.size(); ++i) {
        const std::string t = type(k.params[i].type);
        const std::string line = "    const " + t + " a" + std::to_string(i) + "_ = *static_cast<const " + t +
                                 " *>(weft_args_[" + std::to_string(i) + "]);\n";
        unpack += line;
        if (k.params[i].type.kind() == Type::Kind::Array) unpack_arrays += line;
    }
    const std::string launch_params =
        "(const weft::launch_t *weft_launch_, void *const *weft_args_, long long weft_begin_, long long weft_end_)";
    const auto call = [&](bool dense_copy) {
        return run + (dense_copy ? "<true>" : "<false>") + "(*weft_launch_, weft_begin_, weft_end_" + params_pass + ");\n";
    };
    if (!(specializable && dense != "true")) {
        o << "extern \"C\" void " << k.symbol << launch_params << " {\n" << unpack << "    " << call(false) << "}\n";
    } else if (!split_strided_) {
        o << "extern \"C\" void " << k.symbol << launch_params << " {\n"
          << unpack << "    if (" << dense << ")\n        " << call(true) << "    else\n        " << call(false) << "}\n";
    } else {
        // The dense and strided instantiations behind symbols of their own,
        // so that each compiles without the other (strided_macro).
        const std::string launch_args = "(weft_launch_, weft_args_, weft_begin_, weft_end_)";
        const std::string strided = strided_macro;
        k.strided_section = section_;
        // The density test a JIT launch needs is the host's (weft/runtime/
        // launch.hpp innermost_dense): compiled here, ten ten-line tests
        // were 9% of ten_kernels' cold compile. Only the full entry, for
        // AOT objects and C callers, tests in generated code.
        o << "extern \"C\" void " << dense_symbol(k) << launch_params << ";\n"
          << "#if " << strided << " <= 0\n"
          << "extern \"C\" void " << dense_symbol(k) << launch_params << " {\n" << unpack << "    " << call(true) << "}\n"
          << "#endif\n";
        const std::string strided_entries =
            "#if " + strided + " >= 0\n" + "extern \"C\" void " + strided_symbol(k) + launch_params + " {\n" + unpack +
            "    " + call(false) + "}\n" + "extern \"C\" void " + k.symbol + launch_params + " {\n" + unpack_arrays +
            "    if (" + dense + ")\n        " + dense_symbol(k) + launch_args + ";\n    else\n        " +
            strided_symbol(k) + launch_args + ";\n}\n" + "#endif\n";
        o << strided_entries;
    }
    result_.kernels.push_back(std::move(k));
}

void Emitter::disjoint_row_function(std::ostringstream &o, const ir::Function &f,
                                    const std::vector<KernelParam> &params, const std::string &each) {
    std::string pointers, arrays, rebind, pass;
    for (std::size_t i = 0; i < params.size(); ++i) {
        const std::string a = "a" + std::to_string(i) + "_";
        const Type &t = params[i].type;
        pass += ", " + a;
        if (t.kind() != Type::Kind::Array) {
            arrays += ", const " + type(t) + " " + a;
            continue;
        }
        pointers += type(t.element()) + " *__restrict " + a + "data_, ";
        arrays += ", " + type(t) + " " + a;
        rebind += "    " + a + ".data = " + a + "data_;\n";
    }
    o << "\nWEFT_FN void " << f.mangled_name << "_row_disjoint(" << pointers
      << "const weft::tid_t &weft_t_, int weft_lo_, int weft_hi_, long long weft_base_" << arrays << ") {\n"
      << rebind << "        _Pragma(\"clang loop interleave_count(1)\")\n"
      << "        for (int weft_j_ = weft_lo_; weft_j_ < weft_hi_; ++weft_j_) {\n"
      << each << "            " << f.mangled_name << "_body_rows<true>(weft_e_" << pass << ");\n"
      << "        }\n}\n";
}

void Emitter::row_guard_functions(std::ostringstream &o, const ir::Function &f, const RowGuard &g) {
    const auto locals = [&] {
        o << "    (void)weft_t_;\n";
        for (std::size_t i = 0; i < f.locals.size(); ++i)
            o << "    " << type(f.locals[i].type) << " " << local(static_cast<int>(i)) << "{};\n";
    };
    find_nonneg_locals(f, g.minimums);
    o << "\n" << signature(f, f.mangled_name + "_body_rows") << " {\n";
    locals();
    for (std::size_t k = 0; k < g.test; ++k) statement(o, *f.body[k], 1);
    block(o, f.body[g.test]->body, 1);
    o << "}\n";
    find_nonneg_locals(f);

    o << "\ntemplate <bool weft_contig_>\nWEFT_FN bool " << f.mangled_name
      << "_rows(const weft::tid_t &weft_t_, long long &weft_lo_, long long &weft_hi_";
    for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << type(f.params[i].type) << " " << param(static_cast<int>(i));
    o << ") {\n";
    locals();
    const auto test = [&](const auto &self, const std::vector<ir::StmtPtr> &stmts, std::size_t n) -> void {
        for (std::size_t k = 0; k < n; ++k) {
            const Stmt &s = *stmts[k];
            if (s.kind == S::If) { // a link of the `and` chain: its statements run unconditionally here
                self(self, s.body, s.body.size());
                continue;
            }
            const RowTerm *t = g.term(s);
            if (!t) {
                statement(o, s, 1);
                continue;
            }
            o << line_marker(s.location);
            if (!t->bound) {
                o << "    if (!(" << expr(*s.value) << ")) return false;\n";
                continue;
            }
            const std::string b = "(long long)(" + expr(*t->bound->bound) + ")";
            const auto raise_lo = [&](const std::string &v) { o << "    if (" << v << " > weft_lo_) weft_lo_ = " << v << ";\n"; };
            const auto cut_hi = [&](const std::string &v) { o << "    if (" << v << " < weft_hi_) weft_hi_ = " << v << ";\n"; };
            switch (t->bound->op) {
            case RowOp::Lt: cut_hi(b); break;
            case RowOp::Le: cut_hi(b + " + 1"); break;
            case RowOp::Gt: raise_lo(b + " + 1"); break;
            case RowOp::Ge: raise_lo(b); break;
            case RowOp::Eq:
                raise_lo(b);
                cut_hi(b + " + 1");
                break;
            }
        }
    };
    test(test, f.body, g.test);
    o << "    return weft_lo_ < weft_hi_;\n}\n";
}

} // namespace weft::codegen::detail
