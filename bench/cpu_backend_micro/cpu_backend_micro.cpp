// Cold compile latency of the CPU backend, side by side in one run:
// a ~50-line TU including a ~300-line header of inline math, -O2,
//   in process (weft_backend_cpu) without and with a PCH,
//   `clang++-19 -O2 -c` subprocess without and with a PCH (same flags),
// 5 runs each, medians; plus JIT load time and the memory a
// compile + load + unload cycle leaves behind.
#include "weft/backend/cpu_compiler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

using namespace weft::backend;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string header_text() {
    std::string h = "#pragma once\n#include <cmath>\n#include <cstdint>\nnamespace wm {\n"
                    "struct vec3 { float x, y, z; };\n"
                    "inline vec3 operator+(vec3 a, vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }\n"
                    "inline vec3 operator-(vec3 a, vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }\n"
                    "inline vec3 operator*(vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }\n"
                    "inline float dot(vec3 a, vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }\n"
                    "inline float length(vec3 a) { return std::sqrt(dot(a, a)); }\n"
                    "inline vec3 normalize(vec3 a) { return a * (1.0f / length(a)); }\n";
    for (int i = 0; i < 96; ++i) {
        const std::string n = std::to_string(i);
        h += "inline float poly" + n + "(float x) {\n";
        h += "    return ((x * " + n + ".5f + 1.0f) * x + std::sin(x * " + n + ".0f)) / (1.0f + x * x);\n";
        h += "}\n";
    }
    h += "} // namespace wm\n";
    return h;
}

// ~50 lines of generated-kernel-like code.
const char *const user_text = R"(
struct Launch { int dim; };
static inline float shade(wm::vec3 p, wm::vec3 n, float t) {
    wm::vec3 l = wm::normalize(wm::vec3{1.0f, 2.0f, 3.0f} - p);
    float d = wm::dot(n, l);
    return d > 0.0f ? d * wm::poly3(t) : wm::poly4(t) * 0.1f;
}
extern "C" void kernel_saxpy(const Launch *launch, float a, const float *x, float *y) {
    for (int i = 0; i < launch->dim; ++i)
        y[i] = a * x[i] + y[i];
}
extern "C" void kernel_shade(const Launch *launch, const float *pos, const float *nrm, float *out) {
    for (int i = 0; i < launch->dim; ++i) {
        wm::vec3 p{pos[3 * i], pos[3 * i + 1], pos[3 * i + 2]};
        wm::vec3 n{nrm[3 * i], nrm[3 * i + 1], nrm[3 * i + 2]};
        out[i] = shade(p, wm::normalize(n), float(i) * 0.01f);
    }
}
extern "C" void kernel_poly(const Launch *launch, const float *x, float *y) {
    for (int i = 0; i < launch->dim; ++i) {
        float v = x[i];
        float s = wm::poly0(v) + wm::poly1(v) + wm::poly2(v) + wm::poly10(v);
        s += wm::poly20(v) * wm::poly30(v) - wm::poly40(v);
        s += wm::poly50(v) / (1.0f + wm::poly60(v) * wm::poly60(v));
        y[i] = s + wm::poly95(v);
    }
}
extern "C" float kernel_reduce(const Launch *launch, const float *x) {
    float s = 0.0f;
    for (int i = 0; i < launch->dim; ++i)
        s += std::fabs(x[i]);
    return s;
}
extern "C" void kernel_length(const Launch *launch, const float *v, float *out) {
    for (int i = 0; i < launch->dim; ++i) {
        wm::vec3 a{v[3 * i], v[3 * i + 1], v[3 * i + 2]};
        out[i] = wm::length(a);
    }
}
extern "C" int kernel_count(const Launch *launch, const float *x, float threshold) {
    int n = 0;
    for (int i = 0; i < launch->dim; ++i)
        n += x[i] > threshold ? 1 : 0;
    return n;
}
)";

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double minimum(const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); }

template <class F> std::vector<double> time_runs(int runs, F &&f) {
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto start = Clock::now();
        f();
        t.push_back(ms_since(start));
    }
    return t;
}

int run_process(const std::vector<std::string> &args) {
    std::vector<char *> argv;
    for (const auto &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

long rss_kb() {
    std::ifstream in("/proc/self/statm");
    long pages = 0, resident = 0;
    in >> pages >> resident;
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

void write_file(const fs::path &p, const std::string &text) { std::ofstream(p, std::ios::binary) << text; }

} // namespace

int main() {
    constexpr int runs = 5;
    const fs::path dir = fs::temp_directory_path() / ("weft_cpu_backend_micro_" + std::to_string(getpid()));
    fs::create_directories(dir);
    const std::string header = header_text();
    const std::string tu = "#include \"wm.hpp\"\n" + std::string(user_text);
    write_file(dir / "wm.hpp", header);
    write_file(dir / "tu.cpp", tu);
    std::printf("TU: %zu lines + header %zu lines, -O2, %d runs each (medians)\n",
                static_cast<std::size_t>(std::count(tu.begin(), tu.end(), '\n')),
                static_cast<std::size_t>(std::count(header.begin(), header.end(), '\n')), runs);

    CpuCompileOptions opts;
    opts.weft_include_dirs = {dir};
    const auto first_start = Clock::now();
    std::vector<char> object = compile_to_object(tu, opts);
    const double first = ms_since(first_start);
    const auto in_process_runs = time_runs(runs, [&] { object = compile_to_object(tu, opts); });
    const double in_process = median(in_process_runs);

    CpuCompileOptions pch_opts = opts;
    pch_opts.pch = dir / "wm.pch";
    const auto pch_start = Clock::now();
    build_pch(header, opts, pch_opts.pch);
    const double pch_build = ms_since(pch_start);
    const auto in_process_pch_runs = time_runs(runs, [&] { object = compile_to_object(user_text, pch_opts); });
    const double in_process_pch = median(in_process_pch_runs);

    const std::string clang = clang_executable().string();
    const std::vector<std::string> flags{"-std=c++17", "-O2", "-fno-exceptions", "-fno-rtti", "-fPIC", "-march=x86-64",
                                         "-I" + dir.string()};
    auto command = [&](std::vector<std::string> extra) {
        std::vector<std::string> a{clang};
        a.insert(a.end(), flags.begin(), flags.end());
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    };
    const auto sub = command({"-c", (dir / "tu.cpp").string(), "-o", (dir / "tu.o").string()});
    const auto subprocess_runs = time_runs(runs, [&] {
        if (run_process(sub) != 0) std::printf("subprocess compile failed\n");
    });
    const double subprocess = median(subprocess_runs);
    write_file(dir / "user.cpp", user_text);
    if (run_process(command({"-x", "c++-header", (dir / "wm.hpp").string(), "-o", (dir / "sub.pch").string()})) != 0)
        std::printf("subprocess PCH build failed\n");
    const auto sub_pch = command({"-include-pch", (dir / "sub.pch").string(), "-c", (dir / "user.cpp").string(), "-o",
                                  (dir / "user.o").string()});
    const auto subprocess_pch_runs = time_runs(runs, [&] {
        if (run_process(sub_pch) != 0) std::printf("subprocess PCH compile failed\n");
    });
    const double subprocess_pch = median(subprocess_pch_runs);
    const double process_start = median(time_runs(runs, [&] { run_process({clang, "--version"}); }));

    const double load = median(time_runs(runs, [&] {
        auto module = CpuJit::instance().load(object, "bench");
        module->lookup("kernel_saxpy");
    }));

    std::printf("                           median      min\n");
    std::printf("in process, no PCH       %7.1f ms %7.1f ms  (first compile in the process %.1f ms)\n", in_process,
                minimum(in_process_runs), first);
    std::printf("in process, PCH          %7.1f ms %7.1f ms  (PCH build %.1f ms, %.1f MB)\n", in_process_pch,
                minimum(in_process_pch_runs), pch_build, static_cast<double>(fs::file_size(pch_opts.pch)) / 1e6);
    std::printf("clang++ -c subprocess    %7.1f ms %7.1f ms  (process start, clang --version: %.1f ms)\n", subprocess,
                minimum(subprocess_runs), process_start);
    std::printf("clang++ -c subprocess+PCH%7.1f ms %7.1f ms\n", subprocess_pch, minimum(subprocess_pch_runs));
    std::printf("ratios: subprocess/in-process %.2fx, no-PCH/PCH in process %.2fx\n", subprocess / in_process,
                in_process / in_process_pch);
    std::printf("JIT load + link + lookup %7.2f ms, object %zu bytes\n", load, object.size());

    // Leak check: memory after warm-up vs after 100 more compile+load+unload cycles.
    for (int i = 0; i < 10; ++i) CpuJit::instance().load(compile_to_object(user_text, pch_opts), "warm");
    const long before = rss_kb();
    for (int i = 0; i < 100; ++i) CpuJit::instance().load(compile_to_object(user_text, pch_opts), "cycle");
    const long after = rss_kb();
    std::printf("RSS after 100 compile+load+unload cycles: %+ld kB (%.1f kB per cycle)\n", after - before,
                static_cast<double>(after - before) / 100.0);
    fs::remove_all(dir);
    return 0;
}
