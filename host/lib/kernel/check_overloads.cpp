// Generic kernels (a parameter typed Any, wp.Scalar, wp.Float, wp.Int or an
// array of Any) and their instances. Warp instantiates a generic kernel for
// each wp.overload declaration and, besides, for each new argument signature
// it is launched with. weft compiles a module when it loads, so it makes the
// declared instances only: wp.overload(kernel, [types]), wp.overload(kernel,
// {name: type}) and @wp.overload stubs, in source order. A launch picks the
// instance whose parameter types equal the arguments'.
#include "checker.hpp"

#include <algorithm>

namespace weft::kernel::detail {

using ast::Expr;

namespace {

std::string signature_of(const std::vector<Type> &types) {
    std::string out;
    for (const Type &t : types) out += (out.empty() ? "" : ", ") + t.name();
    return out;
}

} // namespace

void Checker::kernel_definition(const ast::FunctionDef &def) {
    std::vector<Annotation> params;
    bool ok = true, generic = false;
    for (const ast::Param &p : def.params) {
        if (!p.annotation) {
            diags_.error(p.location, "kernel parameter '" + p.name + "' needs a type annotation");
            ok = false;
            continue;
        }
        if (p.default_value) diags_.error(p.default_value->location, "kernel parameters cannot have default values");
        auto a = annotation(*p.annotation, true);
        if (!a) {
            ok = false;
            continue;
        }
        if (a->reference) {
            diags_.error(p.annotation->location, "kernel parameter '" + p.name + "': wp.ref[T] is a @wp.func "
                                                 "parameter type only");
            ok = false;
            continue;
        }
        if (a->kind == Annotation::Kind::Function) {
            diags_.error(p.annotation->location, "kernel parameter '" + p.name + "': wp.Function is a @wp.func "
                                                 "parameter type only (a kernel's arguments are values and arrays)");
            ok = false;
            continue;
        }
        generic = generic || a->kind != Annotation::Kind::Concrete;
        params.push_back(*a);
    }
    // `-> None` states what every kernel does (Warp accepts it); any other annotation is a value.
    const bool returns_none = def.returns && def.returns->kind == Expr::Kind::Name && def.returns->text == "None";
    if (def.returns && !returns_none) diags_.error(def.returns->location, "kernels cannot return a value");
    if (!ok) return;
    if (generic) {
        generic_kernels_[def.name] = GenericKernel{&def, std::move(params), {}};
        return;
    }
    std::vector<Type> types;
    for (const Annotation &a : params) types.push_back(a.type);
    check_kernel(def, types, false);
}

void Checker::kernel_overloads() {
    // Calls and stubs interleave in the file: instances follow source order.
    std::vector<std::pair<SourceLocation, const void *>> order;
    for (const ast::ExprPtr &call : ast_.kernel_overloads) order.push_back({call->location, call.get()});
    for (const ast::FunctionDef *stub : overload_stubs_) order.push_back({stub->location, stub});
    std::stable_sort(order.begin(), order.end(), [](const auto &a, const auto &b) {
        return a.first.line != b.first.line ? a.first.line < b.first.line : a.first.column < b.first.column;
    });
    for (const auto &[at, item] : order) {
        if (diags_.at_limit()) return;
        const auto call = std::find_if(ast_.kernel_overloads.begin(), ast_.kernel_overloads.end(),
                                       [&](const ast::ExprPtr &c) { return c.get() == item; });
        if (call != ast_.kernel_overloads.end()) overload_call(**call);
        else overload_stub(*static_cast<const ast::FunctionDef *>(item));
    }
    for (const auto &[name, g] : generic_kernels_)
        if (g.instances.empty()) {
            std::size_t generic_param = 0;
            while (generic_param + 1 < g.params.size() && g.params[generic_param].kind == Annotation::Kind::Concrete)
                ++generic_param;
            diags_.warning(g.def->location,
                           "kernel '" + name + "' is generic (parameter '" + g.def->params[generic_param].name +
                               "') and has no wp.overload: weft makes a generic kernel's instances when the module "
                               "loads, from its wp.overload declarations, so there is nothing to launch; add "
                               "wp.overload(" + name + ", [types]) after it");
        }
}

void Checker::overload_call(const Expr &call) {
    const auto callee = dotted(*call.children[0]);
    if (!callee || strip_warp(*callee) != "overload") {
        diags_.error(call.location, "top-level statements other than imports, constants, functions and classes are "
                                    "not supported");
        return;
    }
    if (call.children.size() != 3 || !call.keywords.empty()) {
        diags_.error(call.location, "wp.overload takes a kernel and its argument types: wp.overload(kernel, [types]) "
                                    "or wp.overload(kernel, {\"name\": type})");
        return;
    }
    const Expr &target = *call.children[1];
    if (target.kind != Expr::Kind::Name) {
        diags_.error(target.location, "wp.overload: the first argument is a @wp.kernel of this module, by name");
        return;
    }
    const auto g = generic_kernels_.find(target.text);
    if (g == generic_kernels_.end()) {
        if (out_.kernel(target.text))
            diags_.error(target.location, "wp.overload: kernel '" + target.text +
                                              "' is not generic (no parameter is Any, wp.Scalar, wp.Float, wp.Int "
                                              "or an array of Any): only generic kernels can be overloaded");
        else if (!invalid_functions_.count(target.text))
            diags_.error(target.location, "wp.overload: '" + target.text + "' is not a @wp.kernel of this module");
        return;
    }
    const ast::FunctionDef &def = *g->second.def;
    const Expr &types_expr = *call.children[2];
    std::vector<std::optional<Type>> types(def.params.size());
    auto type_of = [&](const Expr &e, std::size_t param) {
        const std::size_t errors = diags_.error_count();
        auto a = annotation(e, true);
        if (!a) return false;
        if (a->kind != Annotation::Kind::Concrete) {
            diags_.error(e.location, "wp.overload: kernel '" + def.name + "', argument '" + def.params[param].name +
                                         "' cannot be generic: give a concrete type");
            return false;
        }
        types[param] = a->type;
        return diags_.error_count() == errors;
    };
    bool ok = true;
    if (types_expr.kind == Expr::Kind::List) {
        if (types_expr.children.size() != def.params.size()) {
            diags_.error(types_expr.location, "wp.overload: kernel '" + def.name + "' takes " +
                                                  std::to_string(def.params.size()) + " arguments, the list gives " +
                                                  std::to_string(types_expr.children.size()) + " types");
            return;
        }
        for (std::size_t i = 0; i < def.params.size(); ++i) ok = type_of(*types_expr.children[i], i) && ok;
    } else if (types_expr.kind == Expr::Kind::Dict) {
        for (std::size_t k = 0; k + 1 < types_expr.children.size(); k += 2) {
            const Expr &key = *types_expr.children[k];
            const auto p = std::find_if(def.params.begin(), def.params.end(),
                                        [&](const ast::Param &x) { return key.kind == Expr::Kind::String && x.name == key.text; });
            if (p == def.params.end()) {
                diags_.error(key.location, "wp.overload: kernel '" + def.name + "' has no argument " +
                                               (key.kind == Expr::Kind::String ? "'" + key.text + "'" : std::string("named by this key")));
                ok = false;
                continue;
            }
            ok = type_of(*types_expr.children[k + 1], static_cast<std::size_t>(p - def.params.begin())) && ok;
        }
        // The arguments the dict leaves out keep their own annotation, which must then be concrete.
        for (std::size_t i = 0; i < def.params.size() && ok; ++i) {
            if (types[i]) continue;
            if (g->second.params[i].kind != Annotation::Kind::Concrete) {
                diags_.error(types_expr.location, "wp.overload: kernel '" + def.name + "', argument '" + def.params[i].name +
                                                      "' is generic and the dict gives it no type");
                ok = false;
            } else {
                types[i] = g->second.params[i].type;
            }
        }
    } else {
        diags_.error(types_expr.location, "wp.overload: the argument types are a list [types] or a dict "
                                          "{\"name\": type}");
        return;
    }
    if (!ok) return;
    std::vector<Type> concrete;
    for (const auto &t : types) concrete.push_back(*t);
    instantiate_kernel(def, concrete, types_expr.location);
}

void Checker::overload_stub(const ast::FunctionDef &stub) {
    if (stub.decorators.size() != 1) {
        diags_.error(stub.location, "a @wp.overload stub takes no other decorator (it declares an instance of the "
                                    "generic @wp.kernel '" + stub.name + "')");
        return;
    }
    if (!stub_body(stub, "a @wp.overload stub", "the generic kernel's body is the one compiled")) return;
    const bool returns_none = stub.returns && stub.returns->kind == Expr::Kind::Name && stub.returns->text == "None";
    if (stub.returns && !returns_none) {
        diags_.error(stub.returns->location, "a @wp.overload stub has no return annotation (or -> None)");
        return;
    }
    const auto g = generic_kernels_.find(stub.name);
    if (g == generic_kernels_.end()) {
        diags_.error(stub.location, out_.kernel(stub.name)
                                        ? "@wp.overload: kernel '" + stub.name + "' is not generic: only generic "
                                                                                 "kernels can be overloaded"
                                        : "@wp.overload: there is no @wp.kernel named '" + stub.name +
                                              "' in this module (Warp's @wp.overload declares instances of kernels only)");
        return;
    }
    const ast::FunctionDef &def = *g->second.def;
    if (stub.params.size() != def.params.size()) {
        diags_.error(stub.location, "@wp.overload: kernel '" + def.name + "' takes " + std::to_string(def.params.size()) +
                                        " arguments, the stub declares " + std::to_string(stub.params.size()));
        return;
    }
    std::vector<Type> types;
    for (const ast::Param &p : stub.params) {
        if (!p.annotation) {
            diags_.error(p.location, "@wp.overload stub of '" + def.name + "': argument '" + p.name + "' needs a type");
            return;
        }
        auto a = annotation(*p.annotation, true);
        if (!a) return;
        if (a->kind != Annotation::Kind::Concrete) {
            diags_.error(p.annotation->location, "@wp.overload stub of '" + def.name + "': argument '" + p.name +
                                                     "' cannot be generic: give a concrete type");
            return;
        }
        types.push_back(a->type);
    }
    instantiate_kernel(def, types, stub.location);
}

void Checker::instantiate_kernel(const ast::FunctionDef &def, const std::vector<Type> &types, SourceLocation at) {
    GenericKernel &g = generic_kernels_.at(def.name);
    for (std::size_t i = 0; i < types.size(); ++i)
        if (!g.params[i].accepts(types[i])) {
            diags_.error(at, "wp.overload: kernel '" + def.name + "', argument '" + def.params[i].name +
                                 "': type mismatch: expected " + g.params[i].describe() + ", got " + types[i].name());
            return;
        }
    std::string codes;
    for (const Type &t : types) codes += t.code() + ";";
    if (!g.instances.insert(codes).second) return; // declared before: the same instance, as in Warp
    const std::size_t errors = diags_.error_count();
    check_kernel(def, types, true);
    if (diags_.error_count() != errors)
        diags_.note(at, "in the instance of kernel '" + def.name + "' for (" + signature_of(types) + ") declared here");
}

} // namespace weft::kernel::detail
