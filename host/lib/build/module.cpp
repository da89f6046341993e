#include "weft/build/module.hpp"

#include "weft/build/module_hash.hpp"
#include "weft/support/error.hpp"
#include "weft/support/text.hpp"

namespace weft {

bool is_module_name(std::string_view name) {
    if (name.empty() || name.size() > 200) return false;
    bool start = true; // at the first character of an identifier
    for (const char c : name) {
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        const bool digit = c >= '0' && c <= '9';
        if (c == '.') {
            if (start) return false;
            start = true;
        } else if (letter || (digit && !start)) {
            start = false;
        } else {
            return false;
        }
    }
    return !start;
}

void check_module_name(std::string_view name, std::string_view origin) {
    if (is_module_name(name)) return;
    throw UserError("'" + escape_for_display(name) + "'" +
                    (origin.empty() ? std::string() : " (" + std::string(origin) + ")") +
                    " is not a module name: a module name is identifiers (a letter or '_', then letters, digits or "
                    "'_') joined by '.', at most 200 characters" +
                    (origin.empty() ? std::string() : "; name the module explicitly"));
}

ModuleSettings::ModuleSettings(std::string name) : name_(std::move(name)) { check_module_name(name_); }

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
        return *resolved_;
    }
    // Resolved before: a verified plugin's files are compared again on every
    // use all the same, so a header edited after the last build is not
    // compiled into the next (a scan of a few files).
    for (const PluginBuildOptions &p : plugins_) {
        if (!p.verified) continue;
        trust::FileDifference d;
        try {
            d = p.verified->changes();
        } catch (const UserError &e) {
            d = {e.what(), {}};
        }
        if (!d.empty())
            throw UserError("module '" + name_ + "': invalid module build options:\n  plugin '" + p.plugin + "': " +
                            d.reason + (d.file.empty() ? std::string() : " (" + d.file.string() + ")"));
    }
    return *resolved_;
}

std::string ModuleSettings::hash(const ModuleHashInputs &inputs) { return compute_module_hash(inputs, resolved_options()); }

} // namespace weft
