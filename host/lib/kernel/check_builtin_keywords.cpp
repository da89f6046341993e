// Keyword arguments of registered builtins, bound by parameter name as Warp
// binds them. A builtin whose Warp signature has defaults (add_builtin's
// defaults=) may skip a defaulted parameter in the middle
// (wp.curlnoise(state, p, gain=0.3)): the registry holds one overload per
// count of trailing parameters given, so a skipped one takes Warp's default here.
#include "checker.hpp"

#include <algorithm>

namespace weft::kernel::detail {

using ast::Expr;
using K = ir::Expr::Kind;

namespace {

struct BuiltinDefault {
    const char *param;
    Scalar type;
    double value;
    const char *spelled; // in messages
};

/// Warp 1.19's defaults for builtin parameters (builtins.py); the registry's
/// shorter overloads stand for the same values given from the right.
const std::vector<BuiltinDefault> *builtin_defaults(const std::string &name) {
    static const std::vector<BuiltinDefault> curlnoise{
        {"octaves", Scalar::UInt32, 1.0, "wp.uint32(1)"},
        {"lacunarity", Scalar::Float32, 2.0, "2.0"},
        {"gain", Scalar::Float32, 0.5, "0.5"}};
    return name == "curlnoise" ? &curlnoise : nullptr;
}

const BuiltinDefault *find_default(const std::vector<BuiltinDefault> *defaults, const std::string &param) {
    if (!defaults) return nullptr;
    const auto it = std::find_if(defaults->begin(), defaults->end(), [&](const BuiltinDefault &d) { return param == d.param; });
    return it == defaults->end() ? nullptr : &*it;
}

} // namespace

std::optional<std::vector<Value>> Checker::builtin_keyword_args(const std::string &name, const Expr &e,
                                                                const std::vector<std::vector<std::string>> &signatures) {
    const std::vector<BuiltinDefault> *defaults = builtin_defaults(name);
    if (!defaults) {
        const auto order = keyword_order(name, e, signatures);
        if (!order) return std::nullopt;
        std::vector<Value> args;
        for (const Expr *a : *order) args.push_back(expr(*a));
        return args;
    }
    // Per parameter: the argument given, or (nullptr) its default. The
    // shortest parameter list that fits wins: longer ones only add defaults.
    const std::size_t positional = e.children.size() - 1;
    std::optional<std::vector<const Expr *>> chosen;
    const std::vector<std::string> *chosen_params = nullptr;
    for (const std::vector<std::string> &params : signatures) {
        if (params.size() < positional + e.keywords.size()) continue;
        if (chosen && params.size() > chosen->size()) continue;
        ArgumentSlots order = place_arguments(e, params);
        bool fits = order.problem == ArgumentSlots::Problem::None;
        for (std::size_t i = 0; fits && i < params.size(); ++i) fits = order.slots[i] || find_default(defaults, params[i]);
        if (!fits) continue;
        if (chosen && params.size() == chosen->size() && *chosen != order.slots) {
            diags_.error(e.keywords.front().location, "the keyword arguments of this call to '" + name +
                                                          "' fit several of its overloads differently: pass them by position");
            return std::nullopt;
        }
        chosen = std::move(order.slots);
        chosen_params = &params;
    }
    if (!chosen) {
        // The full parameter lists: a shorter one is one of them with defaults left out.
        const auto shortened = [&](const std::vector<std::string> &params) {
            return std::any_of(signatures.begin(), signatures.end(), [&](const std::vector<std::string> &other) {
                return other.size() > params.size() && std::equal(params.begin(), params.end(), other.begin());
            });
        };
        std::string sigs;
        for (const std::vector<std::string> &params : signatures) {
            if (shortened(params)) continue;
            std::string s;
            for (const std::string &p : params) {
                s += (s.empty() ? "" : ", ") + p;
                if (const BuiltinDefault *d = find_default(defaults, p)) s += std::string("=") + d->spelled;
            }
            sigs += (sigs.empty() ? "" : "; ") + name + "(" + s + ")";
        }
        diags_.error(e.keywords.front().location, "no parameter list of '" + name + "' takes these arguments (keyword '" +
                                                      e.keywords.front().name + "'): " + sigs);
        return std::nullopt;
    }
    std::vector<Value> args;
    for (std::size_t i = 0; i < chosen->size(); ++i) {
        if (const Expr *given = (*chosen)[i]) {
            args.push_back(expr(*given));
            continue;
        }
        const BuiltinDefault &d = *find_default(defaults, (*chosen_params)[i]);
        const Type t = Type::scalar(d.type);
        auto x = make(K::Literal, t, e.location);
        x->value = ir::ConstantValue{t, {d.value}, {static_cast<ir::IntValue>(d.value)}};
        args.push_back(Value{std::move(x)});
    }
    return args;
}

} // namespace weft::kernel::detail
