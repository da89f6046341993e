// bench/frontend: parse + check a generated module of ~20 000 lines; prints
// lines/s and peak memory, and, when python3 is on PATH, CPython's
// ast.parse of the same text (parsing only) side by side.
//
//   build/bin/bench_frontend [--lines N] [--repeat K]
#include "weft/kernel/frontend.hpp"
#include "weft/registry/registry.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// One block of ~40 lines: a struct, an overloaded func, a generic func and two kernels.
std::string block(int i) {
    const std::string n = std::to_string(i);
    return "@wp.struct\n"
           "class Particle" + n + ":\n"
           "    pos: wp.vec3\n"
           "    vel: wp.vec3\n"
           "    mass: float\n"
           "\n"
           "@wp.func\n"
           "def spring" + n + "(a: wp.vec3, b: wp.vec3, k: float) -> wp.vec3:\n"
           "    d = b - a\n"
           "    l = wp.length(d)\n"
           "    if l > 0.0:\n"
           "        return d * (k * (l - 1.0) / l)\n"
           "    return wp.vec3(0.0, 0.0, 0.0)\n"
           "\n"
           "@wp.func\n"
           "def lerp" + n + "(a: Any, b: Any, t: float):\n"
           "    return a * (1.0 - t) + b * t\n"
           "\n"
           "@wp.kernel\n"
           "def integrate" + n + "(ps: wp.array(dtype=Particle" + n + "), dt: float, g: wp.vec3):\n"
           "    i = wp.tid()\n"
           "    p = ps[i]\n"
           "    f = g * p.mass + spring" + n + "(p.pos, wp.vec3(0.0, 1.0, 0.0), 10.0)\n"
           "    p.vel = p.vel + f * (dt / p.mass)\n"
           "    p.pos = lerp" + n + "(p.pos, p.pos + p.vel * dt, 0.5)\n"
           "    ps[i] = p\n"
           "\n"
           "@wp.kernel\n"
           "def reduce" + n + "(xs: wp.array(dtype=float), out: wp.array(dtype=float)):\n"
           "    i = wp.tid()\n"
           "    acc = float(0.0)\n"
           "    for k in range(4):\n"
           "        v = xs[i] * float(k)\n"
           "        if v > 1.0:\n"
           "            acc += wp.sqrt(v)\n"
           "        elif v < -1.0:\n"
           "            acc -= wp.abs(v)\n"
           "        else:\n"
           "            acc += v * v\n"
           "    wp.atomic_add(out, 0, lerp" + n + "(acc, 1.0, 0.25))\n"
           "\n";
}

long peak_rss_kib() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

} // namespace

int main(int argc, char **argv) {
    int lines_wanted = 20000, repeat = 5;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--lines") == 0) lines_wanted = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--repeat") == 0) repeat = std::max(1, std::atoi(argv[++i]));
    }
    std::string text = "import warp as wp\nfrom typing import Any\n\n";
    int blocks = 0;
    while (std::count(text.begin(), text.end(), '\n') < lines_wanted) text += block(blocks++);
    const auto lines = std::count(text.begin(), text.end(), '\n');

    weft::Registry registry;
    weft::register_core_builtins(registry);
    const long rss_before = peak_rss_kib();
    std::vector<double> seconds;
    std::size_t kernels = 0;
    for (int k = 0; k < repeat; ++k) {
        const auto t0 = Clock::now();
        weft::kernel::SourceFile file("generated.py", text);
        const weft::kernel::FrontendResult r = weft::kernel::check_module(file, registry);
        seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
        if (!r.ok()) {
            std::fprintf(stderr, "%s", r.formatted.c_str());
            return 1;
        }
        kernels = r.module.functions.size();
    }
    const long rss_after = peak_rss_kib();
    std::sort(seconds.begin(), seconds.end());
    const double s = seconds[seconds.size() / 2];
    std::printf("module: %ld lines, %d blocks, %zu function instances and kernels; %d repeats (median)\n", lines, blocks,
                kernels, repeat);
    std::printf("weft parse + check       %8.1f ms   %10.0f lines/s\n", s * 1e3, static_cast<double>(lines) / s);
    std::printf("peak RSS growth          %8ld KiB  (process peak %ld KiB)\n", rss_after - rss_before, rss_after);

    // Side by side: CPython's parser on the same text (parse only, no type checking).
    if (std::system("command -v python3 >/dev/null 2>&1") == 0) {
        const auto path = std::filesystem::temp_directory_path() / "weft_bench_frontend.py";
        std::ofstream(path) << text;
        const std::string cmd = "python3 -c \"import ast,time,sys; s=open(sys.argv[1]).read(); ts=[]\n"
                                "for _ in range(" + std::to_string(repeat) + "):\n"
                                "    t=time.perf_counter(); ast.parse(s); ts.append(time.perf_counter()-t)\n"
                                "ts.sort(); print(ts[len(ts)//2])\" " + path.string();
        if (FILE *p = popen(cmd.c_str(), "r")) {
            double py = 0;
            if (std::fscanf(p, "%lf", &py) == 1 && py > 0) {
                std::printf("CPython ast.parse        %8.1f ms   %10.0f lines/s\n", py * 1e3, static_cast<double>(lines) / py);
                std::printf("ratio parse_check_vs_cpython_parse %.2f\n", s / py);
            }
            pclose(p);
        }
        std::filesystem::remove(path);
    }
    return 0;
}
