// Host settings every command shares: configuration file, then flags.
#include "commands.hpp"

#include "weft/host/host.hpp"
#include "weft/support/environment.hpp"

namespace weft::cli {

HostSettings &host_settings() {
    static HostSettings settings;
    return settings;
}

void apply_host_settings(HostOptions &options) {
    const HostSettings &s = host_settings();
    std::string config = s.config;
    if (config.empty())
        if (const char *env = environment_override("WEFT_CONFIG"); env && *env) config = env;
    if (!config.empty()) apply_config_file(options, config);
    if (!s.trust.empty()) options.plugin_trust.mode = trust::parse_trust_mode(s.trust);
    if (!s.trusted_keys.empty()) options.plugin_trust.trusted_keys_dir = s.trusted_keys;
    if (!s.allow_list.empty()) options.plugin_trust.allow_list_file = s.allow_list;
    // --trusted-keys or --allow-list without --trust state the policy (as for `plugin verify`).
    if (s.trust.empty()) trust::imply_trust_mode(options.plugin_trust);
    RemoteCacheOptions &r = options.remote_cache;
    if (!s.remote_cache.empty()) r.url = s.remote_cache;
    if (s.remote_read_only) r.read_only = true;
    if (!s.remote_prefix.empty()) r.key_prefix = s.remote_prefix;
    if (!s.remote_password_env.empty()) r.password_env = s.remote_password_env;
    if (s.remote_timeout_ms >= 0) r.timeout = std::chrono::milliseconds(s.remote_timeout_ms);
    if (!s.remote_trusted_keys.empty()) r.trusted_keys_dir = s.remote_trusted_keys;
    if (!s.remote_signing_key.empty()) r.signing_key = s.remote_signing_key;
    if (s.remote_allow_unsigned) r.require_signature = false;
}

} // namespace weft::cli
