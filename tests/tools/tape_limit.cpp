// A backward pass whose saved values outgrow the memory the process may have:
// the launch fails with a message naming the kernel (issue 39: the tape's
// growth malloc was unchecked, and a long loop under a memory limit died with
// SIGSEGV). Run as its own process: it lowers its address-space limit.
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/launch.hpp"
#include "weft/support/error.hpp"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <sys/resource.h>

namespace {

const char *const source = R"(
import warp as wp

@wp.kernel
def long_loop(n: int, x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    v = x[i]
    for k in range(n):
        v = v * 0.999999 + 0.000001
    y[i] = v
)";

/// The process's address space now, from /proc/self/status (VmSize, kB).
unsigned long long address_space_bytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    unsigned long long kb = 0;
    while (status >> key)
        if (key == "VmSize:" && status >> kb) return kb * 1024;
    return 0;
}

} // namespace

int main(int argc, char **argv) {
#if defined(__SANITIZE_ADDRESS__)
    std::puts("SKIPPED: AddressSanitizer reserves terabytes of shadow memory; an address-space limit breaks it");
    return 77;
#endif
    if (argc != 2) {
        std::fprintf(stderr, "usage: tape_limit CACHE_DIR\n");
        return 2;
    }
    weft::HostOptions o;
    o.use_environment = false;
    o.cache_dir = argv[1];
    o.quiet = true;
    weft::Host host(o);
    weft::CompiledModule m = host.load_module_source("tape_limit", source);
    const weft::Kernel k = m.kernel("long_loop");
    const weft::Type f32 = weft::Type::scalar(weft::Scalar::Float32);
    weft::Array x = weft::Array::from_vector(f32, std::vector<float>{0.5f}, weft::Device::cpu(), true);
    weft::Array y = weft::Array::zeros(f32, {1}, weft::Device::cpu(), true);
    auto backward = [&](int n) {
        weft::Tape tape;
        {
            weft::Tape::Scope scope(tape);
            k.launch({1}, {n, x, y});
        }
        tape.backward(y);
    };
    backward(1000); // builds the backward pass, starts the workers: all before the limit
    const double small = x.grad().to_vector<float>()[0];
    // 200 million iterations save 800 MB; the process may grow by 256 MiB.
    const rlim_t limit = address_space_bytes() + (256ull << 20);
    const rlimit r{limit, limit};
    if (setrlimit(RLIMIT_AS, &r) != 0) {
        std::perror("setrlimit");
        return 2;
    }
    try {
        backward(200'000'000);
        std::printf("FAILED: the backward pass of 200 million iterations under a 256 MiB limit did not fail\n");
        return 1;
    } catch (const weft::LaunchError &e) {
        std::printf("launch failed: %s\n", e.what());
        const std::string message = e.what();
        const bool named = message.find("backward pass of 'long_loop' (tape_limit.py:") != std::string::npos &&
                           message.find("could not allocate") != std::string::npos;
        std::printf("%s (first backward: dx = %g)\n", named ? "ok" : "FAILED: the message does not say what failed",
                    small);
        return named ? 0 : 1;
    }
}
