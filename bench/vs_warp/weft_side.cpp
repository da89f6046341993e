// weft's side of bench/vs_warp: the same measurements warp_side.py makes with
// NVIDIA Warp, printed with the same keys (`weft <key> [file] <value>`).
//   weft_side --kernels DIR --mode cold|warm|run --cache-dir DIR
// cold: compile with an empty cache, each file in 5 new processes (the median,
//       as on Warp's side), with the precompiled runtime header the build
//       prebuilt (as Warp's own runtime comes prebuilt); then, keyed
//       cold_compile_no_prebuilt_ms, again without it (the process builds the
//       PCH too);
// warm: load with the cache populated, each file in 5 new processes (the
//       median; each is the first load of its process, as on Warp's side);
// run:  saxpy over 10M float32 (all cores, and one thread), launch overhead.
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
} // namespace

int main(int argc, char **argv) {
    fs::path kernels, cache;
    std::string mode, only;
    bool prebuilt = true;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--kernels")) kernels = argv[i + 1];
        else if (!std::strcmp(argv[i], "--mode")) mode = argv[i + 1];
        else if (!std::strcmp(argv[i], "--cache-dir")) cache = argv[i + 1];
        else if (!std::strcmp(argv[i], "--file")) only = argv[i + 1]; // cold, warm: one file, in this process
        else if (!std::strcmp(argv[i], "--prebuilt")) prebuilt = std::strcmp(argv[i + 1], "0") != 0; // cold
    }
    if (kernels.empty() || cache.empty() || (mode != "cold" && mode != "warm" && mode != "run")) {
        std::fprintf(stderr, "usage: weft_side --kernels DIR --mode cold|warm|run --cache-dir DIR\n");
        return 2;
    }
    // One cache per kernel file: a cold compile of one leaves the other's warm entry.
    auto options = [&](unsigned threads, const std::string &file = "saxpy.py", bool with_prebuilt = true) {
        weft::HostOptions o;
        o.use_environment = false;
        o.cache_dir = cache / (fs::path(file).stem().string() + (with_prebuilt ? "" : "-no-prebuilt"));
        if (!with_prebuilt) o.prebuilt_dir = fs::path();
        o.quiet = true;
        o.threads = threads;
        return o;
    };
    if ((mode == "warm" || mode == "cold") && only.empty()) {
        // Each measurement is the first load of a new process, as on Warp's side.
        const fs::path self = fs::canonical("/proc/self/exe");
        for (const bool with_prebuilt : mode == "cold" ? std::vector<bool>{true, false} : std::vector<bool>{true})
            for (const char *file : {"saxpy.py", "ten_kernels.py"}) {
                std::vector<double> ms;
                std::string key_seen;
                for (int r = 0; r < 5; ++r) {
                    const std::string cmd = "'" + self.string() + "' --kernels '" + kernels.string() + "' --mode " + mode +
                                            " --cache-dir '" + cache.string() + "' --file " + file + " --prebuilt " +
                                            (with_prebuilt ? "1" : "0");
                    FILE *p = popen(cmd.c_str(), "r");
                    double v = 0;
                    char key[64], name[64];
                    const bool ok = p && std::fscanf(p, "weft %63s %63s %lf", key, name, &v) == 3;
                    if (p && pclose(p) != 0) return 1;
                    if (!ok) return 1;
                    key_seen = key;
                    ms.push_back(v);
                }
                std::printf("weft %s %s %.3f\n", key_seen.c_str(), file, median(ms));
            }
        return 0;
    }
    if (mode == "cold" || mode == "warm") {
        for (const char *file : {"saxpy.py", "ten_kernels.py"}) {
            if (only != file) continue;
            const std::string dir = fs::path(file).stem().string() + (prebuilt ? "" : "-no-prebuilt");
            if (mode == "cold") fs::remove_all(cache / dir);
            weft::Host host(options(0, file, prebuilt));
            // Timed around the call, so reading the file counts, as Warp's
            // side counts importing it (CompiledModule::load_ms starts after
            // the read). The Host's construction is left out, as wp.init() is.
            const auto t0 = Clock::now();
            weft::CompiledModule m = host.load_module(kernels / file);
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            if ((mode == "warm") != m.from_cache()) {
                std::fprintf(stderr, "weft_side: %s was %s, expected %s\n", file, m.from_cache() ? "cached" : "compiled",
                             mode == "warm" ? "cached" : "compiled");
                return 1;
            }
            const char *key = mode == "warm" ? "warm_load_ms" : prebuilt ? "cold_compile_ms" : "cold_compile_no_prebuilt_ms";
            std::printf("weft %s %s %.3f\n", key, file, ms);
        }
        return 0;
    }
    const weft::Type f32 = weft::Type::scalar(weft::Scalar::Float32);
    const std::int64_t n = 10'000'000;
    for (unsigned threads : {0u, 1u}) {
        weft::Host host(options(threads));
        const weft::Kernel saxpy = host.load_module(kernels / "saxpy.py").kernel("saxpy");
        weft::Array x = weft::Array::from_vector(f32, std::vector<float>(n, 1.0f));
        weft::Array y = weft::Array::from_vector(f32, std::vector<float>(n, 2.0f));
        std::vector<double> t;
        for (int r = 0; r < 12; ++r) {
            const auto t0 = Clock::now();
            saxpy.launch({n}, {x, y, 3.0f});
            if (r >= 2) t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
        std::printf("weft %s %.3f\n", threads ? "saxpy_10M_1thread_ms" : "saxpy_10M_ms", median(t));
        if (threads) continue;
        weft::Array x1 = weft::Array::from_vector(f32, std::vector<float>(1, 1.0f));
        weft::Array y1 = weft::Array::from_vector(f32, std::vector<float>(1, 2.0f));
        std::vector<double> l;
        for (int r = 0; r < 1000; ++r) {
            const auto t0 = Clock::now();
            saxpy.launch({1}, {x1, y1, 3.0f});
            l.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
        std::printf("weft launch_overhead_us %.3f\n", median(l));
    }
    return 0;
}
