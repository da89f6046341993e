// `weft plugin sign|verify|digest`: the trust policy's tools. None of them
// opens a plugin library with the dynamic loader: they read bytes.
#include "commands.hpp"

#include "weft/host/host.hpp"
#include "weft/manifest/manifest.hpp"
#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/trust/plugin_trust.hpp"

#include <fmt/core.h>

#include <filesystem>

namespace weft::cli {

namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t max_library_bytes = std::uintmax_t(1) << 30;

struct PluginFiles {
    PluginManifest manifest;
    trust::PluginBytes bytes;
};

PluginFiles read_plugin(const std::string &argument) {
    PluginFiles f;
    // Absolute: the plugin's directory is the manifest's parent, which a bare
    // "plugin.toml" would not have.
    const fs::path manifest = fs::absolute(locate_manifest(argument)).lexically_normal();
    f.bytes.manifest = read_input_file(manifest, 1 << 20, "plugin manifest");
    f.manifest = parse_manifest(f.bytes.manifest, manifest);
    f.bytes.name = f.manifest.name;
    f.bytes.manifest_path = manifest;
    f.bytes.library_path = f.manifest.library_path;
    f.bytes.library = read_input_file(f.manifest.library_path, max_library_bytes, "plugin library");
    f.bytes.files = trust::scan_other_files(f.bytes);
    return f;
}

} // namespace

int plugin_sign(const PluginTrustOptions &o) {
    const trust::PrivateKey key = trust::PrivateKey::load_pem(o.key);
    for (const std::string &p : o.paths) {
        const PluginFiles f = read_plugin(p);
        const fs::path sig = trust::signature_path(f.bytes.manifest_path);
        write_file_atomically(sig, trust::make_signature_file(key, f.bytes));
        print_out("signed {} {}: {} (key {}; manifest, library and {} other file{})\n", f.manifest.name,
                   f.manifest.version.str(), sig.string(), key.id(), f.bytes.files.size(),
                   f.bytes.files.size() == 1 ? "" : "s");
    }
    return 0;
}

int plugin_verify(const PluginTrustOptions &o) {
    HostOptions options;
    apply_host_settings(options);
    trust::TrustPolicy policy = options.plugin_trust;
    if (policy.mode == trust::TrustMode::Any && !policy.names_keys() && !policy.names_allow_list())
        throw UserError("nothing to verify against: give --trusted-keys DIR or --allow-list FILE");
    const trust::PluginTrust checker(policy);
    int refused = 0;
    for (const std::string &p : o.paths) {
        try {
            const PluginFiles f = read_plugin(p);
            const trust::TrustVerdict v = checker.check(f.bytes);
            if (v.accepted())
                print_out("ok       {} {}{}\n", f.manifest.name, f.manifest.version.str(),
                           v.key.empty() ? std::string() : " (signed by " + v.key + ")");
            else {
                ++refused;
                print_out("REFUSED  {}: {}\n", f.manifest.name, v.message(policy.mode));
            }
        } catch (const UserError &e) {
            ++refused;
            print_out("REFUSED  {}: {}\n", p, e.what());
        }
    }
    print_out("{} plugin{}: {} ok, {} refused (policy '{}')\n", o.paths.size(), o.paths.size() == 1 ? "" : "s",
               o.paths.size() - static_cast<std::size_t>(refused), refused, trust::trust_mode_name(policy.mode));
    return refused ? 1 : 0;
}

int plugin_digest(const PluginTrustOptions &o) {
    // One allow-list line per plugin: the digest first, then a comment.
    for (const std::string &p : o.paths) {
        const PluginFiles f = read_plugin(p);
        print_out("{}  # {} {} {}\n", trust::plugin_digest(f.bytes), f.manifest.name,
                   f.manifest.version.str(), f.bytes.manifest_path.string());
    }
    return 0;
}

} // namespace weft::cli
