#include "load_fields.hpp"

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace weft::pipeline {

namespace {

/// Converts to any field type: T{field_filler{}...} compiles with as many
/// fillers as T, an aggregate, has fields, and no more.
struct field_filler {
    template <class U> operator U() const;
};

template <class T, std::size_t... I>
constexpr auto initializable(std::index_sequence<I...>) -> decltype(T{(static_cast<void>(I), field_filler{})...}, true) {
    return true;
}
template <class T, std::size_t... I> constexpr bool initializable(...) { return false; }

template <class T, std::size_t N = 0> constexpr std::size_t field_count() {
    static_assert(std::is_aggregate_v<T>);
    if constexpr (N > 64) return 0;
    else if constexpr (initializable<T>(std::make_index_sequence<N + 1>{})) return field_count<T, N + 1>();
    else return N;
}

std::string flag(bool b) { return b ? "1" : "0"; }

using E = LoadField::Effect;
const std::array<LoadField, 13> table = {{
    {"device", E::Identity, false, [](const ModuleLoadOptions &o) { return o.device.name(); },
     [](ModuleLoadOptions &o) { o.device = Device::cuda(1); }},
    {"name", E::Identity, false, [](const ModuleLoadOptions &o) { return o.name; },
     [](ModuleLoadOptions &o) { o.name = "renamed"; }},
    {"plugins", E::Identity, false,
     [](const ModuleLoadOptions &o) {
         if (!o.plugins) return std::string("(referenced)");
         std::string out;
         for (const std::string &p : *o.plugins) out += std::to_string(p.size()) + ":" + p;
         return out;
     },
     [](ModuleLoadOptions &o) { o.plugins = std::vector<std::string>{}; }},
    {"build_options", E::Identity, false, [](const ModuleLoadOptions &o) { return std::string(o.build_options ? "given" : "kept"); },
     [](ModuleLoadOptions &o) { o.build_options = ModuleBuildOptions{}; }},
    {"opt", E::Binary, false, [](const ModuleLoadOptions &o) { return std::to_string(o.opt_level); },
     [](ModuleLoadOptions &o) { o.opt_level = 1; }},
    {"fast_math", E::Binary, false, [](const ModuleLoadOptions &o) { return flag(o.fast_math); },
     [](ModuleLoadOptions &o) { o.fast_math = !o.fast_math; }},
    {"native_cpu", E::Binary, true, [](const ModuleLoadOptions &o) { return flag(o.native_cpu); },
     [](ModuleLoadOptions &o) { o.native_cpu = !o.native_cpu; }},
    {"use_pch", E::None, false, [](const ModuleLoadOptions &o) { return flag(o.use_pch); },
     [](ModuleLoadOptions &o) { o.use_pch = !o.use_pch; }},
    {"debug", E::Binary, false, [](const ModuleLoadOptions &o) { return flag(o.debug); },
     [](ModuleLoadOptions &o) { o.debug = !o.debug; }},
    {"enable_backward", E::Key, false, [](const ModuleLoadOptions &o) { return flag(o.enable_backward); },
     [](ModuleLoadOptions &o) { o.enable_backward = !o.enable_backward; }},
    {"native_signatures", E::Binary, false, [](const ModuleLoadOptions &o) { return flag(o.check_native_signatures); },
     [](ModuleLoadOptions &o) { o.check_native_signatures = !o.check_native_signatures; }},
    {"fmad", E::Key, false, [](const ModuleLoadOptions &o) { return flag(o.fmad); },
     [](ModuleLoadOptions &o) { o.fmad = !o.fmad; }},
    {"line_info", E::Key, false, [](const ModuleLoadOptions &o) { return flag(o.line_info); },
     [](ModuleLoadOptions &o) { o.line_info = !o.line_info; }},
}};

static_assert(field_count<ModuleLoadOptions>() == table.size(),
              "ModuleLoadOptions has a field this table does not list: add it, with its effect, so that the module "
              "hash and the warm-load content key see it");

} // namespace

std::span<const LoadField> load_fields() { return table; }
std::size_t load_options_field_count() { return field_count<ModuleLoadOptions>(); }

std::map<std::string, std::string> binary_fields(const ModuleLoadOptions &load, bool cuda) {
    static const ModuleLoadOptions defaults;
    std::map<std::string, std::string> out;
    for (const LoadField &f : table)
        if (f.effect == LoadField::Effect::Binary) out.emplace(f.name, f.text(cuda && f.cpu_only ? defaults : load));
    return out;
}

} // namespace weft::pipeline
