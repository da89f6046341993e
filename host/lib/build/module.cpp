#include "weft/build/module.hpp"
#include "weft/build/module_hash.hpp"

#include "weft/support/error.hpp"

namespace weft {

ModuleSettings::ModuleSettings(std::string name) : name_(std::move(name)) {}

void ModuleSettings::set_build_options(ModuleBuildOptions options) {
    options_ = std::move(options);
    ++generation_;
    resolved_.reset();
}

void ModuleSettings::set_plugins(std::vector<PluginBuildOptions> plugins) {
    plugins_ = std::move(plugins);
    ++generation_;
    resolved_.reset();
}

std::vector<std::string> ModuleSettings::plugins() const {
    std::vector<std::string> names;
    for (const PluginBuildOptions &p : plugins_) names.push_back(p.plugin);
    return names;
}

EffectiveBuildOptions ModuleSettings::effective_options() const {
    std::vector<BuildOptionsSource> sources;
    sources.push_back({"module '" + name_ + "'", options_, std::nullopt});
    for (const PluginBuildOptions &p : plugins_)
        for (const ModuleBuildOptions &o : p.options) sources.push_back({"plugin '" + p.plugin + "'", o, p.verified});
    return EffectiveBuildOptions::merge(sources);
}

const ResolvedBuildOptions &ModuleSettings::resolved_options() {
    if (!resolved_) {
        try {
            resolved_ = resolve(effective_options());
        } catch (const UserError &e) {
            throw UserError("module '" + name_ + "': " + e.what());
        }
    }
    return *resolved_;
}

std::string ModuleSettings::hash(const ModuleHashInputs &inputs) { return compute_module_hash(inputs, resolved_options()); }

} // namespace weft
