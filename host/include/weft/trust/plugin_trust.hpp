// Which plugins a host trusts. Checked on the bytes the host is about to load
// (read once from open descriptors by the loader), before any plugin code is
// mapped.
//
//   any         every plugin (the development default)
//   allow-list  the plugin's digest (manifest + library) is on the allow-list
//   signed      a detached signature beside the manifest (<manifest>.sig) by
//               one of the trusted keys covers the manifest and the library
//
// The digest of a plugin is the SHA-256 of
//   "weft-plugin-digest 1\nmanifest-sha256 <hex>\nlibrary-sha256 <hex>\n"
// and `weft plugin digest` prints it. A signature file is text:
//   weft-plugin-signature 1
//   manifest-sha256 <hex>
//   library-sha256 <hex>
//   key <key id>
//   signature <128 hex digits>
// where the signature is Ed25519 over the first three lines.
#pragma once

#include "weft/trust/ed25519.hpp"
#include "weft/trust/trust_policy.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace weft::trust {

/// What a plugin consists of, as read by the loader.
struct PluginBytes {
    std::string name;
    std::filesystem::path manifest_path;
    std::string manifest;
    std::filesystem::path library_path;
    std::string library;
};

/// The digest the allow-list holds for a plugin.
std::string plugin_digest(std::string_view manifest, std::string_view library);
/// Where a plugin's detached signature is: <manifest path>.sig.
std::filesystem::path signature_path(const std::filesystem::path &manifest_path);
/// The signature file text for a plugin, signed with `key`.
std::string make_signature_file(const PrivateKey &key, std::string_view manifest, std::string_view library);

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
    /// Checks the bytes; for `signed`, reads the signature file beside the manifest.
    TrustVerdict check(const PluginBytes &plugin) const;
    /// The same with the signature file's text given (nullopt: it is missing).
    TrustVerdict check(const PluginBytes &plugin, const std::optional<std::string> &signature_file) const;
    const TrustedKeys &keys() const { return keys_; }

private:
    TrustPolicy policy_;
    TrustedKeys keys_;
};

} // namespace weft::trust
