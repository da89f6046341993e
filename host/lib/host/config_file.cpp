// The optional weft configuration file (apply_config_file in host.hpp).
#include "weft/host/host.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <toml++/toml.h>

namespace weft {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t max_config_bytes = 1 << 20;

std::string where(const fs::path &file, const toml::node &node) {
    const auto &begin = node.source().begin;
    return file.string() + ":" + std::to_string(begin.line) + ":" + std::to_string(begin.column);
}

const toml::table *section(const fs::path &file, const toml::table &root, const char *name) {
    const toml::node *node = root.get(name);
    if (!node) return nullptr;
    if (!node->is_table()) throw UserError(where(file, *node) + ": '" + name + "' must be a table ([" + name + "])");
    return node->as_table();
}

std::string string_value(const fs::path &file, const toml::node &node, const std::string &key) {
    if (!node.is_string()) throw UserError(where(file, node) + ": '" + key + "' must be a string");
    return std::string(node.as_string()->get());
}

fs::path path_value(const fs::path &file, const toml::node &node, const std::string &key) {
    const fs::path p = string_value(file, node, key);
    return p.is_absolute() ? p : (file.parent_path() / p).lexically_normal();
}

} // namespace

void apply_config_file(HostOptions &options, const fs::path &file) {
    const std::string text = read_input_file(file, max_config_bytes, "weft configuration");
    toml::table root;
    try {
        root = toml::parse(text, file.string());
    } catch (const toml::parse_error &e) {
        throw UserError(file.string() + ":" + std::to_string(e.source().begin.line) + ":" +
                        std::to_string(e.source().begin.column) + ": " + std::string(e.description()));
    }
    for (const auto &[key, node] : root)
        if (key.str() != "plugins" && key.str() != "cache")
            throw UserError(where(file, node) + ": unknown section '" + std::string(key.str()) + "' (known: plugins, cache)");
    if (const toml::table *plugins = section(file, root, "plugins")) {
        for (const auto &[key_view, node] : *plugins) {
            const std::string key(key_view.str());
            if (key == "trust") {
                try {
                    options.plugin_trust.mode = trust::parse_trust_mode(string_value(file, node, key));
                } catch (const UserError &e) {
                    throw UserError(where(file, node) + ": " + e.what());
                }
            } else if (key == "trusted_keys") {
                options.plugin_trust.trusted_keys_dir = path_value(file, node, key);
            } else if (key == "allow_list") {
                options.plugin_trust.allow_list_file = path_value(file, node, key);
            } else if (key == "allow") {
                if (!node.is_array()) throw UserError(where(file, node) + ": 'allow' must be an array of plugin digests");
                for (const toml::node &d : *node.as_array())
                    options.plugin_trust.allowed_digests.insert(string_value(file, d, "allow"));
            } else {
                throw UserError(where(file, node) + ": unknown key 'plugins." + key +
                                "' (known: trust, trusted_keys, allow_list, allow)");
            }
        }
        // trusted_keys or allow_list with no `trust` key state the policy.
        if (!plugins->contains("trust")) {
            try {
                trust::imply_trust_mode(options.plugin_trust);
            } catch (const UserError &e) {
                throw UserError(file.string() + ": " + e.what());
            }
        }
    }
    if (const toml::table *cache = section(file, root, "cache")) {
        for (const auto &[key_view, node] : *cache) {
            const std::string key(key_view.str());
            RemoteCacheOptions &r = options.remote_cache;
            auto boolean = [&] {
                if (!node.is_boolean()) throw UserError(where(file, node) + ": 'cache." + key + "' must be true or false");
                return node.as_boolean()->get();
            };
            auto number = [&] {
                if (!node.is_integer() || node.as_integer()->get() < 0)
                    throw UserError(where(file, node) + ": 'cache." + key + "' must be a non-negative integer");
                return static_cast<std::uint64_t>(node.as_integer()->get());
            };
            if (key == "dir") options.cache_dir = path_value(file, node, key);
            else if (key == "remote") r.url = string_value(file, node, key);
            else if (key == "remote_read_only") r.read_only = boolean();
            else if (key == "remote_prefix") r.key_prefix = string_value(file, node, key);
            else if (key == "remote_password_env") r.password_env = string_value(file, node, key);
            else if (key == "remote_timeout_ms") r.timeout = std::chrono::milliseconds(number());
            else if (key == "remote_backoff_ms") r.backoff = std::chrono::milliseconds(number());
            else if (key == "remote_max_artifact_bytes") r.max_artifact_bytes = number();
            else if (key == "remote_require_signature") r.require_signature = boolean();
            else if (key == "remote_trusted_keys") r.trusted_keys_dir = path_value(file, node, key);
            else if (key == "remote_signing_key") r.signing_key = path_value(file, node, key);
            else
                throw UserError(where(file, node) + ": unknown key 'cache." + key +
                                "' (known: dir, remote, remote_read_only, remote_prefix, remote_password_env, "
                                "remote_timeout_ms, remote_backoff_ms, remote_max_artifact_bytes, "
                                "remote_require_signature, remote_trusted_keys, remote_signing_key)");
        }
    }
}

} // namespace weft
