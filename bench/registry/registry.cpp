// bench/registry: the cost of one registration as a plugin's init registers
// more builtins.
// Registering must be linear: the time per builtin at 4N over the time per
// builtin at N is about 1 (it was about 4 with a scan of every staged overload).
//
//   build/bin/bench_registry [--small]
#include "weft/registry/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// Milliseconds to register n builtins in one transaction, as one plugin's init does.
double register_builtins(std::size_t n) {
    weft::Registry registry;
    weft::register_core_builtins(registry);
    const auto t0 = Clock::now();
    auto tx = registry.begin("bench", weft::NamespacePolicy{{"_bench_"}, {"bench::"}});
    for (std::size_t i = 0; i < n; ++i) {
        weft::BuiltinSpec spec;
        spec.name = "_bench_f" + std::to_string(i);
        spec.params.push_back({"x", "float32"});
        spec.result = "float32";
        spec.native_name = "bench::f" + std::to_string(i);
        tx.add_builtin(spec);
    }
    tx.commit();
    return ms_since(t0);
}

} // namespace

int main(int argc, char **argv) {
    const bool small = argc > 1 && std::strcmp(argv[1], "--small") == 0;
    const std::size_t n = small ? 2000 : 25000;
    std::vector<double> at_n, at_4n;
    for (int k = 0; k < (small ? 1 : 3); ++k) {
        // Interleaved, so drift on a noisy machine hits both alike.
        at_n.push_back(register_builtins(n));
        at_4n.push_back(register_builtins(4 * n));
    }
    std::sort(at_n.begin(), at_n.end());
    std::sort(at_4n.begin(), at_4n.end());
    const double ms_n = at_n[at_n.size() / 2], ms_4n = at_4n[at_4n.size() / 2];
    std::printf("registering %zu builtins: %.1f ms; %zu builtins: %.1f ms\n", n, ms_n, 4 * n, ms_4n);
    std::printf("ratio registry_per_builtin_4n_over_n %.2f\n", (ms_4n / double(4 * n)) / (ms_n / double(n)));
    return 0;
}
