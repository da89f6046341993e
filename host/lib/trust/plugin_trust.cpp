#include "weft/trust/plugin_trust.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/text.hpp"

#include <sstream>

namespace weft::trust {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t max_allow_list = 16 << 20;
// A line per file of the plugin's directory: room for every file at its longest path.
constexpr std::uintmax_t max_signature_file = 8 << 20;
constexpr std::string_view signature_header = "weft-plugin-signature 2";
constexpr std::string_view old_signature_header = "weft-plugin-signature 1";

bool is_digest(std::string_view s) {
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

/// The manifest, library and file lines, as the digest and the signature take them.
std::string contents(const PluginBytes &plugin) {
    std::string out = "manifest-sha256 " + sha256_hex(plugin.manifest) + "\nlibrary-sha256 " +
                      sha256_hex(plugin.library) + "\n";
    for (const PluginFile &f : plugin.files) out += "file " + f.sha256 + " " + f.path + "\n";
    return out;
}

/// The signed statement: what the signature covers.
std::string statement(const PluginBytes &plugin) { return std::string(signature_header) + "\n" + contents(plugin); }

/// The lines of a signature file; `error` set when malformed.
struct SignatureFields {
    std::string manifest_sha256, library_sha256, key, signature;
    std::vector<PluginFile> files;
    std::string error;
};

SignatureFields parse_signature_file(const std::string &text) {
    SignatureFields f;
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != signature_header) {
        f.error = line == old_signature_header
                      ? "is of version 1, which covered only the manifest and the library; sign the plugin again "
                        "with this weft (`weft plugin sign`), so that the signature covers its other files too"
                      : "does not start with '" + std::string(signature_header) + "'";
        return f;
    }
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto space = line.find(' ');
        const std::string key = line.substr(0, space), value = space == std::string::npos ? "" : line.substr(space + 1);
        if (key == "manifest-sha256") f.manifest_sha256 = value;
        else if (key == "library-sha256") f.library_sha256 = value;
        else if (key == "file" && value.size() > 65 && is_digest(value.substr(0, 64)) && value[64] == ' ')
            f.files.push_back({value.substr(65), value.substr(0, 64)});
        else if (key == "key") f.key = value;
        else if (key == "signature") f.signature = value;
        else {
            f.error = "has an unknown line '" + escape_for_display(line.substr(0, 40)) + "'";
            return f;
        }
    }
    if (!is_digest(f.manifest_sha256) || !is_digest(f.library_sha256) || f.key.empty() || f.signature.size() != 128)
        f.error = "does not record manifest-sha256, library-sha256, key and a 64-byte signature";
    return f;
}

} // namespace

TrustMode parse_trust_mode(std::string_view text) {
    if (text == "any") return TrustMode::Any;
    if (text == "allow-list") return TrustMode::AllowList;
    if (text == "signed") return TrustMode::Signed;
    throw UserError("unknown plugin trust policy '" + std::string(text) + "' (expected any, allow-list or signed)");
}

std::string_view trust_mode_name(TrustMode mode) {
    switch (mode) {
    case TrustMode::Any: return "any";
    case TrustMode::AllowList: return "allow-list";
    case TrustMode::Signed: return "signed";
    }
    return "?";
}

std::vector<std::string> parse_allow_list(std::string_view text, const std::string &name) {
    std::vector<std::string> digests;
    std::istringstream in{std::string(text)};
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        std::istringstream words(line);
        std::string digest;
        if (!(words >> digest)) continue;
        if (!is_digest(digest))
            throw UserError(name + ":" + std::to_string(number) + ": '" + escape_for_display(digest.substr(0, 80)) +
                            "' is not a plugin digest (64 lowercase hex digits; `weft plugin digest` prints them)");
        digests.push_back(std::move(digest));
    }
    return digests;
}

std::string refused_by(TrustMode mode) {
    return "refused by trust policy '" + std::string(trust_mode_name(mode)) + "': ";
}

void imply_trust_mode(TrustPolicy &policy) {
    if (policy.mode != TrustMode::Any) return;
    if (policy.names_keys() && policy.names_allow_list())
        throw UserError("trusted keys (" + policy.trusted_keys_dir.string() +
                        ") and an allow-list are named but no plugin trust policy: say which to use "
                        "(--trust signed or --trust allow-list; trust = \"...\" in a configuration file)");
    if (policy.names_keys()) policy.mode = TrustMode::Signed;
    else if (policy.names_allow_list()) policy.mode = TrustMode::AllowList;
}

std::vector<PluginFile> scan_other_files(const PluginBytes &plugin) {
    return scan_plugin_files(plugin.manifest_path.parent_path(),
                             {plugin.manifest_path, plugin.library_path, signature_path(plugin.manifest_path)});
}

std::string plugin_digest(const PluginBytes &plugin) { return sha256_hex("weft-plugin-digest 2\n" + contents(plugin)); }

fs::path signature_path(const fs::path &manifest_path) {
    fs::path p = manifest_path;
    p += ".sig";
    return p;
}

std::string make_signature_file(const PrivateKey &key, const PluginBytes &plugin) {
    const std::string signed_part = statement(plugin);
    return signed_part + "key " + key.id() + "\nsignature " + to_hex(key.sign(signed_part)) + "\n";
}

std::string TrustVerdict::message(TrustMode mode) const {
    return refused_by(mode) + reason + " (" + file.string() + ")";
}

PluginTrust::PluginTrust(TrustPolicy policy) : policy_(std::move(policy)) {
    // Keys or a list under `any` would check nothing: a door the user believes shut.
    if (policy_.mode == TrustMode::Any && (policy_.names_keys() || policy_.names_allow_list()))
        throw UserError(std::string("plugin trust policy 'any' loads every plugin, but ") +
                        (policy_.names_keys() ? "trusted keys (" + policy_.trusted_keys_dir.string() + ") are"
                                              : std::string("an allow-list is")) +
                        " named: set the policy to '" + (policy_.names_keys() ? "signed" : "allow-list") +
                        "' to check them, or name none");
    for (const std::string &d : policy_.allowed_digests)
        if (!is_digest(d)) throw UserError("allow-list entry '" + escape_for_display(d) + "' is not a SHA-256 digest (64 lowercase hex digits)");
    if (policy_.mode == TrustMode::AllowList && !policy_.allow_list_file.empty()) {
        const std::string text = read_input_file(policy_.allow_list_file, max_allow_list, "plugin allow-list");
        for (std::string &d : parse_allow_list(text, policy_.allow_list_file.string()))
            policy_.allowed_digests.insert(std::move(d));
    }
    if (policy_.mode == TrustMode::AllowList && policy_.allowed_digests.empty())
        throw UserError("plugin trust policy 'allow-list' has an empty allow-list" +
                        (policy_.allow_list_file.empty() ? std::string() : " (" + policy_.allow_list_file.string() + ")"));
    if (policy_.mode == TrustMode::Signed) {
        if (policy_.trusted_keys_dir.empty())
            throw UserError("plugin trust policy 'signed' needs a trusted keys directory");
        keys_ = TrustedKeys::load_directory(policy_.trusted_keys_dir);
    }
}

TrustVerdict PluginTrust::check(const PluginBytes &plugin) const {
    if (policy_.mode != TrustMode::Signed) return check(plugin, std::nullopt);
    const fs::path sig = signature_path(plugin.manifest_path);
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(sig, ec))) return check(plugin, std::nullopt);
    try {
        return check(plugin, read_input_file(sig, max_signature_file, "plugin signature"));
    } catch (const UserError &e) {
        return {"signature", sig, std::string("signature file unreadable: ") + e.what(), {}};
    }
}

TrustVerdict PluginTrust::check(const PluginBytes &plugin, const std::optional<std::string> &signature_file) const {
    switch (policy_.mode) {
    case TrustMode::Any: return {};
    case TrustMode::AllowList: {
        const std::string digest = plugin_digest(plugin);
        if (policy_.allowed_digests.count(digest)) return {};
        const std::string others = plugin.files.empty() ? std::string()
                                   : ", the " + std::to_string(plugin.files.size()) + " other file" +
                                         (plugin.files.size() == 1 ? "" : "s") + " in its directory";
        return {"allow-list", plugin.library_path,
                "its digest " + digest + " (manifest " + plugin.manifest_path.string() + others +
                    " and this library) is not on the allow-list",
                {}};
    }
    case TrustMode::Signed: {
        const fs::path sig = signature_path(plugin.manifest_path);
        if (!signature_file)
            return {"signature", sig, "the signature file is missing (sign with `weft plugin sign --key KEY DIR`)", {}};
        const SignatureFields f = parse_signature_file(*signature_file);
        if (!f.error.empty()) return {"signature", sig, "the signature file " + f.error, {}};
        // Which file changed is worth saying: the digests are recorded beside the signature.
        if (f.manifest_sha256 != sha256_hex(plugin.manifest))
            return {"signature", plugin.manifest_path,
                    "the manifest does not match its signature (sha256 " + sha256_hex(plugin.manifest) + ", signed " +
                        f.manifest_sha256 + ")",
                    {}};
        if (f.library_sha256 != sha256_hex(plugin.library))
            return {"signature", plugin.library_path,
                    "the library does not match its signature (sha256 " + sha256_hex(plugin.library) + ", signed " +
                        f.library_sha256 + ")",
                    {}};
        if (const FileDifference d = compare_plugin_files(plugin.manifest_path.parent_path(), f.files, plugin.files,
                                                          "the signature");
            !d.empty())
            return {"signature", d.file, d.reason, {}};
        const PublicKey *key = keys_.find(f.key);
        if (!key)
            return {"signature", sig,
                    "signed by key " + escape_for_display(f.key) + ", which is not among the " + std::to_string(keys_.size()) +
                        " trusted keys in " + keys_.directory().string(),
                    {}};
        if (!key->verify(statement(plugin), from_hex(f.signature)))
            return {"signature", sig, "the signature is not valid for key " + key->name() + " (" + key->id() + ")", {}};
        TrustVerdict ok;
        ok.key = key->name();
        return ok;
    }
    }
    return {};
}

} // namespace weft::trust
