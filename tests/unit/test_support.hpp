#pragma once

#include "weft/host/host.hpp"

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

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

/// An empty directory under the system's temporary directory, removed at the
/// end; named per process, so parallel test runs never share one.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const std::string &name)
        : path(std::filesystem::temp_directory_path() / ("weft_" + name + "_" + std::to_string(::getpid()))) {
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() { std::filesystem::remove_all(path); }
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
};

/// test_host_options() with its artifact cache in `cache`, quiet.
inline HostOptions cached_host_options(const std::filesystem::path &cache) {
    HostOptions o = test_host_options();
    o.cache_dir = cache;
    o.quiet = true;
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
