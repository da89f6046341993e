// Which plugins a host trusts. Checked on the bytes the host is about to load
// (read once from open descriptors by the loader), before any plugin code is
// mapped.
//
//   any         every plugin (the development default)
//   allow-list  the plugin's digest (manifest + library) is on the allow-list
//   signed      a detached signature beside the manifest (<manifest>.sig) by
//               one of the trusted keys covers the manifest, the library
//               and every other file in the manifest's directory
//
// The digest of a plugin is the SHA-256 of
//   "weft-plugin-digest 2\nmanifest-sha256 <hex>\nlibrary-sha256 <hex>\n"
//   then "file <hex> <path>\n" per other file (plugin_files.hpp), by path
// and `weft plugin digest` prints it. A signature file is text:
//   weft-plugin-signature 2
//   manifest-sha256 <hex>
//   library-sha256 <hex>
//   file <hex> <path relative to the manifest's directory>   (one per file)
//   key <key id>
//   signature <128 hex digits>
// where the signature is Ed25519 over the lines before `key`.
#pragma once

#include "weft/trust/ed25519.hpp"
#include "weft/trust/plugin_files.hpp"
#include "weft/trust/trust_policy.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace weft::trust {

/// What a plugin consists of, as read by the loader.
struct PluginBytes {
    std::string name;
    std::filesystem::path manifest_path;
    std::string manifest;
    std::filesystem::path library_path;
    std::string library;
    /// Every other file in the manifest's directory (scan_other_files).
    std::vector<PluginFile> files;
};

/// The other files of a plugin: scan_plugin_files over the manifest's
/// directory, without the manifest, the library and the signature.
std::vector<PluginFile> scan_other_files(const PluginBytes &plugin);
/// The digests of an allow-list file's text (the first word of each line;
/// '#' starts a comment). UserError "NAME:LINE: '...' is not a plugin digest".
std::vector<std::string> parse_allow_list(std::string_view text, const std::string &name);
/// The digest the allow-list holds for a plugin.
std::string plugin_digest(const PluginBytes &plugin);
/// Where a plugin's detached signature is: <manifest path>.sig.
std::filesystem::path signature_path(const std::filesystem::path &manifest_path);
/// The signature file text for a plugin, signed with `key`.
std::string make_signature_file(const PrivateKey &key, const PluginBytes &plugin);

/// Why a plugin was refused; empty `rule` when it is accepted.
struct TrustVerdict {
    std::string rule;               // "allow-list", "signature", ...
    std::filesystem::path file;     // the file the rule failed on
    std::string reason;             // complete sentence fragment
    std::string key;                // signed and accepted: the key's name
    bool accepted() const { return rule.empty(); }
    /// "refused by trust policy 'signed': <reason> (<file>)"
    std::string message(TrustMode mode) const;
};

class PluginTrust {
public:
    /// Reads the allow-list file and the trusted keys now: a policy that
    /// cannot be read is an error at host construction (UserError naming the
    /// file), not a silently open door.
    explicit PluginTrust(TrustPolicy policy = {});

    TrustMode mode() const { return policy_.mode; }
    /// Checks the bytes (`plugin.files` included); for `signed`, reads the
    /// signature file beside the manifest.
    TrustVerdict check(const PluginBytes &plugin) const;
    /// The same with the signature file's text given (nullopt: it is missing).
    TrustVerdict check(const PluginBytes &plugin, const std::optional<std::string> &signature_file) const;
    const TrustedKeys &keys() const { return keys_; }

private:
    TrustPolicy policy_;
    TrustedKeys keys_;
};

} // namespace weft::trust
