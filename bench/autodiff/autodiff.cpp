// weft's side of the autodiff benchmark (bench/autodiff/run.sh runs both):
//   bench_autodiff --kernels FILE --cache-dir DIR
// Prints `weft KEY VALUE` lines (medians):
//   cold_forward_ms      load with an empty cache (forward pass only: the
//                        backward pass is built when first needed)
//   cold_backward_ms     building the backward pass afterwards, cache empty
//   <kernel>_forward_ms / <kernel>_backward_ms   one launch / one Tape::backward,
//                        on all cores
//   <kernel>_forward_1t_ms / <kernel>_backward_1t_ms   the same on one thread
//                        (Warp's CPU launches run on one)
//   <kernel>_forward_debug_ms / <kernel>_backward_debug_ms   all cores, debug mode
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace weft;
namespace fs = std::filesystem;

namespace {

double ms(const std::function<void()> &f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

Array random(const Type &t, std::vector<std::int64_t> shape, std::mt19937 &rng) {
    Array a = Array::zeros(t, std::move(shape), Device::cpu(), true);
    std::vector<float> v(a.nbytes() / sizeof(float));
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float &x : v) x = u(rng);
    a.copy_from_host(v.data(), a.nbytes());
    return a;
}

HostOptions options(const fs::path &cache, unsigned threads = 0) {
    HostOptions o;
    o.use_environment = false;
    o.cache_dir = cache;
    o.quiet = true;
    o.threads = threads;
    return o;
}

/// A kernel of `n` dependent statements (each overwrites one of two values),
/// for how compile time grows with kernel size.
std::string straight_line_kernel(int n) {
    std::string out = "import warp as wp\n\n@wp.kernel\ndef big(x: wp.array(dtype=float), y: wp.array(dtype=float)):\n"
                      "    i = wp.tid()\n    a = x[i]\n    b = a * 0.5\n";
    for (int k = 0; k < n; ++k)
        out += k % 2 == 0 ? "    a = a * 1.001 + wp.sin(b) * 0.00" + std::to_string(k % 7 + 1) + "\n"
                          : "    b = b * 0.999 + a * 0.00" + std::to_string(k % 5 + 1) + "\n";
    return out + "    y[i] = a + b\n";
}

/// --scaling: cold forward and backward compile of straight_line_kernel(n).
int scaling(const fs::path &cache) {
    for (const int n : {100, 200, 400, 800}) {
        fs::remove_all(cache);
        Host host(options(cache));
        const auto t0 = std::chrono::steady_clock::now();
        const CompiledModule m = host.load_module_source("big" + std::to_string(n), straight_line_kernel(n));
        const double fwd = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        const double bwd = ms([&] { (void)m.kernel("big").backward(); });
        std::printf("weft statements_%d_forward_compile_ms %.1f\nweft statements_%d_backward_compile_ms %.1f\n", n, fwd, n,
                    bwd);
        std::printf("ratio backward_vs_forward_compile_%d_statements %.3f\n", n, bwd / fwd);
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    fs::path file, cache;
    bool scale = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--scaling")) scale = true;
        else if (i + 1 < argc && !std::strcmp(argv[i], "--kernels")) file = argv[++i];
        else if (i + 1 < argc && !std::strcmp(argv[i], "--cache-dir")) cache = argv[++i];
    }
    if (scale && !cache.empty()) return scaling(cache);
    if (file.empty() || cache.empty()) {
        std::fprintf(stderr, "usage: bench_autodiff --kernels FILE --cache-dir DIR\n"
                             "       bench_autodiff --scaling --cache-dir DIR   (compile time against kernel size)\n");
        return 2;
    }
    // Cold compiles: a fresh cache and host each time; the backward pass of all three kernels.
    std::vector<double> cold_fwd, cold_bwd;
    for (int rep = 0; rep < 3; ++rep) {
        fs::remove_all(cache);
        Host host(options(cache));
        CompiledModule m = host.load_module(file);
        cold_fwd.push_back(m.load_ms());
        cold_bwd.push_back(ms([&] { (void)m.kernel("saxpy").backward(); }));
    }
    std::printf("weft cold_forward_ms %.3f\n", median(cold_fwd));
    std::printf("weft cold_backward_ms %.3f\n", median(cold_bwd));
    std::printf("weft cold_forward_and_backward_ms %.3f\n", median(cold_fwd) + median(cold_bwd));

    // All cores, one thread, then all cores in debug mode (every array access of
    // both passes bounds-checked: a check, and what it costs).
    for (const int pass : {0, 1, 2}) {
        Host host(options(cache, pass == 1 ? 1 : 0));
        ModuleLoadOptions load;
        load.debug = pass == 2;
        CompiledModule m = host.load_module(file, load);
        const std::string suffix = pass == 1 ? "_1t" : pass == 2 ? "_debug" : "";
        const Type f32 = Type::scalar(Scalar::Float32);
        const Type v3 = host.registry().parse_type("vec3");
        std::mt19937 rng(1);
        auto measure = [&](const char *name, const std::vector<std::int64_t> &dim, const std::vector<KernelArg> &args,
                           const Array &out) {
            const Kernel k = m.kernel(name);
            std::vector<double> fwd, bwd;
            for (int rep = 0; rep < 12; ++rep) {
                Tape tape;
                fwd.push_back(ms([&] {
                    Tape::Scope scope(tape);
                    k.launch(dim, args);
                }));
                bwd.push_back(ms([&] { tape.backward(out); }));
                tape.zero();
            }
            fwd.erase(fwd.begin(), fwd.begin() + 2); // warm-up
            bwd.erase(bwd.begin(), bwd.begin() + 2);
            std::printf("weft %s_forward%s_ms %.3f\nweft %s_backward%s_ms %.3f\n", name, suffix.c_str(), median(fwd), name,
                        suffix.c_str(), median(bwd));
        };
        {
            const std::int64_t n = 1 << 20;
            Array x = random(f32, {n}, rng), y = random(f32, {n}, rng), out = random(f32, {n}, rng);
            measure("saxpy", {n}, {2.0f, x, y, out}, out);
        }
        {
            const int n = 1024;
            Array pos = random(v3, {n}, rng), vel = random(v3, {n}, rng), out = random(v3, {n}, rng);
            measure("nbody", {n}, {pos, vel, n, 0.01f, out}, out);
        }
        {
            Array w = random(f32, {64, 64}, rng), b = random(f32, {64}, rng), x = random(f32, {256, 64}, rng),
                  y = random(f32, {256, 64}, rng);
            measure("mlp", {256, 64}, {w, b, x, y}, y);
        }
    }
    {
        // A differentiable native type (bench_complex::Complex) against the same
        // math written on its float parts: weft only (Warp has no such types).
        Host host(options(cache));
        host.load(fs::path(WEFT_BENCH_COMPLEX_PLUGIN));
        CompiledModule m = host.load_module(fs::path(WEFT_BENCH_COMPLEX_KERNELS));
        const Type f32 = Type::scalar(Scalar::Float32);
        std::mt19937 rng(2);
        const std::int64_t n = 1 << 20;
        Array re = random(f32, {n}, rng), im = random(f32, {n}, rng), loss = random(f32, {n}, rng);
        std::vector<double> fwd[2], bwd[2];
        const char *names[2] = {"native_complex", "float_parts"};
        for (int rep = 0; rep < 12; ++rep)
            for (int k = 0; k < 2; ++k) { // interleaved: both see the same machine state
                Tape tape;
                fwd[k].push_back(ms([&] {
                    Tape::Scope scope(tape);
                    m.kernel(names[k]).launch({n}, {re, im, loss});
                }));
                bwd[k].push_back(ms([&] { tape.backward(loss); }));
                tape.zero();
            }
        for (int k = 0; k < 2; ++k) {
            fwd[k].erase(fwd[k].begin(), fwd[k].begin() + 2);
            bwd[k].erase(bwd[k].begin(), bwd[k].begin() + 2);
            std::printf("weft %s_forward_ms %.3f\nweft %s_backward_ms %.3f\n", names[k], median(fwd[k]), names[k],
                        median(bwd[k]));
        }
        // Speed of the native type relative to float parts (>= 1: as fast or faster).
        std::printf("ratio native_complex_speed_vs_float_parts_forward %.4f\n", median(fwd[1]) / median(fwd[0]));
        std::printf("ratio native_complex_speed_vs_float_parts_backward %.4f\n", median(bwd[1]) / median(bwd[0]));
    }
    return 0;
}
