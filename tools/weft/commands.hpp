#pragma once

#include "weft/support/text.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace weft {
class Host;
struct HostOptions;
struct LoadedPlugin;
} // namespace weft

namespace weft::cli {

/// fmt::print for everything the tool prints: the text goes through
/// escape_for_terminal, since any line may quote a manifest, a signature or
/// allow-list line, a cache entry or a server's reply.
template <class... Args> void print_to(std::FILE *to, fmt::format_string<Args...> format, Args &&...args) {
    const std::string text = escape_for_terminal(fmt::format(format, std::forward<Args>(args)...));
    std::fwrite(text.data(), 1, text.size(), to);
}
template <class... Args> void print_out(fmt::format_string<Args...> format, Args &&...args) {
    print_to(stdout, format, std::forward<Args>(args)...);
}

/// Loads a plugin named on the command line (`--plugin`, `plugin inspect`): a
/// bare plugin name (an identifier) that names nothing in the current directory
/// is looked up on the search path, so installed plugins are named as `weft
/// plugin list` shows them; anything else is a manifest, directory or library path.
const LoadedPlugin &load_plugin_argument(Host &host, const std::string &argument);

/// How JSON on stdout treats strings that are not UTF-8 (file names, plugin
/// text): replaced by U+FFFD, so a report is never lost to one bad name.
inline constexpr auto json_invalid_utf8 = nlohmann::json::error_handler_t::replace;

/// Settings every command that makes a Host shares: the configuration file
/// (--config, else WEFT_CONFIG) first, then the command-line flags over it.
struct HostSettings {
    std::string config;       // --config FILE
    std::string trust;        // --trust any|allow-list|signed
    std::string trusted_keys; // --trusted-keys DIR
    std::string allow_list;   // --allow-list FILE
    std::string remote_cache; // --remote-cache URL (else WEFT_REMOTE_CACHE, else the configuration file)
    bool remote_read_only = false;
    std::string remote_prefix;
    std::string remote_password_env;
    int remote_timeout_ms = -1; // -1: as configured
    std::string remote_trusted_keys; // --remote-trusted-keys DIR
    std::string remote_signing_key;  // --remote-signing-key FILE
    bool remote_allow_unsigned = false;
};
HostSettings &host_settings();
/// Applies host_settings() to `options` (reading the configuration file).
void apply_host_settings(HostOptions &options);

struct PluginOptions {
    std::vector<std::string> search_path;
    std::vector<std::string> paths;
    bool json = false;
    bool isolate = false;
    double isolate_timeout = 60; // plugin check --isolate: seconds one helper may run
    bool compile = false; // plugin check: build each plugin's smoke module
    bool no_cuda = false; // plugin check --compile: the CPU only, even with NVRTC
};

int plugin_list(const PluginOptions &options);
int plugin_inspect(const PluginOptions &options);
int plugin_check(const PluginOptions &options);

struct PluginTrustOptions {
    std::vector<std::string> paths;
    std::string key; // sign: the PEM private key
};
int plugin_sign(const PluginTrustOptions &options);
int plugin_verify(const PluginTrustOptions &options);
int plugin_digest(const PluginTrustOptions &options);

struct CacheOptions {
    std::string cache_dir; // "" = WEFT_CACHE_DIR, $XDG_CACHE_HOME/weft, ~/.cache/weft
    bool json = false;
    bool dry_run = false; // verify: report only
    std::string prebuild_dir; // prebuild: where to write
    int prebuild_opt_level = 2;
    bool prebuild_fast_math = false;
    bool prebuild_native_cpu = false;
};

int cache_path(const CacheOptions &options);
int cache_list(const CacheOptions &options);
int cache_stats(const CacheOptions &options);
int cache_clear(const CacheOptions &options);
int cache_verify(const CacheOptions &options);
int cache_push(const CacheOptions &options);
int cache_pull(const CacheOptions &options);
int cache_prebuild(const CacheOptions &options);

struct KernelCheckOptions {
    std::string file;
    std::vector<std::string> plugins;
    std::vector<std::string> search_path;
    std::size_t error_limit = 50; // 0: no limit
    std::string dump_ir; // "", "lowered" or "typed": print the module's IR on stdout
    bool emit_cpp = false;  // print the generated C++ (CPU) on stdout
    bool emit_cuda = false; // print the generated CUDA C++ on stdout
    bool json = false;      // a JSON report of the check on stdout
};

int kernel_check(const KernelCheckOptions &options);

struct KernelBuildOptions {
    std::string name; // the module name; empty: the file's stem
    std::string file;
    std::vector<std::string> plugins;
    std::vector<std::string> search_path;
    std::vector<std::string> targets; // devices (cpu, cuda:N) first, then archs, each in order; default: cpu
    std::string cache_dir;
    std::string output_dir; // also copy each artifact here as <module>.<target>.<ext> (load_aot reads it)
    int opt_level = 2;
    bool fast_math = false;
    bool no_fmad = false;
    bool line_info = false;
    bool json = false;
};

int kernel_build(const KernelBuildOptions &options);

} // namespace weft::cli
