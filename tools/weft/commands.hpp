#pragma once

#include <string>
#include <vector>

namespace weft::cli {

struct PluginOptions {
    std::vector<std::string> search_path;
    std::vector<std::string> paths;
    bool json = false;
    bool isolate = false;
};

int plugin_list(const PluginOptions &options);
int plugin_inspect(const PluginOptions &options);
int plugin_check(const PluginOptions &options);

struct CacheOptions {
    std::string cache_dir; // "" = WEFT_CACHE_DIR, $XDG_CACHE_HOME/weft, ~/.cache/weft
    bool json = false;
};

int cache_path(const CacheOptions &options);
int cache_list(const CacheOptions &options);
int cache_stats(const CacheOptions &options);
int cache_clear(const CacheOptions &options);

struct KernelCheckOptions {
    std::string file;
    std::vector<std::string> plugins;
    std::vector<std::string> search_path;
    std::size_t error_limit = 50;
    std::string dump_ir; // "", "lowered" or "typed": print the module's IR on stdout
    bool emit_cpp = false;  // print the generated C++ (CPU) on stdout
    bool emit_cuda = false; // print the generated CUDA C++ on stdout
};

int kernel_check(const KernelCheckOptions &options);

struct KernelBuildOptions {
    std::string file;
    std::vector<std::string> plugins;
    std::vector<std::string> search_path;
    std::vector<std::string> targets; // in order; default: cpu
    std::string cache_dir;
    int opt_level = 2;
    bool fast_math = false;
    bool json = false;
};

int kernel_build(const KernelBuildOptions &options);

} // namespace weft::cli
