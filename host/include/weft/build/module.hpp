// The settings of a consuming module, by name: its own build options and an
// ordered list of the plugins it uses, each given as the plugin's name and
// build options (values: this layer knows no Host). The module itself is the
// pipeline's (source, checked IR, artifacts) and, loaded, a CompiledModule;
// these settings outlive its loads.
//
// Setting options or plugins is the one invalidation point: the module keeps
// a copy, so editing an options value afterwards changes nothing until it is
// set again. Dependency files are read when the options are resolved (the
// first build after a set, or a new process), not at every launch.
#pragma once

#include "weft/build/build_options.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

struct ModuleHashInputs; // weft/build/module_hash.hpp

/// A plugin as a consuming module sees it: its name and the build options it contributed.
struct PluginBuildOptions {
    std::string plugin;
    std::vector<ModuleBuildOptions> options; // one per add_build_options call, in call order
    /// Loaded under a trust policy: its directory as verified (LoadedPlugin::verified_files).
    std::optional<trust::VerifiedDirectory> verified;
};

/// Whether `name` is a module name: identifiers (a letter or '_', then
/// letters, digits or '_') joined by '.', at most 200 characters. Names become
/// file names (generated sources, AOT artifacts): nothing else may reach a path.
bool is_module_name(std::string_view name);
/// Throws UserError "module name 'NAME' ...: WHY" unless is_module_name;
/// `origin` says where the name came from when it was not given (e.g.
/// "the stem of FILE"), and the message then says how to give one.
void check_module_name(std::string_view name, std::string_view origin = {});

class ModuleSettings {
public:
    /// Throws UserError for a name that is not a module name (check_module_name).
    explicit ModuleSettings(std::string name);

    const std::string &name() const { return name_; }

    void set_build_options(ModuleBuildOptions options);
    const ModuleBuildOptions &build_options() const { return options_; }

    /// The plugins whose build options this module uses, in order.
    void set_plugins(std::vector<PluginBuildOptions> plugins);
    std::vector<std::string> plugins() const;

    /// Own options first, then each used plugin's, merged with provenance.
    EffectiveBuildOptions effective_options() const;

    /// Checked options with dependency digests, resolved once per set.
    /// Throws UserError naming the module and every bad path.
    const ResolvedBuildOptions &resolved_options();

    /// The module hash for these inputs (options resolved as above).
    std::string hash(const ModuleHashInputs &inputs);

    /// Bumped by every set_*; lets callers notice an invalidation.
    std::uint64_t generation() const { return generation_; }

private:
    std::string name_;
    ModuleBuildOptions options_;
    std::vector<PluginBuildOptions> plugins_;
    std::uint64_t generation_ = 0;
    std::optional<ResolvedBuildOptions> resolved_;
};

} // namespace weft
