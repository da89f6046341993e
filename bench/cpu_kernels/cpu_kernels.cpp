// Generated kernels vs hand-written C++ loops compiled by the same in-process
// Clang with the same flags, on one thread; then the generated kernels from 1
// thread to all cores. Prints `ratio <name> <value>` lines:
//   ratio <kernel>_generated_vs_handwritten  hand-written time / generated time (>= 1: weft as fast)
//   ratio <kernel>_speedup_<N>_threads       1-thread time / N-thread time
//
//   build/bin/bench_cpu_kernels [--kernels bench/kernels] [--repeat 9]
#include "weft/backend/cpu_compiler.hpp"
#include "weft/host/host.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

template <class F> double median_ms(int repeat, F &&f) {
    std::vector<double> t;
    f(); // warm-up
    for (int i = 0; i < repeat; ++i) {
        const auto t0 = Clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// The hand-written references: what a C++ programmer writes for the same work.
const char *handwritten = R"(
#include <math.h>
extern "C" void ref_saxpy(const float *x, float *y, float a, long long n) {
    for (long long i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
extern "C" void ref_stencil(const float *u, float *out, int n, int m) {
    for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < m - 1; ++j)
            out[i * m + j] = 0.25f * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]) - u[i * m + j];
}
extern "C" void ref_nbody(const float *pos, float *vel, float dt, int n) {
    for (int i = 0; i < n; ++i) {
        float px = pos[3 * i], py = pos[3 * i + 1], pz = pos[3 * i + 2];
        float ax = 0, ay = 0, az = 0;
        for (int j = 0; j < n; ++j) {
            float dx = pos[3 * j] - px, dy = pos[3 * j + 1] - py, dz = pos[3 * j + 2] - pz;
            float r2 = dx * dx + dy * dy + dz * dz + 0.01f;
            float s = 1.0f / (r2 * sqrtf(r2));
            ax += dx * s; ay += dy * s; az += dz * s;
        }
        vel[3 * i] += ax * dt; vel[3 * i + 1] += ay * dt; vel[3 * i + 2] += az * dt;
    }
}
)";

// A plugin builtin: the bundled colors plugin's luminance and scale, from its own header.
// WEFT_CALLABLE as weft's runtime headers define it for the CPU (the plugin
// header includes the SDK's definition only where none is given).
const char *handwritten_colors = R"(
#define WEFT_CALLABLE inline
#include "weft_colors.h"
extern "C" void ref_luminance(const colors::Color *c, float *out, float f, long long n) {
    for (long long i = 0; i < n; ++i) out[i] = colors::luminance(colors::scale(c[i], f));
}
)";

const char *colors_kernel = R"(import warp as wp
@wp.kernel
def scaled_luminance(c: wp.array(dtype=colors.Color), out: wp.array(dtype=float), f: float):
    i = wp.tid()
    out[i] = wp.colors_luminance(wp.colors_scale(c[i], f))
)";

} // namespace

int main(int argc, char **argv) {
    fs::path kernels = "bench/kernels";
    fs::path plugins = WEFT_BUNDLED_PLUGIN_DIR;
    int repeat = 9;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) kernels = argv[++i];
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--plugins") && i + 1 < argc) plugins = argv[++i];
    }
    const fs::path cache = fs::temp_directory_path() / "weft_bench_cpu_kernels";
    fs::remove_all(cache);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

    // The reference loops, through the same backend and flags (-O2, generic x86-64).
    weft::backend::CpuCompileOptions copts;
    auto ref = weft::backend::CpuJit::instance().load(weft::backend::compile_to_object(handwritten, copts), "handwritten");
    auto ref_saxpy = ref->lookup_function<void(const float *, float *, float, long long)>("ref_saxpy");
    auto ref_stencil = ref->lookup_function<void(const float *, float *, int, int)>("ref_stencil");
    auto ref_nbody = ref->lookup_function<void(const float *, float *, float, int)>("ref_nbody");
    weft::backend::CpuCompileOptions colors_opts;
    colors_opts.include_dirs = {plugins / "colors" / "include"};
    auto ref_colors =
        weft::backend::CpuJit::instance().load(weft::backend::compile_to_object(handwritten_colors, colors_opts), "colors_ref");
    auto ref_luminance = ref_colors->lookup_function<void(const float *, float *, float, long long)>("ref_luminance");

    const weft::Type f32 = weft::Type::scalar(weft::Scalar::Float32);
    const weft::Type v3 = weft::Type::vector(weft::Scalar::Float32, 3);
    std::printf("bench_cpu_kernels: %u hardware threads; medians of %d runs\n", cores, repeat);

    std::vector<std::pair<std::string, double>> single; // kernel -> generated 1-thread ms
    auto run_set = [&](unsigned threads, bool compare) {
        weft::HostOptions ho;
        ho.use_environment = false;
        ho.cache_dir = cache;
        ho.quiet = true;
        ho.threads = threads;
        weft::Host host(ho);
        weft::CompiledModule m = host.load_module(kernels / "ten_kernels.py");
        const weft::LoadedPlugin &colors = host.load(plugins / "colors");
        const weft::Type color = colors.native_types.at(0).type();
        const weft::Kernel lum = host.load_module_source("colors_bench", colors_kernel).kernel("scaled_luminance");

        const std::int64_t n = 10'000'000;
        std::vector<float> xs(n, 1.5f), ys(n, 0.5f);
        weft::Array x = weft::Array::from_vector(f32, xs), y = weft::Array::from_vector(f32, ys);
        const weft::Kernel saxpy = m.kernel("saxpy");
        const double gen_saxpy = median_ms(repeat, [&] { saxpy.launch({n}, {x, y, 2.0f}); });

        const int sn = 2048, sm = 2048;
        std::vector<float> us(static_cast<std::size_t>(sn) * sm);
        for (std::size_t i = 0; i < us.size(); ++i) us[i] = static_cast<float>(i % 97) * 0.01f;
        weft::Array u = weft::Array::from_host(f32, {sn, sm}, us.data(), us.size() * 4);
        weft::Array out = weft::Array::zeros(f32, {sn, sm});
        const weft::Kernel stencil = m.kernel("stencil");
        const double gen_stencil = median_ms(repeat, [&] { stencil.launch({sn, sm}, {u, out}); });

        const int bn = 2048;
        std::vector<float> ps(3 * bn), vs(3 * bn, 0.0f);
        for (std::size_t i = 0; i < ps.size(); ++i) ps[i] = std::sin(static_cast<float>(i)) * 10.0f;
        weft::Array pos = weft::Array::from_host(v3, {bn}, ps.data(), ps.size() * 4);
        weft::Array vel = weft::Array::from_host(v3, {bn}, vs.data(), vs.size() * 4);
        const weft::Kernel nbody = m.kernel("nbody");
        const double gen_nbody = median_ms(std::max(3, repeat / 3), [&] { nbody.launch({bn}, {pos, vel, 0.01f}); });

        const std::int64_t cn = 4'000'000;
        std::vector<float> cs(3 * cn);
        for (std::size_t i = 0; i < cs.size(); ++i) cs[i] = static_cast<float>(i % 255) / 255.0f;
        weft::Array carr = weft::Array::from_host(color, {cn}, cs.data(), cs.size() * 4);
        weft::Array lout = weft::Array::zeros(f32, {cn});
        const double gen_colors = median_ms(repeat, [&] { lum.launch({cn}, {carr, lout, 0.5f}); });

        if (compare) {
            std::vector<float> lref(cn);
            const double hw_colors = median_ms(repeat, [&] { ref_luminance(cs.data(), lref.data(), 0.5f, cn); });
            if (lref != lout.to_vector<float>()) {
                std::fprintf(stderr, "bench_cpu_kernels: the plugin kernel disagrees with the hand-written loop\n");
                return;
            }
            const double hw_saxpy = median_ms(repeat, [&] { ref_saxpy(xs.data(), ys.data(), 2.0f, n); });
            std::vector<float> ref_out(us.size());
            const double hw_stencil = median_ms(repeat, [&] { ref_stencil(us.data(), ref_out.data(), sn, sm); });
            const double hw_nbody = median_ms(std::max(3, repeat / 3), [&] { ref_nbody(ps.data(), vs.data(), 0.01f, bn); });
            std::printf("%-10s generated %9.3f ms   hand-written %9.3f ms   (1 thread)\n", "saxpy", gen_saxpy, hw_saxpy);
            std::printf("%-10s generated %9.3f ms   hand-written %9.3f ms   (1 thread)\n", "stencil", gen_stencil, hw_stencil);
            std::printf("%-10s generated %9.3f ms   hand-written %9.3f ms   (1 thread)\n", "nbody", gen_nbody, hw_nbody);
            std::printf("ratio saxpy_generated_vs_handwritten %.3f\n", hw_saxpy / gen_saxpy);
            std::printf("ratio stencil_generated_vs_handwritten %.3f\n", hw_stencil / gen_stencil);
            std::printf("%-10s generated %9.3f ms   hand-written %9.3f ms   (1 thread)\n", "colors", gen_colors, hw_colors);
            std::printf("ratio nbody_generated_vs_handwritten %.3f\n", hw_nbody / gen_nbody);
            std::printf("ratio plugin_colors_generated_vs_handwritten %.3f\n", hw_colors / gen_colors);
            single = {{"saxpy", gen_saxpy}, {"stencil", gen_stencil}, {"nbody", gen_nbody}, {"plugin_colors", gen_colors}};
        } else {
            const double t[4] = {gen_saxpy, gen_stencil, gen_nbody, gen_colors};
            for (std::size_t k = 0; k < single.size(); ++k) {
                std::printf("%-10s %u threads %9.3f ms\n", single[k].first.c_str(), threads, t[k]);
                std::printf("ratio %s_speedup_%u_threads %.3f\n", single[k].first.c_str(), threads, single[k].second / t[k]);
            }
        }
    };
    run_set(1, true);
    for (unsigned threads = 2; threads <= cores; threads *= 2) run_set(threads, false);
    if (cores > 2 && (cores & (cores - 1))) run_set(cores, false);
    fs::remove_all(cache);
    return 0;
}
