// Module level: imports, constants, structs, functions, kernels and their
// decorator options; instantiation of @wp.func bodies.
#include "checker.hpp"

#include <algorithm>
#include <map>
#include <cctype>
#include <cmath>
#include <set>

namespace weft::kernel::detail {

using ast::Expr;

namespace {

std::string decorator_text(const ast::Decorator &d) { return "@" + d.qualified; }

} // namespace

Checker::Checker(const ast::Module &module, const Registry &registry, DiagnosticEngine &diags, ir::Module &out)
    : ast_(module), registry_(registry), diags_(diags), out_(out) {}

int Checker::instantiate(const ast::FunctionDef &def, const std::vector<Type> &arg_types, SourceLocation call_site,
                         const ir::Function *adjoint_of, const std::map<std::string, std::string> &functions) {
    std::string key = std::to_string(reinterpret_cast<std::uintptr_t>(&def));
    if (adjoint_of) key += "/adjoint of " + adjoint_of->mangled_name;
    for (const Type &t : arg_types) key += "," + t.code();
    for (const auto &[param, fn] : functions) key += "," + param + "=" + fn;
    if (auto it = instances_.find(key); it != instances_.end()) {
        if (it->second == -2) {
            // Being checked right now: a call cycle.
            std::string chain;
            for (const ast::FunctionDef *f : instantiating_) chain += f->name + " -> ";
            diags_.error(call_site, "recursion is not supported in kernels: " + chain + def.name);
            return -1;
        }
        return it->second;
    }
    if (std::find(instantiating_.begin(), instantiating_.end(), &def) != instantiating_.end()) {
        std::string chain;
        for (const ast::FunctionDef *f : instantiating_) chain += f->name + " -> ";
        diags_.error(call_site, "recursion is not supported in kernels: " + chain + def.name);
        return -1;
    }
    if (instantiating_.size() >= max_call_depth) {
        // Instantiation recurses through the checker: bound it before the stack is.
        diags_.error(call_site, "@wp.func calls nest more than " + std::to_string(max_call_depth) +
                                    " deep (" + instantiating_.front()->name + " -> ... -> " + def.name +
                                    "); flatten the call chain");
        return -1;
    }
    instances_[key] = -2;
    instantiating_.push_back(&def);
    const std::size_t errors_at_start = diags_.error_count();

    ir::Function f;
    f.name = def.name;
    f.location = def.location;
    for (std::size_t i = 0; i < def.params.size(); ++i) {
        if (functions.count(def.params[i].name)) continue;
        f.params.push_back({def.params[i].name, arg_types[i], def.params[i].location});
        // wp.ref[T] (checked as an annotation already): passed by reference.
        const ast::Expr *a = def.params[i].annotation.get();
        f.params.back().reference = a && ref_target(*a);
    }
    const std::size_t value_params = f.params.size();
    std::map<std::string, int> adjoint_params;
    if (adjoint_of) {
        // The inputs' adjoints, written through wp.adjoint[x]: hidden reference parameters.
        f.reference_params_from = static_cast<int>(f.params.size());
        for (const ir::Variable &p : adjoint_of->params) {
            adjoint_params[p.name] = static_cast<int>(f.params.size());
            f.params.push_back({"adj_" + p.name, p.type, p.location});
        }
    }
    std::optional<Type> declared;
    bool ok = true;
    const bool returns_none = def.returns && def.returns->kind == Expr::Kind::Name && def.returns->text == "None";
    if (def.returns && !returns_none) {
        if (const std::optional<std::optional<Type>> t = tuple_annotation(*def.returns)) {
            // tuple[T1, T2, ...]: the values `return a, b` gives, as Warp reads it.
            if (*t) declared = **t;
            else ok = false;
        } else {
            auto a = annotation(*def.returns, true);
            if (!a) ok = false;
            else if (a->kind == Annotation::Kind::Concrete) declared = a->type;
        }
    }
    f.return_type = declared;
    // Overloads and generic instances get distinct C++ names by construction;
    // an instance per bound function too (rk2 with decay, rk2 with growth).
    f.mangled_name = ir::mangle_function(def.name, arg_types);
    for (const auto &[param, fn] : functions)
        f.mangled_name += "_F" + std::to_string(param.size()) + param + "_" + ir::identifier_safe_name(fn);

    // Checked detached: bodies instantiate further functions, which grow
    // out_.functions; this one is appended after its callees (dependency order).
    FunctionScope scope;
    FunctionScope *outer = scope_;
    scope_ = &scope;
    scope.function = &f;
    scope.declared_void = returns_none;
    scope.adjoint_params = std::move(adjoint_params);
    for (std::size_t i = 0; i < value_params; ++i) scope.params[f.params[i].name] = static_cast<int>(i);
    for (const auto &[param, fn] : functions) scope.function_aliases[param] = {fn, static_cast<int>(def.location.line)};
    if (const auto native = native_funcs_.find(&def); native != native_funcs_.end()) {
        f.is_native = true;
        f.native = native->second.forward;
        f.native_adjoint = native->second.adjoint;
        f.native_replay = native->second.replay;
    } else if (ok) {
        std::vector<ir::StmtPtr> body;
        shadow_rebound_params(def, body);
        const std::size_t errors_before = diags_.error_count();
        statements(def.body, body);
        f.body = std::move(body);
        // Only for a body that checked cleanly: a return that failed is reported already.
        if (f.return_type && diags_.error_count() == errors_before && !always_returns(f.body))
            diags_.error(def.location, "function '" + def.name + "' must return " + f.return_type->name() +
                                           " on every path (it can reach its end without a return)");
    }
    out_.functions.push_back(std::move(f));
    const std::size_t index = out_.functions.size() - 1;
    scope_ = outer;
    instantiating_.pop_back();
    note_factory_instance(def, errors_at_start);
    instances_[key] = static_cast<int>(index);
    if (std::find(out_.references.functions.begin(), out_.references.functions.end(),
                  out_.functions[index].mangled_name) == out_.references.functions.end())
        out_.references.functions.push_back(out_.functions[index].mangled_name);
    return static_cast<int>(index);
}

namespace {
/// Names rebound by tuple unpacking or as a for-loop variable anywhere in `body`.
void rebound_names(const std::vector<ast::StmtPtr> &body, std::set<std::string> &out) {
    for (const ast::StmtPtr &s : body) {
        if (s->kind == ast::Stmt::Kind::For && !s->targets.empty() && s->targets[0]->kind == Expr::Kind::Name)
            out.insert(s->targets[0]->text);
        if (s->kind == ast::Stmt::Kind::Assign)
            for (const ast::ExprPtr &t : s->targets)
                if (t->kind == Expr::Kind::Tuple)
                    for (const ast::ExprPtr &c : t->children)
                        if (c->kind == Expr::Kind::Name) out.insert(c->text);
        rebound_names(s->body, out);
        rebound_names(s->orelse, out);
    }
}
/// Names assigned with `name = value` (not `name += value`).
void assigned_names(const std::vector<ast::StmtPtr> &body, std::set<std::string> &out) {
    for (const ast::StmtPtr &s : body) {
        if (s->kind == ast::Stmt::Kind::Assign || s->kind == ast::Stmt::Kind::AnnAssign)
            for (const ast::ExprPtr &t : s->targets)
                if (t->kind == Expr::Kind::Name) out.insert(t->text);
        assigned_names(s->body, out);
        assigned_names(s->orelse, out);
    }
}
} // namespace

// A parameter rebound by unpacking or as a loop variable becomes a local that
// starts as the parameter's value, from the top of the function: every read,
// before and after the rebinding, then sees the one variable Python has.
void Checker::shadow_rebound_params(const ast::FunctionDef &def, std::vector<ir::StmtPtr> &out) {
    std::set<std::string> names, assigned;
    rebound_names(def.body, names);
    // A tile parameter is the caller's tile (by reference, as Warp's): `t += u`
    // changes it, `t = u` binds the name to a tile of the function's own.
    assigned_names(def.body, assigned);
    ir::Function &f = *scope_->function;
    for (std::size_t i = 0; i < f.params.size(); ++i) {
        const std::string name = f.params[i].name;
        if (!names.count(name) && !(f.params[i].type.is_tile() && assigned.count(name))) continue;
        // A wp.ref parameter is the caller's variable: `a, b = b, a` writes through, as `a = b` does.
        if (f.params[i].reference) continue;
        const Type type = f.params[i].type;
        auto value = make(ir::Expr::Kind::Param, type, f.params[i].location);
        value->index = static_cast<int>(i);
        value->name = name;
        const int local = declare_local(name, type, f.params[i].location);
        scope_->params.erase(name);
        auto st = std::make_unique<ir::Stmt>(ir::Stmt::Kind::Declare, f.params[i].location);
        st->index = local;
        st->value = std::move(value);
        out.push_back(std::move(st));
    }
}

bool Checker::always_returns(const std::vector<ir::StmtPtr> &body) {
    for (const ir::StmtPtr &s : body) {
        if (s->kind == ir::Stmt::Kind::Return) return true;
        if (s->kind == ir::Stmt::Kind::If && always_returns(s->body) && always_returns(s->orelse)) return true;
        // `while True:` without a break never falls through.
        if (s->kind == ir::Stmt::Kind::While && s->cond && s->cond->kind == ir::Expr::Kind::Literal && s->cond->value &&
            !s->cond->value->int_components.empty() && s->cond->value->int_components[0] != 0 && !breaks(s->body))
            return true;
    }
    return false;
}

bool Checker::breaks(const std::vector<ir::StmtPtr> &body) {
    for (const ir::StmtPtr &s : body) {
        if (s->kind == ir::Stmt::Kind::Break) return true;
        if (s->kind == ir::Stmt::Kind::If && (breaks(s->body) || breaks(s->orelse))) return true;
    }
    return false;
}

void Checker::class_constants(const ast::ClassDef &c) {
    enum class Kind { Holder, IntEnum, IntFlag } kind = Kind::Holder;
    const bool fields = std::any_of(c.body.begin(), c.body.end(), [](const ast::StmtPtr &s) {
        return s->kind == ast::Stmt::Kind::AnnAssign && !s->value;
    });
    if (!c.decorators.empty() || fields) {
        diags_.error(c.location, "class '" + c.name + "': classes other than @wp.struct are not supported in kernels");
        return;
    }
    for (const ast::ExprPtr &b : c.bases) {
        const auto base = dotted(*b);
        const std::string last = base ? base->substr(base->rfind('.') + 1) : "";
        if (last == "IntEnum" || last == "Enum") kind = Kind::IntEnum;
        else if (last == "IntFlag" || last == "Flag") kind = Kind::IntFlag;
        else if (last != "object") {
            diags_.error(b->location, "class '" + c.name + "': only @wp.struct classes, enums (IntEnum, IntFlag) and "
                                      "classes holding constants are supported in kernels");
            return;
        }
    }
    ir::IntValue next = 1; // enum.auto(): 1, 2, 3 ... (IntEnum) or 1, 2, 4 ... (IntFlag)
    for (const ast::StmtPtr &s : c.body) {
        if (s->kind == ast::Stmt::Kind::Pass || (s->kind == ast::Stmt::Kind::Expr && s->value->kind == Expr::Kind::String))
            continue;
        const bool assign = (s->kind == ast::Stmt::Kind::Assign || s->kind == ast::Stmt::Kind::AnnAssign) &&
                            s->targets.size() == 1 && s->targets[0]->kind == Expr::Kind::Name && s->value;
        if (!assign) {
            diags_.error(s->location, "class '" + c.name + "' (constants): its body holds only NAME = value");
            continue;
        }
        const std::string name = c.name + "." + s->targets[0]->text;
        const Expr *value = s->value.get();
        bool explicit_constant = false;
        std::optional<ir::ConstantValue> v;
        Value::Literal literal = Value::Literal::Int;
        if (value->kind == Expr::Kind::Call) {
            const auto callee = dotted(*value->children[0]);
            const std::string called = callee ? callee->substr(callee->rfind('.') + 1) : "";
            if (called == "auto" && kind != Kind::Holder && value->children.size() == 1) {
                v = ir::ConstantValue{Type::scalar(Scalar::Int32), {static_cast<double>(next)}, {next}};
            } else if (callee && strip_warp(*callee) == "constant" && value->children.size() == 2) {
                explicit_constant = true;
                value = value->children[1].get();
            }
        }
        const std::size_t errors = diags_.error_count();
        if (!v) v = evaluate_constant(*value, literal);
        if (!v) {
            failed_constants_.insert(name);
            if (diags_.error_count() == errors)
                diags_.error(value->location, "'" + name + "' must be a constant expression");
            continue;
        }
        if (kind != Kind::Holder) {
            // Enum members are ints, as Warp passes them.
            if (!v->type.is_integer() || v->int_components.empty() || !ir::fits(v->int_components[0], Scalar::Int32)) {
                diags_.error(value->location, "enum member '" + name + "' must be an int32 value");
                failed_constants_.insert(name);
                continue;
            }
            const ir::IntValue x = v->int_components[0];
            v = ir::ConstantValue{Type::scalar(Scalar::Int32), {static_cast<double>(x)}, {x}};
            literal = Value::Literal::None;
            next = x + 1;
            if (kind == Kind::IntFlag) // the next power of two above x
                for (next = 1; next <= x; next *= 2) {
                }
        }
        if (constants_.count(name)) {
            diags_.error(s->location, "'" + name + "' is defined twice");
            continue;
        }
        // An enum member is an int32 constant; a holder's plain literal converts like a literal.
        const bool implicit = kind == Kind::Holder && !explicit_constant;
        constants_[name] = ModuleConstant{*v, implicit, implicit ? literal : Value::Literal::None, s->location};
        out_.constants.push_back({name, *v, s->location});
        if (kind != Kind::Holder) ++enum_sizes_[c.name];
    }
}

void Checker::note_factory_instance(const ast::FunctionDef &def, std::size_t errors_before) {
    if (!def.factory_call.empty() && diags_.error_count() != errors_before)
        diags_.note(def.factory_call_location, "in '" + def.name + "', made by `" + def.factory_call + "` here");
}

namespace {
/// Warp's kernel key: the decorator's name= (when it is a valid one), else the function's name.
std::string kernel_key(const ast::FunctionDef &def) {
    for (const ast::Decorator &d : def.decorators)
        if (d.name == "kernel")
            for (const ast::Keyword &k : d.keywords)
                if (k.name == "name" && k.value->kind == Expr::Kind::String && is_identifier(k.value->text))
                    return k.value->text;
    return def.name;
}
} // namespace

void Checker::check_kernel(const ast::FunctionDef &def, const std::vector<Type> &param_types, bool instance) {
    ir::Function f;
    f.name = def.name;
    // Warp's kernel key: the decorator's name=, else the function's name. The
    // mangled name (and through it the generated code and the module hash)
    // is derived from it, so a kernel whose key alone changed is a new kernel.
    const std::string key = kernel_key(def);
    f.mangled_name = instance ? ir::mangle_kernel(key, param_types) : ir::mangle_kernel(key);
    f.is_kernel = true;
    f.location = def.location;
    const ast::Decorator &d = *std::find_if(def.decorators.begin(), def.decorators.end(),
                                            [](const ast::Decorator &x) { return x.name == "kernel"; });
    std::string abi = "warp";
    bool unique = false;
    const ast::Keyword *module_options_at = nullptr, *bounds_at = nullptr, *registers_at = nullptr;
    for (const ast::Keyword &k : d.keywords) {
        if (k.name == "enable_backward") {
            if (k.value->kind != Expr::Kind::Bool) {
                diags_.error(k.value->location, "enable_backward must be True or False");
                continue;
            }
            f.enable_backward = k.value->bool_value;
            f.enable_backward_explicit = true;
        } else if (k.name == "entry_point_abi") {
            if (k.value->kind != Expr::Kind::String) {
                diags_.error(k.value->location, "entry_point_abi must be 'warp' or 'external_constant_params'");
                continue;
            }
            abi = k.value->text;
            if (abi == "warp") f.abi = ir::EntryPointAbi::Warp;
            else if (abi == "external_constant_params") f.abi = ir::EntryPointAbi::ExternalConstantParams;
            else
                diags_.error(k.value->location,
                             "entry_point_abi must be 'warp' or 'external_constant_params', got '" + abi + "'");
        } else if (k.name == "name") {
            if (k.value->kind != Expr::Kind::String || !is_identifier(k.value->text)) {
                diags_.error(k.value->location, "name= must be a valid C++ identifier, got " +
                                                    (k.value->kind == Expr::Kind::String ? "'" + k.value->text + "'"
                                                                                          : std::string("a non-string")));
                continue;
            }
            f.entry_name = k.value->text;
        } else if (k.name == "module") {
            // Warp's module= grouping: "unique" makes the kernel a module of its
            // own; other names are accepted, weft modules are files or API names.
            if (k.value->kind == Expr::Kind::String && k.value->text == "unique") unique = true;
        } else if (k.name == "module_options") {
            module_options_at = &k;
        } else if (k.name == "launch_bounds") {
            launch_bounds(*k.value, f);
            bounds_at = &k;
        } else if (!launch_hint(k)) {
            diags_.error(k.location, "unknown kernel option '" + k.name +
                                         "' (expected enable_backward, entry_point_abi, name, module, module_options, "
                                         "launch_bounds, grid_stride, cuda_max_registers, cluster_dim, "
                                         "enable_cuda_smem_spilling)");
        }
    }
    for (const ast::Keyword &k : d.keywords)
        if (k.name == "cuda_max_registers" && !(k.value->kind == Expr::Kind::Name && k.value->text == "None"))
            registers_at = &k;
    if (bounds_at && registers_at) // Warp refuses the pair too
        diags_.error(registers_at->location, "cuda_max_registers and launch_bounds cannot be specified together");
    // As in Warp, module_options need module="unique": the kernel is then its
    // own module (split_unique_kernels), and its options are that module's alone.
    f.unique = unique;
    if (module_options_at) {
        if (!unique)
            diags_.error(module_options_at->location,
                         "module_options requires module=\"unique\" (as in Warp); use wp.set_module_options({...}) "
                         "for the module of this file");
        else
            module_options(*module_options_at->value, &f);
    }
    if (f.abi == ir::EntryPointAbi::ExternalConstantParams && !(f.enable_backward_explicit && !f.enable_backward))
        diags_.error(d.location, "entry_point_abi='external_constant_params' requires an explicit enable_backward=False");

    if (instance && f.abi == ir::EntryPointAbi::ExternalConstantParams) {
        diags_.error(d.location, "kernel '" + def.name + "' is generic: its instances cannot use "
                                 "entry_point_abi='external_constant_params' (each needs its own entry point)");
        return;
    }
    for (std::size_t i = 0; i < def.params.size(); ++i) f.params.push_back({def.params[i].name, param_types[i], def.params[i].location});

    FunctionScope scope;
    FunctionScope *outer = scope_;
    scope_ = &scope;
    scope.function = &f;
    for (std::size_t i = 0; i < f.params.size(); ++i) scope.params[f.params[i].name] = static_cast<int>(i);
    std::vector<ir::StmtPtr> body;
    shadow_rebound_params(def, body);
    statements(def.body, body);
    f.body = std::move(body);
    f.uses_tid = f.uses_tid || f.tid_dims > 0;
    scope_ = outer;
    if (f.writes_through_refs && f.enable_backward && out_.options.enable_backward.value_or(true))
        diags_.error(def.location, "kernel '" + def.name + "' calls a function with wp.ref parameters, which have no "
                                   "adjoint (as in Warp): declare it @wp.kernel(enable_backward=False)");
    out_.functions.push_back(std::move(f));
}

void Checker::run() {
    read_imports();
    define_warp_constants();
    collect_option_dicts();
    if (!declare_in_source_order()) return; // stopped at the error limit
    replace_redefined_funcs();
    replace_redefined_kernels();
    check_definitions();
    kernel_overloads();
    attach_custom_gradients();
    check_call_depth();
}

void Checker::read_imports() {
    // Imports: the aliases under which weft's namespace and typing.Any are reachable.
    for (const ast::Import &imp : ast_.imports) {
        if (imp.module == "warp") {
            if (imp.names.empty()) warp_aliases_.insert(imp.alias);
        } else if (imp.module == "warp.types") {
            // from warp.types import vector, matrix
            for (const auto &[name, alias] : imp.names)
                if (name == "vector" || name == "matrix") warp_types_imports_[alias] = "types." + name;
        } else if (imp.module == "typing") {
            if (imp.names.empty()) typing_aliases_.insert(imp.alias);
            for (const auto &[name, alias] : imp.names)
                if (name == "Any") any_names_.insert(alias);
        }
        // Other imports (numpy, math) serve host code and are ignored here.
    }
    out_.warp_alias = warp_aliases_.empty() ? "" : *warp_aliases_.begin();
    warp_aliases_.insert("wp"); // the prefix is optional, and wp. is always understood
    warp_aliases_.insert("warp");
    typing_aliases_.insert("typing"); // typing.Any too (the bundled warp.math says so without importing)
}

void Checker::define_warp_constants() {
    // Warp's math constants (wp.pi, ...), as float literals: they convert like
    // 3.14159... Warp 1.19 spells each in lower and upper case (wp.PI, wp.LN2).
    for (const auto &[cname, value] : std::initializer_list<std::pair<std::string, double>>{
             {"pi", 3.14159265358979323846}, {"tau", 6.28318530717958647692}, {"half_pi", 1.57079632679489661923},
             {"e", 2.71828182845904523536}, {"phi", 1.61803398874989484820}, {"ln2", 0.69314718055994530942},
             {"ln10", 2.30258509299404568402}, {"log2e", 1.44269504088896340736}, {"log10e", 0.43429448190325182765},
             {"inf", HUGE_VAL}, {"nan", NAN}}) {
        const ModuleConstant c{ir::ConstantValue{Type::scalar(Scalar::Float32), {value}, {0}}, true,
                               Value::Literal::Float, {}};
        std::string upper = cname;
        for (char &ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        warp_constants_[cname] = c;
        warp_constants_[upper] = c;
    }
}

void Checker::collect_option_dicts() {
    // Dicts at module level are module options, passed by name (wp.set_module_options(OPTIONS)).
    for (const ast::TopLevelAssign &a : ast_.assignments)
        if (a.value && a.value->kind == Expr::Kind::Dict && !a.annotation) dict_constants_[a.name] = a.value.get();
    for (const ast::ExprPtr &call : ast_.module_options) set_module_options_call(*call);
}

bool Checker::declare_in_source_order() {
    // Constants and structs, in source order (a struct may use an earlier one).
    for (const auto &[kind, index] : ast_.order) {
        if (diags_.at_limit()) return false;
        if (kind == 'a') {
            module_assignment(ast_.assignments[index]);
        } else if (kind == 'c') {
            const ast::ClassDef &c = ast_.classes[index];
            const bool is_struct = std::any_of(c.decorators.begin(), c.decorators.end(),
                                               [](const ast::Decorator &d) { return d.name == "struct"; });
            if (is_struct) struct_definition(c);
            else class_constants(c);
        } else if (kind == 'f') {
            function_declaration(ast_.functions[index]);
        }
    }
    return true;
}

void Checker::module_assignment(const ast::TopLevelAssign &a) {
    const Expr *value = a.value.get();
    bool explicit_constant = false;
    if (value && value->kind == Expr::Kind::Call) {
        auto callee = dotted(*value->children[0]);
        if (callee && strip_warp(*callee) == "constant") {
            explicit_constant = true;
            if (value->children.size() != 2 || !value->keywords.empty()) {
                diags_.error(value->location, "wp.constant() takes exactly one value");
                return;
            }
            value = value->children[1].get();
        }
    }
    if (non_constant_assignment(a, value, explicit_constant)) return;
    module_constant(a, value, explicit_constant);
}

bool Checker::non_constant_assignment(const ast::TopLevelAssign &a, const Expr *value, bool explicit_constant) {
    // SNIPPET = """...""": the C++ body of a @wp.func_native.
    if (value && !explicit_constant && value->kind == Expr::Kind::String) {
        string_constants_[a.name] = value;
        return true;
    }
    // `dtype = wp.float32`, `f = wp.sin`: aliases, not values.
    if (value && !explicit_constant && !a.annotation &&
        (value->kind == Expr::Kind::Name || value->kind == Expr::Kind::Attribute)) {
        if (auto target = dotted(*value)) {
            const std::string bare = strip_warp(*target);
            if (auto t = type_named(*target)) {
                type_aliases_[a.name] = *t;
                return true;
            }
            const bool builtin = !registry_.overloads(bare).empty() || ir::parse_intrinsic(bare).has_value() ||
                                 (bare == *target && function_aliases_.count(bare));
            if (builtin && !constants_.count(bare) && !warp_constants_.count(bare)) {
                function_aliases_[a.name] = function_aliases_.count(bare) ? function_aliases_[bare] : bare;
                return true;
            }
        }
    }
    // `vec5 = wp.types.vector(length=5, dtype=float)`: a user vector or matrix type.
    if (value && value->kind == Expr::Kind::Call && !a.annotation)
        if (auto callee = dotted(*value->children[0])) {
            const std::string b = warp_types_name(*callee);
            if (b == "types.vector" || b == "types.matrix") {
                if (auto t = user_vector_type(*value, b == "types.matrix")) type_aliases_[a.name] = *t;
                else failed_constants_.insert(a.name);
                return true;
            }
        }
    if (value && value->kind == Expr::Kind::Dict && dict_constants_.count(a.name)) return true;
    // `T = (1.0, 2.5)`: a tuple of constants, which Warp reads in wp.static() only.
    if (value && value->kind == Expr::Kind::Tuple && !explicit_constant && !a.annotation) {
        bool ok = true;
        for (const ast::ExprPtr &element : value->children) {
            Value::Literal literal;
            const std::size_t errors = diags_.error_count();
            if (!evaluate_constant(*element, literal)) {
                if (diags_.error_count() == errors)
                    diags_.error(element->location, "module-level tuple '" + a.name + "' holds constants (literals, "
                                                    "module constants and arithmetic on them)");
                ok = false;
                break;
            }
        }
        if (ok) tuple_constants_[a.name] = value;
        else failed_constants_.insert(a.name);
        return true;
    }
    if (value && (value->kind == Expr::Kind::Dict || value->kind == Expr::Kind::List)) {
        expr(*value); // says where dicts and lists belong
        failed_constants_.insert(a.name);
        return true;
    }
    return false;
}

void Checker::module_constant(const ast::TopLevelAssign &a, const Expr *value, bool explicit_constant) {
    Value::Literal literal;
    const std::size_t errors = diags_.error_count();
    auto c = value ? evaluate_constant(*value, literal) : std::nullopt;
    if (!c) {
        failed_constants_.insert(a.name); // reported: later uses stay silent
        if (diags_.error_count() == errors)
            diags_.error(a.location, "module-level '" + a.name + "' must be a constant expression (a literal, "
                                     "wp.constant(...), or arithmetic on constants)");
        return;
    }
    if (a.annotation) {
        auto t = concrete_type(*a.annotation);
        if (t && t->is_scalar() && c->type.is_scalar()) c->type = *t;
    }
    if (auto prev = constants_.find(a.name); prev != constants_.end())
        diags_.error(a.location, "constant '" + a.name + "' is defined twice (first at line " +
                                     std::to_string(prev->second.location.line) + ")");
    ModuleConstant mc{*c, !explicit_constant, explicit_constant ? Value::Literal::None : literal, a.location};
    constants_[a.name] = mc;
    out_.constants.push_back({a.name, *c, a.location});
}

void Checker::struct_definition(const ast::ClassDef &c) {
    if (!c.bases.empty()) diags_.error(c.bases[0]->location, "@wp.struct classes cannot have base classes");
    std::vector<StructLayout::Field> fields;
    bool ok = true;
    for (const ast::StmtPtr &s : c.body) {
        if (s->kind == ast::Stmt::Kind::Pass ||
            (s->kind == ast::Stmt::Kind::Expr && s->value->kind == Expr::Kind::String))
            continue;
        if (s->kind != ast::Stmt::Kind::AnnAssign || s->targets.empty() || s->targets[0]->kind != Expr::Kind::Name) {
            diags_.error(s->location, "a @wp.struct body holds only annotated fields: name: type");
            ok = false;
            continue;
        }
        if (s->value) diags_.error(s->value->location, "struct fields cannot have default values");
        auto t = concrete_type(*s->annotation);
        if (!t) {
            ok = false;
            continue;
        }
        if (std::any_of(fields.begin(), fields.end(),
                        [&](const StructLayout::Field &f) { return f.name == s->targets[0]->text; })) {
            diags_.error(s->location, "field '" + s->targets[0]->text + "' is declared twice");
            continue;
        }
        fields.push_back({s->targets[0]->text, *t, 0});
    }
    if (structs_.count(c.name)) diags_.error(c.location, "struct '" + c.name + "' is defined twice");
    if (!ok) return;
    Type t = Type::structure(StructLayout::make(c.name, std::move(fields)));
    structs_.emplace(c.name, t);
    out_.structs.push_back({c.name, t, c.location});
}

void Checker::function_declaration(const ast::FunctionDef &f) {
    std::vector<const ast::Decorator *> known;
    if (std::any_of(f.decorators.begin(), f.decorators.end(),
                    [](const ast::Decorator &d) { return d.name == "overload"; })) {
        overload_stubs_.push_back(&f);
        return;
    }
    for (const ast::Decorator &d : f.decorators) {
        if (d.name == "kernel" || d.name == "func") {
            known.push_back(&d);
        } else if (d.name == "func_native") {
            known.push_back(&d);
            if (!native_decorator(f, d)) invalid_functions_.insert(f.name);
        } else if (d.name == "func_grad" || d.name == "func_replay") {
            if (!d.called || d.args.size() != 1 || d.args[0]->kind != Expr::Kind::Name || !d.keywords.empty()) {
                diags_.error(d.location,
                             "@wp." + d.name + " takes the @wp.func it belongs to: @wp." + d.name + "(my_func)");
                continue;
            }
            auto &table = d.name == "func_grad" ? func_grads_ : func_replays_;
            const std::string &target = d.args[0]->text;
            if (table.count(target))
                diags_.error(d.location, "'" + target + "' already has a @wp." + d.name + " (line " +
                                             std::to_string(table[target]->location.line) + ")");
            else
                table[target] = &f;
        } else {
            diags_.error(d.location, "unsupported decorator '" + decorator_text(d) + "'");
        }
    }
    if (known.empty()) invalid_functions_.insert(f.name);
    if (known.empty() && f.decorators.empty())
        diags_.error(f.location, "function '" + f.name +
                                     "' has no @wp.func or @wp.kernel decorator; host code is not supported in a "
                                     "kernel module");
    if (known.size() > 1)
        diags_.error(f.location,
                     "function '" + f.name + "' has more than one of @wp.kernel, @wp.func and @wp.func_native");
    if (known.size() == 1 && known[0]->name == "func_native") {
        if (native_funcs_.count(&f)) funcs_[f.name].push_back(&f);
    } else if (known.size() == 1 && known[0]->name == "func") {
        func_options(*known[0]);
        funcs_[f.name].push_back(&f);
    }
}

void Checker::func_options(const ast::Decorator &d) {
    // Warp's options: name= (the function's key in Warp's registry; calls
    // still use the Python name), module= (grouping) and inline= (a hint);
    // checked, and without effect: a weft module is the file, and the
    // compiler decides inlining.
    if (d.called && !d.args.empty())
        diags_.error(d.args[0]->location, "@wp.func takes options by keyword only (name=, module=, inline=)");
    for (const ast::Keyword &k : d.keywords) {
        const bool ok = (k.name == "name" && k.value->kind == Expr::Kind::String && is_identifier(k.value->text)) ||
                        (k.name == "module" && k.value->kind == Expr::Kind::String) ||
                        (k.name == "inline" && (k.value->kind == Expr::Kind::Bool ||
                                                (k.value->kind == Expr::Kind::Name && k.value->text == "None")));
        if (ok) continue;
        if (k.name == "name" || k.name == "module" || k.name == "inline")
            diags_.error(k.value->location, "@wp.func(" + k.name + "=...) takes " +
                                                (k.name == "name"     ? std::string("an identifier string")
                                                 : k.name == "module" ? std::string("a module name string")
                                                                      : std::string("True, False or None")));
        else
            diags_.error(k.location, "unknown @wp.func option '" + k.name + "' (expected name, module, inline)");
    }
}

void Checker::replace_redefined_funcs() {
    // Overloads with identical concrete parameter types are redefinitions: as
    // in Warp (Python rebinds the name before any kernel is built), the last
    // one is used everywhere, with a warning.
    for (auto &[name, defs] : funcs_) {
        for (std::size_t i = 0; i < defs.size(); ++i)
            for (const ast::Param &p : defs[i]->params)
                if (!p.annotation)
                    diags_.error(p.location,
                                 "parameter '" + p.name + "' of function '" + name + "' needs a type annotation");
        for (std::size_t i = 0; i < defs.size(); ++i)
            for (std::size_t j = i + 1; j < defs.size(); ++j) {
                if (defs[i]->params.size() != defs[j]->params.size()) continue;
                bool same = true;
                for (std::size_t k = 0; k < defs[i]->params.size() && same; ++k) {
                    auto a = defs[i]->params[k].annotation ? dotted(*defs[i]->params[k].annotation) : std::nullopt;
                    auto b = defs[j]->params[k].annotation ? dotted(*defs[j]->params[k].annotation) : std::nullopt;
                    same = a && b && strip_warp(*a) == strip_warp(*b);
                }
                if (same) {
                    diags_.warning(defs[j]->location, "function '" + name + "' is redefined with the same parameter "
                                                          "types (first at line " +
                                                          std::to_string(defs[i]->location.line) +
                                                          "); the last definition is used, as in Warp");
                    replaced_funcs_.insert(defs[i]);
                }
            }
        defs.erase(std::remove_if(defs.begin(), defs.end(),
                                  [&](const ast::FunctionDef *d) { return replaced_funcs_.count(d) > 0; }),
                   defs.end());
    }
}

void Checker::replace_redefined_kernels() {
    // A kernel defined again under the same name: Python binds the name to
    // the last definition, and that is the kernel the module offers (Warp's
    // module.kernels[key] is the last one too). Warp 1.19 also compiles the
    // earlier one, which a Python variable may still hold; a C++ application
    // cannot hold it, so weft compiles only the last, and says so.
    std::map<std::string, const ast::FunctionDef *> last_kernel;
    for (const auto &[kind, index] : ast_.order) {
        if (kind != 'f') continue;
        const ast::FunctionDef &f = ast_.functions[index];
        const auto is = [&](const char *name) {
            return std::any_of(f.decorators.begin(), f.decorators.end(),
                               [&](const ast::Decorator &d) { return d.name == name; });
        };
        if (!is("kernel") || is("func")) continue;
        if (std::find(overload_stubs_.begin(), overload_stubs_.end(), &f) != overload_stubs_.end()) continue;
        const ast::FunctionDef *&last = last_kernel[kernel_key(f)];
        if (last) {
            diags_.warning(f.location, (last->name == f.name ? "kernel '" + f.name + "' is defined again"
                                                             : "kernel '" + f.name + "' has the key '" + kernel_key(f) +
                                                                   "' of kernel '" + last->name + "'") +
                                           " (previous definition at line " + std::to_string(last->location.line) +
                                           "); as in Python and Warp, the key means the last definition, which "
                                           "is the one the module compiles");
            replaced_funcs_.insert(last);
        }
        last = &f;
    }
}

void Checker::check_definitions() {
    // Every function with concrete parameters is checked even if unused; generic ones when called.
    for (const auto &[kind, index] : ast_.order) {
        if (kind != 'f' || diags_.at_limit()) continue;
        const ast::FunctionDef &f = ast_.functions[index];
        if (replaced_funcs_.count(&f)) continue; // a later definition took its place
        if (std::find(overload_stubs_.begin(), overload_stubs_.end(), &f) != overload_stubs_.end()) continue;
        const bool is_kernel = std::any_of(f.decorators.begin(), f.decorators.end(),
                                           [](const ast::Decorator &d) { return d.name == "kernel"; });
        const bool native = native_funcs_.count(&f) > 0;
        const bool is_func = native || std::any_of(f.decorators.begin(), f.decorators.end(),
                                                   [](const ast::Decorator &d) { return d.name == "func"; });
        if (!is_kernel) check_param_defaults(f);
        if (is_kernel && !is_func) {
            if (out_.kernel(f.name) || generic_kernels_.count(f.name))
                diags_.error(f.location, "kernel '" + f.name + "' is defined twice");
            const std::size_t errors = diags_.error_count();
            kernel_definition(f);
            note_factory_instance(f, errors);
        } else if (is_func && !is_kernel) {
            instantiate_concrete(f, native);
        }
    }
}

void Checker::check_param_defaults(const ast::FunctionDef &f) {
    bool defaults = false;
    for (const ast::Param &p : f.params) {
        if (!p.default_value) {
            if (defaults) // Python's own rule
                diags_.error(p.location, "parameter '" + p.name + "' without a default follows one with a default");
            continue;
        }
        defaults = true;
        if (!constant_default(*p.default_value)) {
            diags_.error(p.default_value->location,
                         "the default of parameter '" + p.name + "' must be a constant: a literal, a module "
                         "constant, or a type constructed from them (wp.vec3(0.0, 1.0, 0.0))");
        } else {
            (void)default_argument(p); // a name that is no constant is reported here, once
        }
    }
}

void Checker::instantiate_concrete(const ast::FunctionDef &f, bool native) {
    std::vector<Type> types;
    bool concrete = true;
    for (const ast::Param &p : f.params) {
        if (!p.annotation) {
            concrete = false;
            break;
        }
        const std::size_t errors = diags_.error_count();
        auto a = annotation(*p.annotation, true);
        if (!a || a->kind != Annotation::Kind::Concrete) {
            concrete = false;
            if (diags_.error_count() != errors) break;
            if (native) // the snippet is C++ for one signature
                diags_.error(p.annotation->location, "@wp.func_native function '" + f.name + "': parameter '" + p.name +
                                                         "' needs a concrete type");
            continue;
        }
        types.push_back(a->type);
    }
    if (concrete) instantiate(f, types, f.location);
}

namespace {

void collect_calls(const ir::Expr &e, std::vector<int> &out) {
    if (e.kind == ir::Expr::Kind::Call && e.index >= 0) out.push_back(e.index);
    for (const ir::ExprPtr &a : e.args)
        if (a) collect_calls(*a, out);
}

void collect_calls(const std::vector<ir::StmtPtr> &body, std::vector<int> &out) {
    for (const ir::StmtPtr &s : body) {
        for (const ir::Expr *e : {s->target.get(), s->value.get(), s->cond.get()})
            if (e) collect_calls(*e, out);
        for (const ir::ExprPtr &a : s->args)
            if (a) collect_calls(*a, out);
        collect_calls(s->body, out);
        collect_calls(s->orelse, out);
    }
}

} // namespace

void Checker::check_call_depth() {
    // Every function is a C++ template, and a call chain instantiates one
    // inside the next: Clang and NVRTC stop at 1,024 ("recursive template
    // instantiation exceeded maximum depth"), so the front end says it first,
    // and `weft check` agrees with `weft build` (issue 18).
    const std::vector<ir::Function> &fs = out_.functions;
    std::vector<std::vector<int>> callees(fs.size());
    for (std::size_t i = 0; i < fs.size(); ++i) {
        collect_calls(fs[i].body, callees[i]);
        std::sort(callees[i].begin(), callees[i].end());
        callees[i].erase(std::unique(callees[i].begin(), callees[i].end()), callees[i].end());
    }
    // Longest chain below each function, without recursion (cycles are errors already).
    std::vector<std::size_t> depth(fs.size(), 0);
    std::vector<int> via(fs.size(), -1);
    std::vector<char> state(fs.size(), 0); // 1 on the stack, 2 done
    for (std::size_t root = 0; root < fs.size(); ++root) {
        if (state[root]) continue;
        std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
        state[root] = 1;
        while (!stack.empty()) {
            auto &[f, next] = stack.back();
            if (next < callees[f].size()) {
                const int c = callees[f][next++];
                if (c < 0 || static_cast<std::size_t>(c) >= fs.size() || state[static_cast<std::size_t>(c)]) continue;
                state[static_cast<std::size_t>(c)] = 1;
                stack.push_back({static_cast<std::size_t>(c), 0});
                continue;
            }
            depth[f] = 1;
            for (int c : callees[f])
                if (c >= 0 && static_cast<std::size_t>(c) < fs.size() && state[static_cast<std::size_t>(c)] == 2 &&
                    depth[static_cast<std::size_t>(c)] + 1 > depth[f]) {
                    depth[f] = depth[static_cast<std::size_t>(c)] + 1;
                    via[f] = c;
                }
            state[f] = 2;
            stack.pop_back();
        }
    }
    for (std::size_t i = 0; i < fs.size(); ++i) {
        if (!fs[i].is_kernel || depth[i] <= max_call_chain) continue;
        std::vector<std::string> names{fs[i].name};
        for (int f = via[i]; f >= 0; f = via[static_cast<std::size_t>(f)]) names.push_back(fs[static_cast<std::size_t>(f)].name);
        std::string chain;
        for (std::size_t k = 0; k < names.size(); ++k) {
            if (k == 3 && names.size() > 5) {
                chain += " -> ...";
                k = names.size() - 2;
                continue;
            }
            chain += (k ? " -> " : "") + names[k];
        }
        diags_.error(fs[i].location, "kernel '" + fs[i].name + "' calls @wp.func functions " + std::to_string(depth[i] - 1) +
                                         " deep (" + chain + "); at most " + std::to_string(max_call_chain - 1) +
                                         ": each call is one level of C++ template instantiation");
    }
}

void Checker::attach_custom_gradients() {
    for (const auto *table : {&func_grads_, &func_replays_})
        for (const auto &[target, def] : *table)
            if (!funcs_.count(target))
                diags_.error(def->location, "@wp." + std::string(table == &func_grads_ ? "func_grad" : "func_replay") +
                                                "(" + target + "): '" + target + "' is not a @wp.func of this module");
    // Every instance of a function with a custom gradient or replay gets its own
    // instance of it (instantiating appends to out_.functions: index, not reference).
    const std::size_t count = out_.functions.size();
    for (std::size_t i = 0; i < count && !diags_.at_limit(); ++i) {
        if (out_.functions[i].is_kernel) continue;
        const ir::Function forward = [&] {
            ir::Function copy;
            copy.name = out_.functions[i].name;
            copy.mangled_name = out_.functions[i].mangled_name;
            copy.params = out_.functions[i].params;
            copy.return_type = out_.functions[i].return_type;
            return copy;
        }();
        std::vector<Type> types;
        for (const ir::Variable &p : forward.params) types.push_back(p.type);
        if (auto g = func_grads_.find(forward.name); g != func_grads_.end()) {
            const ast::FunctionDef &def = *g->second;
            const std::size_t expected = forward.params.size() + (forward.return_type ? 1 : 0);
            std::vector<Type> grad_types = types;
            if (forward.return_type) grad_types.push_back(*forward.return_type);
            if (def.params.size() != expected) {
                std::string names;
                for (const ir::Variable &p : forward.params) names += p.name + ", ";
                diags_.error(def.location, "@wp.func_grad function '" + def.name + "' must take the parameters of '" +
                                               forward.name + "' (" + names +
                                               (forward.return_type ? "then the adjoint of its result" : "nothing else") +
                                               "): " + std::to_string(expected) + " parameters, it has " +
                                               std::to_string(def.params.size()));
            } else {
                const int index = instantiate(def, grad_types, def.location, &forward);
                if (index >= 0) out_.functions[i].custom_adjoint = out_.functions[static_cast<std::size_t>(index)].mangled_name;
            }
        }
        if (auto r = func_replays_.find(forward.name); r != func_replays_.end()) {
            const ast::FunctionDef &def = *r->second;
            if (def.params.size() != forward.params.size()) {
                diags_.error(def.location, "@wp.func_replay function '" + def.name + "' must take the parameters of '" +
                                               forward.name + "' (" + std::to_string(forward.params.size()) + ")");
                continue;
            }
            const int index = instantiate(def, types, def.location);
            if (index < 0) continue;
            const ir::Function &replay = out_.functions[static_cast<std::size_t>(index)];
            if (replay.return_type != forward.return_type)
                diags_.error(def.location, "@wp.func_replay function '" + def.name + "' must return what '" + forward.name +
                                               "' returns (" + (forward.return_type ? forward.return_type->name() : "nothing") + ")");
            else
                out_.functions[i].custom_replay = replay.mangled_name;
        }
    }
}

} // namespace weft::kernel::detail
