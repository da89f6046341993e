// Loading a plugin under a trust policy (allow-list, signed): its manifest and
// library are read once from open descriptors, checked, and the library is
// loaded from a sealed memfd holding exactly the checked bytes. A file that
// is replaced (renamed over) or rewritten in place after the check is never
// run, and a refused plugin is never opened by the dynamic loader.
#pragma once

#include "weft/manifest/manifest.hpp"
#include "weft/trust/plugin_trust.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

/// An owned file descriptor.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd &&o) noexcept : fd_(o.release()) {}
    UniqueFd &operator=(UniqueFd &&o) noexcept;
    ~UniqueFd();
    int get() const { return fd_; }
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_ = -1;
};

struct VerifiedPlugin {
    PluginManifest manifest; // parsed from the checked bytes
    UniqueFd image;          // sealed memfd with the checked library bytes
    std::string signed_by;   // signed: the trusted key's file name
    std::vector<trust::PluginFile> files; // the other files of its directory, as checked
    std::vector<std::string> system_dependencies; // its needed libraries' system paths, loaded first
    /// /proc/self/fd/N of `image`, a name no loaded library has (the dynamic
    /// loader matches libraries by name first).
    std::string load_path() const;
};

/// Reads and checks the plugin named by `m` (whose manifest was read
/// earlier: it is read again here, and must still name the same plugin and
/// library). Throws PluginError "plugin 'NAME': refused by trust policy
/// 'MODE': REASON (FILE)" when the policy refuses it, UserError for a file
/// that cannot be read. `hook` (test-only) is called with "plugin-verified".
VerifiedPlugin verify_plugin(const PluginManifest &m, const trust::PluginTrust &trust,
                             const std::function<void(std::string_view)> &hook);

/// Reads a whole regular file from `path` through one descriptor, at most
/// `limit` bytes; UserError "PATH: WHY" otherwise.
std::string read_file_once(const std::filesystem::path &path, std::uint64_t limit, std::string_view what);

} // namespace weft
