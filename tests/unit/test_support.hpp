#pragma once

#include "weft/host/host.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace weft::test {

inline std::filesystem::path plugin_dir(const std::string &name) {
    return std::filesystem::path(WEFT_TEST_PLUGIN_DIR) / name;
}

/// A host that ignores the environment and searches the test plugins.
inline HostOptions test_host_options(std::vector<std::string> *log = nullptr) {
    HostOptions o;
    o.use_environment = false;
    o.search_path = {WEFT_TEST_PLUGIN_DIR};
    if (log) {
        o.log_sink = [log](LogLevel, std::string_view category, std::string_view message) {
            log->push_back(std::string(category) + ": " + std::string(message));
        };
        o.log_categories = "loader,registry,plugin";
    }
    return o;
}

/// Message of the exception `f` throws, or "" if it throws none.
template <class E, class F> std::string message_of(F &&f) {
    try {
        f();
    } catch (const E &e) {
        return e.what();
    }
    return {};
}

} // namespace weft::test
