// The `weft` command-line tool. Results go to stdout, diagnostics to stderr.
#include "commands.hpp"

#include "weft/kernel/diagnostics.hpp"
#include "weft/support/error.hpp"
#include "weft/support/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/core.h>

int main(int argc, char **argv) {
    CLI::App app{"weft: JIT-compiled compute kernels extended by plugins"};
    app.set_version_flag("--version", weft::version_string);
    app.require_subcommand(1);

    // Host settings: accepted by every command that loads plugins.
    weft::cli::HostSettings &settings = weft::cli::host_settings();
    auto add_host_settings = [&](CLI::App *cmd) {
        cmd->add_option("--config", settings.config, "weft configuration file (TOML; default: WEFT_CONFIG)");
        cmd->add_option("--trust", settings.trust, "Plugin trust policy: any, allow-list or signed")
            ->check(CLI::IsMember({"any", "allow-list", "signed"}));
        cmd->add_option("--trusted-keys", settings.trusted_keys, "Directory of trusted Ed25519 public keys (*.pem)");
        cmd->add_option("--allow-list", settings.allow_list, "File of allowed plugin digests (weft plugin digest)");
    };
    auto add_remote_settings = [&](CLI::App *cmd) {
        cmd->add_option("--remote-cache", settings.remote_cache,
                        "Shared artifact cache: redis://HOST[:PORT][/DB] or unix:///PATH (default: WEFT_REMOTE_CACHE)");
        cmd->add_flag("--remote-read-only", settings.remote_read_only, "Fetch from the remote cache, never write to it");
        cmd->add_option("--remote-prefix", settings.remote_prefix, "Key prefix on the remote cache (default weft:)");
        cmd->add_option("--remote-password-env", settings.remote_password_env,
                        "Environment variable that holds the remote cache's password");
        cmd->add_option("--remote-timeout-ms", settings.remote_timeout_ms, "Remote connect and command timeout (default 300)");
        cmd->add_option("--remote-trusted-keys", settings.remote_trusted_keys,
                        "Directory of public keys whose signed entries the remote cache accepts (required unless "
                        "--remote-allow-unsigned)");
        cmd->add_option("--remote-signing-key", settings.remote_signing_key, "Sign the entries this run writes with this private key");
        cmd->add_flag("--remote-allow-unsigned", settings.remote_allow_unsigned,
                      "Accept unsigned remote entries (anyone who can write to the server can choose code this run executes)");
    };

    weft::cli::PluginOptions plugin_opts;
    CLI::App *plugin = app.add_subcommand("plugin", "List, inspect and check plugins");
    plugin->require_subcommand(1);
    auto add_common = [&](CLI::App *cmd) {
        cmd->add_option("--plugin-path", plugin_opts.search_path,
                        "Directory to search for plugins (repeatable; WEFT_PLUGIN_PATH is also read)")
        ->allow_extra_args(false); // one value per occurrence: later words stay positional
        cmd->add_flag("--json", plugin_opts.json, "Machine-readable output on stdout");
        add_host_settings(cmd);
    };

    CLI::App *list = plugin->add_subcommand("list", "List the plugins on the search path (reads manifests only)");
    add_common(list);

    CLI::App *inspect = plugin->add_subcommand("inspect", "Load one plugin and show everything it registers");
    add_common(inspect);
    inspect->add_option("plugin", plugin_opts.paths, "Plugin manifest, directory or library, or a name on the search path")
        ->required()
        ->expected(1);

    CLI::App *check = plugin->add_subcommand("check", "Load plugins together and report every conflict and failure");
    add_common(check);
    check->add_flag("--isolate", plugin_opts.isolate, "Load each plugin in a child process, so a crash is reported");
    check->add_option("--isolate-timeout", plugin_opts.isolate_timeout,
                      "With --isolate: seconds a child may run before it is killed and reported as timed out (default 60)")
        ->check(CLI::PositiveNumber);
    check->add_flag("--compile", plugin_opts.compile,
                    "Build a module per plugin that calls every builtin and constructs every native type "
                    "(CPU, and NVRTC when available)");
    check->add_flag("--no-cuda", plugin_opts.no_cuda, "With --compile: build for the CPU only");
    check->add_option("paths", plugin_opts.paths,
                      "Plugin manifests, directories or libraries (default: every plugin on the search path)");

    weft::cli::PluginTrustOptions trust_opts;
    CLI::App *sign = plugin->add_subcommand("sign", "Write a detached Ed25519 signature beside each plugin's manifest");
    sign->add_option("--key", trust_opts.key, "PEM private key (openssl genpkey -algorithm ed25519 -out KEY.pem)")
        ->required();
    sign->add_option("paths", trust_opts.paths, "Plugin manifests, directories or libraries")->required();
    CLI::App *verify = plugin->add_subcommand(
        "verify", "Check plugins against the trust policy (--trusted-keys alone means 'signed'); opens no library");
    add_host_settings(verify);
    verify->add_option("paths", trust_opts.paths, "Plugin manifests, directories or libraries")->required();
    CLI::App *digest = plugin->add_subcommand("digest", "Print each plugin's digest, as an allow-list holds it");
    digest->add_option("paths", trust_opts.paths, "Plugin manifests, directories or libraries")->required();

    weft::cli::CacheOptions cache_opts;
    CLI::App *cache = app.add_subcommand("cache", "Inspect and clear the artifact cache");
    cache->require_subcommand(1);
    cache->add_option("--cache-dir", cache_opts.cache_dir, "Cache root (default: WEFT_CACHE_DIR, $XDG_CACHE_HOME/weft)");
    cache->add_flag("--json", cache_opts.json, "Machine-readable output on stdout");
    cache->add_option("--config", settings.config, "weft configuration file (TOML; default: WEFT_CONFIG)");
    add_remote_settings(cache);
    cache->fallthrough(); // `weft cache list --json`: options after the subcommand are the cache's
    CLI::App *cache_path = cache->add_subcommand("path", "Print the cache directory");
    CLI::App *cache_list = cache->add_subcommand("list", "List cached modules and their targets");
    CLI::App *cache_stats = cache->add_subcommand("stats", "Count entries, artifacts and bytes");
    CLI::App *cache_clear = cache->add_subcommand("clear", "Remove every entry");
    CLI::App *cache_verify = cache->add_subcommand("verify", "Check every entry and artifact; remove what is damaged");
    cache_verify->add_flag("--dry-run", cache_opts.dry_run, "Only report; change nothing");
    CLI::App *cache_push = cache->add_subcommand("push", "Copy every verified local artifact to the remote cache");
    CLI::App *cache_pull = cache->add_subcommand("pull", "Copy every remote artifact that verifies into the local cache");
    CLI::App *cache_prebuild = cache->add_subcommand(
        "prebuild", "Write the runtime headers and their precompiled header into DIR (the build does this for "
                    "<libdir>/weft/prebuilt, which a first compile then uses instead of building its own)");
    cache_prebuild->add_option("dir", cache_opts.prebuild_dir, "Directory to write")->required();
    cache_prebuild->add_option("-O,--opt-level", cache_opts.prebuild_opt_level, "Optimization level 0-3 (default 2)")
        ->check(CLI::Range(0, 3));
    cache_prebuild->add_flag("--fast-math", cache_opts.prebuild_fast_math, "For compiles with fast math");
    cache_prebuild->add_flag("--native-cpu", cache_opts.prebuild_native_cpu, "For compiles for this machine's CPU");

    weft::cli::KernelCheckOptions check_opts;
    CLI::App *kcheck = app.add_subcommand("check", "Parse and type-check a kernel module; print every diagnostic");
    kcheck->add_option("file", check_opts.file, "Kernel source (.py)")->required();
    kcheck->add_option("--plugin", check_opts.plugins,
                       "Plugin to load first: manifest, directory or library, or a name on the search path (repeatable)")
        ->allow_extra_args(false); // one value per occurrence: later words stay positional
    kcheck->add_option("--plugin-path", check_opts.search_path, "Directory to search for plugin requirements")
        ->allow_extra_args(false); // one value per occurrence: later words stay positional
    add_host_settings(kcheck);
    kcheck->add_option("--error-limit", check_opts.error_limit, "Stop after this many errors (default 50; 0: no limit)");
    kcheck->add_option("--dump-ir", check_opts.dump_ir, "Print the IR: 'lowered' (what codegen consumes) or 'typed'")
        ->expected(0, 1)
        ->default_str("lowered")
        ->check(CLI::IsMember({"lowered", "typed"}));
    kcheck->add_flag("--emit-cpp", check_opts.emit_cpp, "Print the C++ source generated for the CPU backend");
    kcheck->add_flag("--emit-cuda", check_opts.emit_cuda, "Print the CUDA C++ source generated for NVRTC");
    kcheck->add_flag("--json", check_opts.json, "A JSON report (kernels, diagnostics) on stdout")
        ->excludes("--dump-ir")
        ->excludes("--emit-cpp")
        ->excludes("--emit-cuda");

    weft::cli::KernelBuildOptions build_opts;
    CLI::App *kbuild = app.add_subcommand("build", "Compile a kernel module ahead of time; print each target's artifact path");
    kbuild->add_option("file", build_opts.file, "Kernel source (.py)")->required();
    kbuild->add_option("--plugin", build_opts.plugins,
                       "Plugin to load first: manifest, directory or library, or a name on the search path (repeatable)")
        ->allow_extra_args(false); // one value per occurrence: later words stay positional
    kbuild->add_option("--plugin-path", build_opts.search_path, "Directory to search for plugin requirements")
        ->allow_extra_args(false); // one value per occurrence: later words stay positional
    kbuild->add_option("--target", build_opts.targets,
                       "Target (repeatable): cpu, cuda:N (that device's arch), sm_XX (CUBIN), compute_XX (PTX); "
                       "devices first, then archs")
        ->allow_extra_args(false);
    add_host_settings(kbuild);
    add_remote_settings(kbuild);
    kbuild->add_option("--name", build_opts.name, "Module name: its identity in the cache (default: the file's stem)");
    kbuild->add_option("--output-dir", build_opts.output_dir, "Also copy the artifacts here, named for load_aot");
    kbuild->add_option("--cache-dir", build_opts.cache_dir, "Cache root (default: WEFT_CACHE_DIR, $XDG_CACHE_HOME/weft)");
    kbuild->add_option("-O,--opt-level", build_opts.opt_level, "Optimization level 0-3 (default 2)")->check(CLI::Range(0, 3));
    kbuild->add_flag("--fast-math", build_opts.fast_math, "Compile with fast math");
    kbuild->add_flag("--no-fmad", build_opts.no_fmad, "CUDA: no mul + add contraction into fma");
    kbuild->add_flag("--line-info", build_opts.line_info, "CUDA: line info in the PTX/CUBIN for profilers");
    kbuild->add_flag("--json", build_opts.json, "Machine-readable output on stdout");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &e) {
        return app.exit(e);
    }

    try {
        if (list->parsed()) return weft::cli::plugin_list(plugin_opts);
        if (inspect->parsed()) return weft::cli::plugin_inspect(plugin_opts);
        if (check->parsed()) return weft::cli::plugin_check(plugin_opts);
        if (sign->parsed()) return weft::cli::plugin_sign(trust_opts);
        if (verify->parsed()) return weft::cli::plugin_verify(trust_opts);
        if (digest->parsed()) return weft::cli::plugin_digest(trust_opts);
        if (kcheck->parsed()) return weft::cli::kernel_check(check_opts);
        if (kbuild->parsed()) return weft::cli::kernel_build(build_opts);
        if (cache_path->parsed()) return weft::cli::cache_path(cache_opts);
        if (cache_list->parsed()) return weft::cli::cache_list(cache_opts);
        if (cache_stats->parsed()) return weft::cli::cache_stats(cache_opts);
        if (cache_clear->parsed()) return weft::cli::cache_clear(cache_opts);
        if (cache_verify->parsed()) return weft::cli::cache_verify(cache_opts);
        if (cache_push->parsed()) return weft::cli::cache_push(cache_opts);
        if (cache_pull->parsed()) return weft::cli::cache_pull(cache_opts);
        if (cache_prebuild->parsed()) return weft::cli::cache_prebuild(cache_opts);
    } catch (const weft::kernel::KernelSourceError &e) {
        // Already "file:line:col: error: ..." lines with their source lines:
        // a "weft: error: " in front would say it twice (issue 15).
        weft::cli::print_to(stderr, "{}", e.what());
        return 1;
    } catch (const weft::UserError &e) {
        weft::cli::print_to(stderr, "weft: error: {}\n", e.what());
        return 1;
    } catch (const std::exception &e) {
        weft::cli::print_to(stderr, "weft: internal error: {}\n", e.what());
        return 2;
    }
    return 0;
}
