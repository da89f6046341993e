// A second (and third) real process for the cache tests: waits for a start
// signal, then gets-or-builds COUNT entries, each a deterministic artifact.
//   cache_writer ROOT MODULE COUNT GO_FILE [TARGET]
// TARGET: cpu (default), cuda-compute_<arch>-ptx or cuda-sm_<arch>-cubin.
// WEFT_CACHE_WRITER_KILL_AT=POINT: the writer SIGKILLs itself when store()
// reaches POINT ("artifact-published"), so a test can look at what a writer
// killed there leaves behind.
#include "weft/cache/cache.hpp"
#include "weft/support/sha256.hpp"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        std::fprintf(stderr, "usage: cache_writer ROOT MODULE COUNT GO_FILE [TARGET]\n");
        return 2;
    }
    weft::ArtifactCache cache(argv[1]);
    const std::string module = argv[2];
    const int count = std::atoi(argv[3]);
    const weft::Target target = argc == 6 ? weft::Target::parse(argv[5]) : weft::Target::cpu();
    if (const char *point = std::getenv("WEFT_CACHE_WRITER_KILL_AT"); point && *point)
        cache.set_fault_hook([kill_at = std::string(point)](std::string_view reached) {
            if (reached == kill_at) std::raise(SIGKILL);
        });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!std::filesystem::exists(argv[4]))
        if (std::chrono::steady_clock::now() > deadline) return 3;
        else std::this_thread::sleep_for(std::chrono::microseconds(200));

    int built = 0;
    for (int i = 0; i < count; ++i) {
        const std::string hash = weft::sha256_hex("entry-" + std::to_string(i));
        std::string artifact;
        for (int k = 0; k < 4096; ++k) artifact += hash; // 256 KiB, same bytes in every process
        if (target != weft::Target::cpu()) artifact += target.str();
        if (!cache.find(module, hash, target)) {
            cache.store(module, hash, target, "// source " + hash + "\n", artifact);
            ++built;
        }
        const auto hit = cache.find(module, hash, target);
        if (!hit || hit->content != artifact) {
            std::fprintf(stderr, "entry %d not valid after store\n", i);
            return 1;
        }
    }
    std::printf("built %d of %d\n", built, count);
    return 0;
}
