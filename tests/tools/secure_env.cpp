// Prints what a host takes from the environment: whether the process runs
// with AT_SECURE, the plugin search path, the cache root and the debug
// categories. tests/cli/secure_env.sh runs it plain and as a setgid copy.
#include "weft/cache/cache.hpp"
#include "weft/host/host.hpp"
#include "weft/support/environment.hpp"

#include <cstdio>

int main() {
    weft::HostOptions o;
    o.log_sink = [](weft::LogLevel, std::string_view, std::string_view) {};
    o.remote_cache.require_signature = false; // a URL from the environment needs no keys here
    weft::Host host(o);
    std::printf("secure %d\n", weft::secure_execution() ? 1 : 0);
    for (const auto &dir : host.search_path()) std::printf("search %s\n", dir.c_str());
    std::printf("cache %s\n", weft::ArtifactCache::default_root().c_str());
    std::printf("debug %d\n", host.logger().enabled(weft::LogLevel::Debug, "loader") ? 1 : 0);
    std::printf("remote %s\n", host.remote_cache() ? host.remote_cache()->options().url.c_str() : "-");
    return 0;
}
