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
// run:  saxpy over 10M float32 (all cores, and one thread), launch overhead;
// edit: one process and an empty cache: load saxpy.py, then time a cold
//       compile of ten_kernels.py (cold_compile_warm_headers_ms), then for
//       each edit in edits.txt and each of 5 repetitions, time loading the
//       edited text (a file written beside it): the compile units the edit
//       changed are compiled, the others come from the cache. As on Warp's side.
#include "weft/host/host.hpp"

#include "weft/support/file.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
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
    if (kernels.empty() || cache.empty() || (mode != "cold" && mode != "warm" && mode != "run" && mode != "edit")) {
        std::fprintf(stderr, "usage: weft_side --kernels DIR --mode cold|warm|run|edit --cache-dir DIR\n");
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
    if (mode == "edit") {
        const fs::path edits = WEFT_BENCH_EDITS;
        std::ifstream in(edits);
        if (!in) {
            std::fprintf(stderr, "weft_side: cannot read %s\n", edits.c_str());
            return 1;
        }
        fs::remove_all(cache / "edit");
        weft::HostOptions o = options(0, "edit");
        weft::Host host(o);
        const std::string text = weft::read_input_file(kernels / "ten_kernels.py", 1 << 20, "kernel file");
        const fs::path work = cache / "edit-files";
        fs::create_directories(work);
        const auto load = [&](const std::string &source) {
            const fs::path file = work / "ten_kernels.py";
            weft::write_file_atomically(file, source);
            const auto t0 = Clock::now();
            const weft::CompiledModule m = host.load_module(file);
            if (m.from_cache()) {
                std::fprintf(stderr, "weft_side: an edited module came from the cache\n");
                std::exit(1);
            }
            return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        };
        // As on Warp's side: the headers warm (here the prebuilt PCH, which
        // the first load of saxpy.py reads), then a cold compile of ten_kernels.py.
        (void)host.load_module(kernels / "saxpy.py");
        // Each under a module name of its own: a cold compile every time (median of 3).
        std::vector<double> cold;
        for (int r = 0; r < 3; ++r) {
            const fs::path copy = work / ("ten_kernels_cold" + std::to_string(r) + ".py");
            weft::write_file_atomically(copy, text);
            const auto t0 = Clock::now();
            (void)host.load_module(copy);
            cold.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        }
        std::printf("weft cold_compile_warm_headers_ms ten_kernels.py %.3f\n", median(cold));
        (void)load(text);
        for (std::string line; std::getline(in, line);) {
            if (line.empty() || line[0] == '#') continue;
            const std::size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
            const std::string key = line.substr(0, t1), old_text = line.substr(t1 + 1, t2 - t1 - 1);
            std::string replacement = line.substr(t2 + 1);
            for (std::size_t at; (at = replacement.find("\\n")) != std::string::npos;) replacement.replace(at, 2, "\n");
            const std::size_t where = text.find(old_text);
            if (where == std::string::npos) {
                std::fprintf(stderr, "weft_side: edit %s: text not found in ten_kernels.py\n", key.c_str());
                return 1;
            }
            std::vector<double> ms;
            const weft::CacheCounters before = host.cache_counters();
            for (int r = 1; r <= 5; ++r) {
                std::string edited = text, now = replacement;
                for (std::size_t at; (at = now.find("{r}")) != std::string::npos;) now.replace(at, 3, std::to_string(r));
                edited.replace(where, old_text.size(), now);
                ms.push_back(load(edited));
            }
            const weft::CacheCounters after = host.cache_counters();
            std::printf("# %s: compile units compiled %llu, from the cache %llu (5 repetitions)\n", key.c_str(),
                        static_cast<unsigned long long>(after.unit_compiles - before.unit_compiles),
                        static_cast<unsigned long long>(after.unit_hits - before.unit_hits));
            std::printf("weft %s_ms ten_kernels.py %.3f\n", key.c_str(), median(ms));
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
