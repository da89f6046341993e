// A consuming module: the unit that is hashed and compiled (a kernel source
// file, or a named module created through the API). It has its own build
// options and an ordered list of the plugins it uses.
//
// Setting options or plugins is the one invalidation point: the module keeps
// a copy, so editing an options value afterwards changes nothing until it is
// set again. Dependency files are read when the options are resolved (the
// first build after a set, or a new process), not at every launch.
#pragma once

#include "weft/build_options.hpp"
#include "weft/registry.hpp"
#include "weft/target.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace weft {

class Host;

/// Everything besides the build options that can change a module's binary.
struct ModuleBuildInputs {
    std::string generated_source;
    std::map<std::string, std::string> codegen_options; // e.g. {"opt", "3"}, {"fast_math", "1"}
    Target target;
    /// The contracts the module references (the front end supplies them):
    /// external builtins by identity, native types by schema code. Core
    /// builtins are covered by weft's version.
    std::vector<BuiltinOverload> referenced_builtins;
    std::vector<NativeTypeInfo> referenced_native_types;
};

/// SHA-256 (hex, full width) over a canonical, versioned serialization of
/// the inputs, the resolved options and weft's own version and runtime-header digest.
std::string compute_module_hash(const ModuleBuildInputs &inputs, const ResolvedBuildOptions &options,
                                const std::string &runtime_header_digest = {});

class Module {
public:
    Module(const Host &host, std::string name);

    const std::string &name() const { return name_; }

    void set_build_options(ModuleBuildOptions options);
    const ModuleBuildOptions &build_options() const { return options_; }

    /// The plugins whose build options and contracts this module uses, in order.
    void set_plugins(std::vector<std::string> plugins);
    const std::vector<std::string> &plugins() const { return plugins_; }

    /// Own options first, then each used plugin's, merged with provenance.
    /// Throws UserError when a used plugin is not loaded in the host.
    EffectiveBuildOptions effective_options() const;

    /// Checked options with dependency digests, resolved once per set.
    const ResolvedBuildOptions &resolved_options();

    /// The module hash for these inputs (options resolved as above).
    std::string hash(const ModuleBuildInputs &inputs);

    /// Bumped by every set_*; lets callers notice an invalidation.
    std::uint64_t generation() const { return generation_; }

private:
    const Host *host_;
    std::string name_;
    ModuleBuildOptions options_;
    std::vector<std::string> plugins_;
    std::uint64_t generation_ = 0;
    std::optional<ResolvedBuildOptions> resolved_;
};

} // namespace weft
