// Module build options: the include dirs, preambles and dependency files a
// module is compiled with, contributed by the module itself and by every
// plugin it uses.
//
// ModuleBuildOptions is a plain value: nothing is checked at construction or
// merge. Paths are checked when a module's options are resolved for a build
// (resolve()), where a missing path actually matters.
#pragma once

#include "weft/trust/plugin_files.hpp"

#include <filesystem>
#include <optional>
#include <initializer_list>
#include <string>
#include <vector>

namespace weft {

struct ModuleBuildOptions {
    std::vector<std::string> extra_cuda_include_dirs;
    std::vector<std::string> extra_cpu_include_dirs;
    std::string extra_cuda_preamble;
    std::string extra_cpu_preamble;
    std::vector<std::string> extra_build_dependencies;

    bool empty() const {
        return extra_cuda_include_dirs.empty() && extra_cpu_include_dirs.empty() && extra_cuda_preamble.empty() &&
               extra_cpu_preamble.empty() && extra_build_dependencies.empty();
    }
    friend bool operator==(const ModuleBuildOptions &, const ModuleBuildOptions &) = default;

    /// A new value: this, then `others` in order. Include dirs and dependencies
    /// keep their first occurrence; preambles concatenate in argument order, a
    /// "\n" inserted after a non-empty piece that lacks one. No input changes.
    template <class... Others> ModuleBuildOptions merged(const Others &...others) const {
        return merge_all({this, &others...});
    }

private:
    static ModuleBuildOptions merge_all(std::initializer_list<const ModuleBuildOptions *> parts);
};

/// Appends `piece` to `text` with the merge rule for preambles.
void append_preamble(std::string &text, const std::string &piece);

/// One contribution to a module's effective options, with who made it.
struct BuildOptionsSource {
    std::string label; // "module 'physics'" or "plugin 'colors'"
    ModuleBuildOptions options;
    /// A plugin loaded under a trust policy: its directory as verified.
    std::optional<trust::VerifiedDirectory> verified;
};

/// A value in the effective options, with where it came from.
struct SourcedValue {
    std::string value;
    std::string source; // a BuildOptionsSource label
};

/// The options a module builds with, merged non-destructively from its own
/// and its plugins', keeping the provenance of every piece so codegen can tag
/// each preamble piece with a #line marker naming its source.
struct EffectiveBuildOptions {
    std::vector<SourcedValue> cuda_include_dirs;
    std::vector<SourcedValue> cpu_include_dirs;
    std::vector<SourcedValue> cuda_preamble; // non-empty pieces, in merge order
    std::vector<SourcedValue> cpu_preamble;
    std::vector<SourcedValue> build_dependencies;
    /// The verified plugin directories the build reads (once each).
    std::vector<trust::VerifiedDirectory> verified;

    static EffectiveBuildOptions merge(const std::vector<BuildOptionsSource> &sources);
    /// The same values without provenance (equal to ModuleBuildOptions::merged).
    ModuleBuildOptions flattened() const;
};

/// A dependency file as read when the hash was computed.
struct ResolvedDependency {
    std::filesystem::path path;
    std::string sha256; // of the content
    std::string source;
};

/// Effective options checked against the file system, ready for a build.
struct ResolvedBuildOptions {
    std::vector<std::filesystem::path> cuda_include_dirs;
    std::vector<std::filesystem::path> cpu_include_dirs;
    std::vector<SourcedValue> cuda_preamble; // each piece ends with "\n"
    std::vector<SourcedValue> cpu_preamble;
    std::vector<ResolvedDependency> build_dependencies;

    /// The preamble text: pieces in order, ending with "\n" when non-empty,
    /// so "X" and "X\n" resolve alike.
    std::string cuda_preamble_text() const;
    std::string cpu_preamble_text() const;
};

/// Checks every include dir (absolute, an existing directory) and dependency
/// (absolute, an existing file), that each verified plugin directory still
/// holds what its trust check saw, reads each dependency's content digest, and
/// normalizes the preambles. Throws UserError listing every bad entry with its
/// reason and the option and source it came from.
ResolvedBuildOptions resolve(const EffectiveBuildOptions &options);

} // namespace weft
