// plugin.toml: what a plugin is, read before its library is opened.
//
//   name        = "warp_test"               identifier
//   version     = "1.2.0"                   semver; must equal the library's info record
//   abi         = 1                         plugin ABI version the library was built for
//   library     = "libwarp_test.so"         file beside the manifest (or absolute)
//   description = "..."
//   [prefixes]
//   builtins = ["_test_"]                   builtin names the plugin may introduce
//   native   = ["warp_test::"]              native C++ names (types, builtin targets)
//   [requires]
//   color = ">=1.0, <2"                     other plugins, loaded first
//   weft = ">=0.2"                          the host's version (weft::version_string)
#pragma once

#include "weft/registry/registry.hpp"
#include "weft/manifest/semver.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace weft {

/// The `[requires]` key that names the host rather than a plugin; no plugin may be called this.
inline constexpr const char *host_requirement_name = "weft";

struct Requirement {
    std::string name;
    VersionConstraint constraint;
};

struct PluginManifest {
    std::filesystem::path path; // absolute path of plugin.toml
    std::string name;
    Version version;
    unsigned abi = 0;
    std::string library;        // as written
    std::filesystem::path library_path; // resolved against the manifest's directory
    std::string description;
    NamespacePolicy prefixes;
    std::vector<Requirement> requires_; // sorted by name (TOML tables are unordered); plugins only
    /// `[requires] weft = "..."`: the host versions the plugin loads into.
    std::optional<VersionConstraint> requires_host;
    std::vector<std::string> warnings;  // unknown keys and the like, with file:line:col

    std::filesystem::path directory() const { return path.parent_path(); }
};

/// Reads and validates a manifest. Throws UserError "FILE:LINE:COL: message".
PluginManifest read_manifest(const std::filesystem::path &path);

/// read_manifest, except that nothing at `path` (no such entry, or a path
/// component that is not a directory) gives nullopt instead of an error.
std::optional<PluginManifest> read_manifest_if_present(const std::filesystem::path &path);

/// Parses manifest text; `path` names it in errors and anchors `library`.
PluginManifest parse_manifest(std::string_view text, const std::filesystem::path &path);

} // namespace weft
