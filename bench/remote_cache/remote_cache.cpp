// The shared artifact cache against a real redis-server on a random loopback
// port: for each bench kernel file, a cold load (local and remote miss:
// compile, store both), a remote hit (empty local cache: fetch, verify, store
// locally) and a local hit, each in a new Host. Prints `ratio` lines:
//   ratio remote_hit_vs_cold_<file>       remote hit / cold compile
//   ratio local_hit_vs_remote_hit_<file>  local hit / remote hit
//   ratio local_hit_vs_cold_<file>        local hit / cold compile
// Without redis-server it says so and exits 77 (reported as skipped).
//
//   build/bin/bench_remote_cache [--kernels bench/kernels] [--repeat 5]
#include "redis_server.hpp"

#include "weft/host/host.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

weft::HostOptions host_options(const fs::path &cache, const std::string &url) {
    weft::HostOptions o;
    o.use_environment = false;
    o.cache_dir = cache;
    o.quiet = true;
    o.remote_cache.url = url;
    o.remote_cache.require_signature = false; // the bench measures transfers, not signatures
    o.log_sink = [](weft::LogLevel, std::string_view, std::string_view) {};
    return o;
}

/// Removes compiled modules but keeps the PCH and runtime headers: a cold
/// load measures compiling the module, not building the PCH.
void drop_entries(const fs::path &cache) {
    for (const char *dir : {"v1/entries", "v1/generated", "v1/tmp"}) fs::remove_all(cache / dir);
}

/// One load in a new Host; milliseconds. `expect` checks what the tiers did.
double timed_load(const fs::path &cache, const std::string &url, const fs::path &file, const char *expect) {
    const auto t0 = Clock::now();
    weft::Host host(host_options(cache, url));
    host.load_module(file);
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    const weft::CacheCounters c = host.cache_counters();
    const bool ok = std::strcmp(expect, "cold") == 0     ? c.compiles > 0
                    : std::strcmp(expect, "remote") == 0 ? c.compiles == 0 && c.remote.hits > 0
                                                          : c.compiles == 0 && c.local_hits > 0;
    if (!ok) {
        std::fprintf(stderr, "bench_remote_cache: %s load of %s did not do what it measures\n", expect,
                     file.string().c_str());
        std::exit(1);
    }
    return ms;
}

} // namespace

int main(int argc, char **argv) {
    fs::path kernels = fs::path(__FILE__).parent_path().parent_path() / "kernels";
    int repeat = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--kernels") == 0) kernels = argv[i + 1];
        if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[i + 1]));
    }
    if (!weft::test::RedisServer::find_binary()) {
        std::printf("bench_remote_cache: skipped: redis-server is not installed\n");
        return 77;
    }
    weft::test::RedisServer redis;
    const fs::path root = fs::temp_directory_path() / "weft_bench_remote_cache";
    fs::remove_all(root);
    std::vector<fs::path> files;
    for (const auto &e : fs::directory_iterator(kernels))
        if (e.path().extension() == ".py") files.push_back(e.path());
    std::sort(files.begin(), files.end());

    for (const fs::path &file : files) {
        const std::string name = file.stem().string();
        const fs::path local = root / name;
        // Builds the PCH once, outside the measurements.
        timed_load(local, redis.url(), file, "cold");
        std::vector<double> cold, remote, hit;
        for (int r = 0; r < repeat; ++r) {
            drop_entries(local);
            redis.command({"FLUSHALL"});
            cold.push_back(timed_load(local, redis.url(), file, "cold"));
            drop_entries(local);
            remote.push_back(timed_load(local, redis.url(), file, "remote"));
            hit.push_back(timed_load(local, redis.url(), file, "local"));
        }
        const double c = median(cold), m = median(remote), l = median(hit);
        std::printf("%-12s cold %9.2f ms   remote hit %8.2f ms   local hit %8.2f ms\n", name.c_str(), c, m, l);
        std::printf("ratio remote_hit_vs_cold_%s %.4f\n", name.c_str(), m / c);
        std::printf("ratio local_hit_vs_remote_hit_%s %.4f\n", name.c_str(), l / m);
        std::printf("ratio local_hit_vs_cold_%s %.4f\n", name.c_str(), l / c);
    }
    fs::remove_all(root);
    return 0;
}
