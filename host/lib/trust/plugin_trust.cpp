#include "weft/trust/plugin_trust.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/sha256.hpp"

#include <sstream>

namespace weft::trust {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t max_allow_list = 16 << 20;
constexpr std::uintmax_t max_signature_file = 4096;
constexpr std::string_view signature_header = "weft-plugin-signature 1";

bool is_digest(std::string_view s) {
    return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

/// The signed statement: what the signature covers.
std::string statement(std::string_view manifest, std::string_view library) {
    return std::string(signature_header) + "\nmanifest-sha256 " + sha256_hex(manifest) + "\nlibrary-sha256 " +
           sha256_hex(library) + "\n";
}

/// "key value" lines of a signature file, by key; empty when malformed.
struct SignatureFields {
    std::string manifest_sha256, library_sha256, key, signature;
    std::string error;
};

SignatureFields parse_signature_file(const std::string &text) {
    SignatureFields f;
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != signature_header) {
        f.error = "does not start with '" + std::string(signature_header) + "'";
        return f;
    }
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto space = line.find(' ');
        const std::string key = line.substr(0, space), value = space == std::string::npos ? "" : line.substr(space + 1);
        if (key == "manifest-sha256") f.manifest_sha256 = value;
        else if (key == "library-sha256") f.library_sha256 = value;
        else if (key == "key") f.key = value;
        else if (key == "signature") f.signature = value;
        else {
            f.error = "has an unknown line '" + line.substr(0, 40) + "'";
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

std::string plugin_digest(std::string_view manifest, std::string_view library) {
    return sha256_hex("weft-plugin-digest 1\nmanifest-sha256 " + sha256_hex(manifest) + "\nlibrary-sha256 " +
                      sha256_hex(library) + "\n");
}

fs::path signature_path(const fs::path &manifest_path) {
    fs::path p = manifest_path;
    p += ".sig";
    return p;
}

std::string make_signature_file(const PrivateKey &key, std::string_view manifest, std::string_view library) {
    const std::string signed_part = statement(manifest, library);
    return signed_part + "key " + key.id() + "\nsignature " + to_hex(key.sign(signed_part)) + "\n";
}

std::string TrustVerdict::message(TrustMode mode) const {
    return "refused by trust policy '" + std::string(trust_mode_name(mode)) + "': " + reason + " (" + file.string() + ")";
}

PluginTrust::PluginTrust(TrustPolicy policy) : policy_(std::move(policy)) {
    for (const std::string &d : policy_.allowed_digests)
        if (!is_digest(d)) throw UserError("allow-list entry '" + d + "' is not a SHA-256 digest (64 lowercase hex digits)");
    if (policy_.mode == TrustMode::AllowList && !policy_.allow_list_file.empty()) {
        const std::string text = read_input_file(policy_.allow_list_file, max_allow_list, "plugin allow-list");
        std::istringstream in(text);
        std::string line;
        for (int number = 1; std::getline(in, line); ++number) {
            if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
            std::istringstream words(line);
            std::string digest;
            if (!(words >> digest)) continue;
            if (!is_digest(digest))
                throw UserError(policy_.allow_list_file.string() + ":" + std::to_string(number) + ": '" + digest +
                                "' is not a plugin digest (64 lowercase hex digits; `weft plugin digest` prints them)");
            policy_.allowed_digests.insert(digest);
        }
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
        const std::string digest = plugin_digest(plugin.manifest, plugin.library);
        if (policy_.allowed_digests.count(digest)) return {};
        return {"allow-list", plugin.library_path,
                "its digest " + digest + " (manifest " + plugin.manifest_path.string() +
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
        const PublicKey *key = keys_.find(f.key);
        if (!key)
            return {"signature", sig,
                    "signed by key " + f.key + ", which is not among the " + std::to_string(keys_.size()) +
                        " trusted keys in " + keys_.directory().string(),
                    {}};
        if (!key->verify(statement(plugin.manifest, plugin.library), from_hex(f.signature)))
            return {"signature", sig, "the signature is not valid for key " + key->name() + " (" + key->id() + ")", {}};
        TrustVerdict ok;
        ok.key = key->name();
        return ok;
    }
    }
    return {};
}

} // namespace weft::trust
