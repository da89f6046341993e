// bench/hash: what deciding "must this module be compiled again?" costs.
//  1. Module hash with 1 MiB of dependency files and 50 referenced external
//     builtins, against `sha256sum` of the same bytes (a subprocess, as a
//     build system would run it) and against bare in-process SHA-256.
//  2. A cache hit for a 1 MiB artifact (hash known -> located, read, verified),
//     against reading the same file and hashing it.
//
//   build/bin/bench_hash [--repeat K]
#include "weft/cache/cache.hpp"
#include "weft/build/module_hash.hpp"
#include "weft/host/host.hpp"
#include "weft/support/sha256.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::string read_all(const fs::path &p) {
    std::ifstream in(p, std::ios::binary | std::ios::ate);
    std::string s(static_cast<std::size_t>(in.tellg()), '\0');
    in.seekg(0);
    in.read(s.data(), static_cast<std::streamsize>(s.size()));
    return s;
}

} // namespace

int main(int argc, char **argv) {
    int repeat = 21;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));

    const fs::path dir = fs::temp_directory_path() / ("weft_bench_hash_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);

    // 16 dependency files of 64 KiB: 1 MiB in all.
    weft::ModuleBuildOptions options;
    std::string files;
    std::uint64_t seed = 88172645463325252ull;
    for (int f = 0; f < 16; ++f) {
        std::string content(64 * 1024, '\0');
        for (char &c : content) {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            c = static_cast<char>('a' + seed % 26);
        }
        const fs::path p = dir / ("dep" + std::to_string(f) + ".h");
        std::ofstream(p, std::ios::binary) << content;
        options.extra_build_dependencies.push_back(p.string());
        files += " " + p.string();
    }

    weft::HostOptions ho;
    ho.use_environment = false;
    ho.cache_dir = dir / "cache";
    weft::Host host(ho);
    weft::ModuleHashInputs inputs;
    inputs.generated_source = std::string(20000, 'x');
    inputs.runtime_header_digest = std::string(64, 'r');
    inputs.toolchain = "clang 19";
    {
        auto tx = host.registry().begin("bench");
        for (int i = 0; i < 50; ++i)
            tx.add_builtin({"bench_f" + std::to_string(i), {{"x", "float32"}, {"v", "vec3"}}, "float32",
                            "bench::f" + std::to_string(i), "", {}});
        tx.commit();
    }
    for (int i = 0; i < 50; ++i)
        inputs.referenced_builtins.push_back(host.registry().overloads("bench_f" + std::to_string(i))[0]);

    weft::ModuleSettings &module = host.module("bench");
    std::vector<double> hash_ms, sha256sum_ms, raw_ms;
    const std::string command = "sha256sum" + files + " > /dev/null";
    for (int k = 0; k < repeat; ++k) {
        auto t0 = Clock::now();
        module.set_build_options(options); // the invalidation point: deps are re-read
        const std::string h = module.hash(inputs);
        hash_ms.push_back(ms_since(t0));
        if (h.size() != 64) return 1;

        t0 = Clock::now();
        if (std::system(command.c_str()) != 0) {
            std::fprintf(stderr, "sha256sum failed\n");
            return 1;
        }
        sha256sum_ms.push_back(ms_since(t0));

        t0 = Clock::now();
        weft::Sha256 raw;
        for (const std::string &p : options.extra_build_dependencies) raw.update(read_all(p));
        raw.hex();
        raw_ms.push_back(ms_since(t0));
    }

    // Cache hit for a 1 MiB artifact.
    const weft::ArtifactCache &cache = host.cache();
    const std::string key = module.hash(inputs);
    const std::string artifact = read_all(options.extra_build_dependencies[0]) + std::string(960 * 1024, 'z');
    const weft::CachedArtifact stored = cache.store("bench", key, weft::Target::cpu(), inputs.generated_source, artifact);
    std::vector<double> hit_ms, read_ms;
    for (int k = 0; k < repeat; ++k) {
        auto t0 = Clock::now();
        const auto hit = cache.find("bench", key, weft::Target::cpu());
        hit_ms.push_back(ms_since(t0));
        if (!hit || hit->content.size() != artifact.size()) return 1;
        t0 = Clock::now();
        const std::string bytes = read_all(stored.path);
        weft::sha256_hex(bytes);
        read_ms.push_back(ms_since(t0));
    }

    const double h = median(hash_ms), s = median(sha256sum_ms), r = median(raw_ms);
    const double hit = median(hit_ms), rd = median(read_ms);
    std::printf("module hash, 1 MiB in 16 dependency files + 50 contracts, %d repeats (medians)\n", repeat);
    std::printf("  weft module hash (set options + hash)  %8.3f ms\n", h);
    std::printf("  sha256sum subprocess, same files       %8.3f ms\n", s);
    std::printf("  bare SHA-256 in process, same bytes    %8.3f ms\n", r);
    std::printf("  ratio weft / sha256sum:   %.2f\n", h / s);
    std::printf("  ratio weft / bare SHA-256: %.2f\n", h / r);
    std::printf("cache hit, 1 MiB artifact (locate + read + verify)\n");
    std::printf("  weft cache find                        %8.3f ms\n", hit);
    std::printf("  read + SHA-256 of the same file        %8.3f ms\n", rd);
    std::printf("  ratio find / read+hash:   %.2f\n", hit / rd);
    fs::remove_all(dir);
    return 0;
}
