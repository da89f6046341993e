// The files of a plugin besides its manifest and library: headers under its
// include directories, data its build options name, anything else in its
// directory. They are code too (a header's inline function is compiled into
// kernels), so the trust policies cover them: a signature lists each one's
// digest, and an allow-listed digest covers them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace weft::trust {

/// One file under a plugin's directory.
struct PluginFile {
    std::string path;   // relative to the directory, '/'-separated
    std::string sha256; // of its content
    friend bool operator==(const PluginFile &, const PluginFile &) = default;
};

/// What a scan may hold: a plugin directory is not a build tree.
inline constexpr std::size_t max_plugin_files = 4096;
inline constexpr std::uintmax_t max_plugin_file_bytes = std::uintmax_t(256) << 20; // all files together

/// Every regular file under `directory`, recursively, sorted by path, except
/// the paths in `excluded` (the manifest, the library, the signature, which
/// are covered by their own lines). Throws UserError naming the path for a
/// symbolic link, a special file, a file name with a control character, an
/// unreadable file, or more than the limits above: what a signature covers
/// must be plain files it can name.
std::vector<PluginFile> scan_plugin_files(const std::filesystem::path &directory,
                                          const std::vector<std::filesystem::path> &excluded);

/// The first difference between what was verified and what is there now, as
/// a sentence naming the file ("include/x.h changed since ... (sha256 A, B)"),
/// and the file; empty when they are equal. `verified_as` says against what
/// ("its signature", "the allow-list", ...).
struct FileDifference {
    std::string reason;
    std::filesystem::path file;
    bool empty() const { return reason.empty(); }
};
FileDifference compare_plugin_files(const std::filesystem::path &directory, const std::vector<PluginFile> &verified,
                                    const std::vector<PluginFile> &now, const std::string &verified_as);

/// A plugin directory's files as a trust policy verified them when the plugin
/// loaded, kept to compare with the directory when a build reads it.
struct VerifiedDirectory {
    std::string plugin;
    std::string policy; // the trust policy's name
    std::filesystem::path directory;
    std::vector<std::filesystem::path> excluded; // covered by their own checks (manifest, library, signature)
    std::vector<PluginFile> files;
    friend bool operator==(const VerifiedDirectory &, const VerifiedDirectory &) = default;

    /// Scans the directory again: the first difference from what was
    /// verified, or empty. Throws UserError when it cannot be scanned.
    FileDifference changes() const;
};

} // namespace weft::trust
