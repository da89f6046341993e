// Which plugins a host trusts, as an application states it (HostOptions::
// plugin_trust, or a configuration file's [plugins] table). The checks
// themselves are libweft's (plugin_trust.hpp).
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <string_view>

namespace weft::trust {

/// any: every plugin (the development default); allow-list: the plugin's
/// digest (manifest + library, `weft plugin digest`) is on the allow-list;
/// signed: a detached signature beside the manifest (<manifest>.sig) by one
/// of the trusted keys covers the manifest and the library.
enum class TrustMode { Any, AllowList, Signed };

/// "any", "allow-list", "signed"; throws UserError listing them otherwise.
TrustMode parse_trust_mode(std::string_view text);
std::string_view trust_mode_name(TrustMode mode);
/// "refused by trust policy 'MODE': ", the start of every refusal message.
std::string refused_by(TrustMode mode);

struct TrustPolicy {
    TrustMode mode = TrustMode::Any;
    /// allow-list: digests allowed (64 hex digits each), and/or a file of them
    /// (one per line, the first word of the line; '#' starts a comment).
    std::set<std::string> allowed_digests;
    std::filesystem::path allow_list_file;
    /// signed: the directory of trusted public keys (*.pem).
    std::filesystem::path trusted_keys_dir;

    /// Whether trusted keys or an allow-list are named.
    bool names_keys() const { return !trusted_keys_dir.empty(); }
    bool names_allow_list() const { return !allow_list_file.empty() || !allowed_digests.empty(); }
};

/// Where no policy was stated (the command line's --trust, a configuration
/// file's `trust`), what is named states it: trusted keys alone mean
/// `signed`, an allow-list alone `allow-list`. Both named with no policy is a
/// UserError: which one was meant is not for weft to guess. A policy of `any`
/// with keys or a list named is refused where the policy is used
/// (PluginTrust), so naming them never silently checks nothing.
void imply_trust_mode(TrustPolicy &policy);

} // namespace weft::trust
