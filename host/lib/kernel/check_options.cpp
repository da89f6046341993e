// Warp's module options and kernel launch hints: wp.set_module_options({...})
// at module level, @wp.kernel(module_options={...}, launch_bounds=...,
// ...). Each key Warp 1.19 knows is either applied (where weft has the
// concept: ir::ModuleOptions, the pipeline lays it over the loader's
// options), accepted with its value checked (where it cannot change what
// weft builds or computes), or refused with what to use instead.
#include "checker.hpp"

#include <algorithm>

namespace weft::kernel::detail {

using ast::Expr;

namespace {

/// A literal option value: True/False, an int (optionally negated), a string, None.
struct OptionValue {
    enum class Kind { Bool, Int, String, None, Enum, Other } kind = Kind::Other;
    bool b = false;
    long long i = 0;
    std::string s;
};

OptionValue option_value(const Expr &e) {
    OptionValue v;
    if (e.kind == Expr::Kind::Bool) {
        v.kind = OptionValue::Kind::Bool;
        v.b = e.bool_value;
    } else if (e.kind == Expr::Kind::Int && e.int_value <= 0x7fffffffu) {
        v.kind = OptionValue::Kind::Int;
        v.i = static_cast<long long>(e.int_value);
    } else if (e.kind == Expr::Kind::Unary && e.text == "-" && e.children[0]->kind == Expr::Kind::Int &&
               e.children[0]->int_value <= 0x7fffffffu) {
        v.kind = OptionValue::Kind::Int;
        v.i = -static_cast<long long>(e.children[0]->int_value);
    } else if (e.kind == Expr::Kind::String) {
        v.kind = OptionValue::Kind::String;
        v.s = e.text;
    } else if (e.kind == Expr::Kind::Name && e.text == "None") {
        v.kind = OptionValue::Kind::None;
    } else if (e.kind == Expr::Kind::Attribute && e.children[0]->kind == Expr::Kind::Attribute &&
               e.children[0]->text == "DeterministicMode") {
        // wp.DeterministicMode.RUN_TO_RUN (also warp.config.DeterministicMode...): the member's name.
        v.kind = OptionValue::Kind::Enum;
        v.s = e.text;
    }
    return v;
}

bool later(SourceLocation a, SourceLocation b) { return a.line > b.line || (a.line == b.line && a.column > b.column); }

} // namespace

bool Checker::option_set_later(const std::string &key, SourceLocation at) {
    auto it = option_set_at_.find(key);
    if (it != option_set_at_.end() && !later(at, it->second)) return false;
    option_set_at_[key] = at;
    return true;
}

void Checker::module_options(const Expr &dict, ir::Function *unique_kernel) {
    // OPTIONS = {...} at module level, passed by name.
    if (dict.kind == Expr::Kind::Name)
        if (const auto it = dict_constants_.find(dict.text); it != dict_constants_.end())
            return module_options(*it->second, unique_kernel);
    if (dict.kind != Expr::Kind::Dict) {
        diags_.error(dict.location, "module options must be a dict literal: {\"fast_math\": True, ...}");
        return;
    }
    // A unique kernel's options are its module's alone: they neither see nor
    // change the file's (Warp does not carry set_module_options over either).
    ir::ModuleOptions &o = unique_kernel ? unique_kernel->own_options : out_.options;
    const auto set_here = [&](const std::string &key, SourceLocation at) {
        return unique_kernel || option_set_later(key, at);
    };
    for (std::size_t k = 0; k + 1 < dict.children.size(); k += 2) {
        const Expr &key = *dict.children[k];
        const Expr &value = *dict.children[k + 1];
        if (key.kind != Expr::Kind::String) {
            diags_.error(key.location, "a module option's name must be a string literal (\"mode\", \"fast_math\", ...)");
            continue;
        }
        const std::string &name = key.text;
        const OptionValue v = option_value(value);
        const auto wrong = [&](const std::string &expected) {
            diags_.error(value.location, "module option '" + name + "' must be " + expected);
        };
        const auto boolean = [&](std::optional<bool> &field) {
            if (v.kind != OptionValue::Kind::Bool) return wrong("True or False");
            if (set_here(name, key.location)) field = v.b;
        };
        const auto ignored_bool = [&](bool none_ok) {
            if (v.kind != OptionValue::Kind::Bool && !(none_ok && v.kind == OptionValue::Kind::None))
                wrong(none_ok ? "True, False or None" : "True or False");
        };
        if (name == "enable_backward") {
            if (unique_kernel) { // module="unique": the kernel is its own module
                if (v.kind != OptionValue::Kind::Bool) {
                    wrong("True or False");
                } else if (!unique_kernel->enable_backward_explicit) {
                    unique_kernel->enable_backward = v.b;
                }
                continue;
            }
            boolean(o.enable_backward);
        } else if (name == "mode") {
            if (v.kind == OptionValue::Kind::None) continue; // Warp: the global default
            if (v.kind != OptionValue::Kind::String || (v.s != "debug" && v.s != "release")) {
                wrong("\"debug\" or \"release\"");
                continue;
            }
            if (set_here(name, key.location)) o.debug = v.s == "debug";
        } else if (name == "fast_math") {
            boolean(o.fast_math);
        } else if (name == "fuse_fp") {
            boolean(o.fuse_fp);
        } else if (name == "lineinfo") {
            boolean(o.lineinfo);
        } else if (name == "optimization_level") {
            if (v.kind == OptionValue::Kind::None) continue;
            if (v.kind != OptionValue::Kind::Int || v.i < 0 || v.i > 3) {
                wrong("0, 1, 2, 3 or None");
                continue;
            }
            if (set_here(name, key.location)) o.optimization_level = static_cast<int>(v.i);
        } else if (name == "block_dim") {
            // weft sizes CUDA blocks by occupancy unless a launch names its block size.
            if (v.kind != OptionValue::Kind::Int || v.i < 1 || v.i > 1024)
                wrong("an int from 1 to 1024 (threads per CUDA block)");
        } else if (name == "max_unroll" || name == "deterministic_max_records") {
            // weft leaves unrolling to the compiler; it records no atomics.
            if (v.kind != OptionValue::Kind::Int || v.i < 0) wrong("a non-negative int");
        } else if (name == "cuda_output") {
            // weft loads a CUBIN for the device's architecture, else PTX; AOT builds name their targets.
            if (v.kind != OptionValue::Kind::None &&
                !(v.kind == OptionValue::Kind::String && (v.s == "ptx" || v.s == "cubin")))
                wrong("\"ptx\", \"cubin\" or None");
        } else if (name == "strip_hash" || name == "compile_time_trace") {
            ignored_bool(false);
        } else if (name == "default_grid_stride" || name == "enable_mathdx_gemm" || name == "enable_mathdx_solver" ||
                   name == "enable_mathdx_fft") {
            ignored_bool(true); // weft's CUDA entries are always grid-stride loops; it has no tiles
        } else if (name == "deterministic") {
            // Warp 1.19 takes a wp.DeterministicMode (and refuses True and False).
            static const char *const modes[] = {"NOT_GUARANTEED", "RUN_TO_RUN", "GPU_TO_GPU"};
            int mode = -1;
            for (int m = 0; m < 3; ++m)
                if (v.kind == OptionValue::Kind::Enum && v.s == modes[m]) mode = m;
            if (mode < 0)
                wrong("a wp.DeterministicMode value: wp.DeterministicMode.NOT_GUARANTEED, RUN_TO_RUN or GPU_TO_GPU "
                      "(Warp 1.19 refuses True and False here)");
            else if (set_here(name, key.location))
                o.deterministic = mode;
        } else if (name == "cpu_compiler_flags") {
            diags_.error(key.location, "module option 'cpu_compiler_flags' is not supported: weft compiles with its "
                                       "own flags; use \"optimization_level\" and \"fast_math\"");
        } else if (name == "extra_build_options") {
            diags_.error(key.location, "module option 'extra_build_options' is not supported in kernel source: build "
                                       "options come from plugin manifests and the host API "
                                       "(ModuleLoadOptions::build_options)");
        } else {
            diags_.error(key.location,
                         "unknown module option '" + name +
                             "' (expected enable_backward, mode, fast_math, fuse_fp, lineinfo, optimization_level, "
                             "block_dim, max_unroll, cuda_output, strip_hash, compile_time_trace, deterministic, "
                             "deterministic_max_records, default_grid_stride, enable_mathdx_gemm, enable_mathdx_solver, "
                             "enable_mathdx_fft)");
        }
    }
}

void Checker::set_module_options_call(const Expr &call) {
    const auto callee = dotted(*call.children[0]);
    if (!callee || strip_warp(*callee) != "set_module_options") {
        diags_.error(call.location, "only wp.set_module_options(...) may be called at module level");
        return;
    }
    const Expr *options = call.children.size() > 1 ? call.children[1].get() : nullptr;
    const Expr *module = call.children.size() > 2 ? call.children[2].get() : nullptr;
    for (const ast::Keyword &k : call.keywords) {
        if (k.name == "options" && !options) {
            options = k.value.get();
        } else if (k.name == "module" && !module) {
            module = k.value.get();
        } else {
            diags_.error(k.location, "wp.set_module_options() takes options and module, not '" + k.name + "'");
            return;
        }
    }
    if (!options || call.children.size() > 3) {
        diags_.error(call.location, "wp.set_module_options() takes one dict of options: wp.set_module_options({...})");
        return;
    }
    // The options apply to this file's module; module=__name__ says so too.
    if (module && !(module->kind == Expr::Kind::Name && (module->text == "__name__" || module->text == "None"))) {
        diags_.error(module->location, "wp.set_module_options(): weft applies module options to the module of this "
                                       "file; leave out module= (or pass __name__)");
        return;
    }
    module_options(*options, nullptr);
}

void Checker::launch_bounds(const Expr &value, ir::Function &f) {
    // An int (max threads per block) or a tuple (max threads, min blocks per SM): weft keeps the first.
    const Expr *first = &value;
    if (value.kind == Expr::Kind::Tuple) {
        if (value.children.empty() || value.children.size() > 2) {
            diags_.error(value.location, "launch_bounds must be an int or a tuple of one or two ints");
            return;
        }
        first = value.children[0].get();
        for (const ast::ExprPtr &c : value.children)
            if (option_value(*c).kind != OptionValue::Kind::Int || option_value(*c).i < 1) {
                diags_.error(c->location, "launch_bounds values must be positive ints");
                return;
            }
    }
    const OptionValue v = option_value(*first);
    if (v.kind != OptionValue::Kind::Int || v.i < 1 || v.i > 1024) {
        diags_.error(first->location, "launch_bounds must be from 1 to 1024 threads per block");
        return;
    }
    f.launch_bounds = static_cast<int>(v.i);
}

bool Checker::launch_hint(const ast::Keyword &k) {
    const OptionValue v = option_value(*k.value);
    if (k.name == "grid_stride" || k.name == "enable_cuda_smem_spilling") {
        // weft's CUDA entries are always grid-stride loops; it leaves spilling to the compiler.
        if (v.kind != OptionValue::Kind::Bool && v.kind != OptionValue::Kind::None)
            diags_.error(k.value->location, k.name + " must be True, False or None");
        return true;
    }
    if (k.name == "cuda_max_registers" || k.name == "cluster_dim") {
        if (v.kind != OptionValue::Kind::None && (v.kind != OptionValue::Kind::Int || v.i < 1))
            diags_.error(k.value->location, k.name + " must be a positive int or None");
        return true;
    }
    return false;
}

} // namespace weft::kernel::detail
