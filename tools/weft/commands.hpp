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

} // namespace weft::cli
