// weft's side of bench/tiles (bench/tiles/run.sh runs it beside Warp's):
//   bench_tiles --kernels bench/tiles/kernels.py --cache-dir DIR [--sizes 256,512,1024] [--total-log2 26]
// Prints `weft KEY VALUE` lines (medians, milliseconds) for the tiled GEMM of
// kernels.py on n x n float32 matrices on all cores, the same product by
// OpenBLAS's cblas_sgemm on the same cores when the bench was built with it,
// and the 2^26-float tile reduction beside a hand-written loop on as many
// threads; then `ratio` lines for the comparisons made in this process.
// The module is loaded with native_cpu (the host's vector and FMA
// instructions), as OpenBLAS uses them.
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#ifdef WEFT_BENCH_OPENBLAS
#include <cblas.h>
#endif

namespace fs = std::filesystem;
using namespace weft;

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

/// Sum of `n` floats on `threads` threads, each with 16 independent partial
/// sums (vectorizable without reassociation flags): the hand-written limit.
float hand_sum(const float *x, std::size_t n, unsigned threads) {
    std::vector<float> part(threads);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
            float acc[16] = {};
            std::size_t i = lo;
            for (; i + 16 <= hi; i += 16)
                for (int k = 0; k < 16; ++k) acc[k] += x[i + k];
            float s = 0;
            for (; i < hi; ++i) s += x[i];
            for (float a : acc) s += a;
            part[t] = s;
        });
    for (std::thread &t : pool) t.join();
    float s = 0;
    for (float p : part) s += p;
    return s;
}

} // namespace

int main(int argc, char **argv) {
    fs::path file, cache;
    std::vector<int> sizes{256, 512, 1024};
    int total_log2 = 26;
    std::int64_t mlp_samples = 8192;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--kernels") file = argv[i + 1];
        else if (a == "--cache-dir") cache = argv[i + 1];
        else if (a == "--total-log2") total_log2 = std::stoi(argv[i + 1]);
        else if (a == "--mlp-samples") mlp_samples = std::stoll(argv[i + 1]);
        else if (a == "--sizes") {
            sizes.clear();
            std::string s = argv[i + 1];
            for (std::size_t p = 0; p <= s.size();) {
                const std::size_t q = std::min(s.find(',', p), s.size());
                sizes.push_back(std::stoi(s.substr(p, q - p)));
                p = q + 1;
            }
        }
    }
    if (file.empty() || cache.empty()) {
        std::fprintf(stderr, "usage: bench_tiles --kernels FILE --cache-dir DIR [--sizes 256,512,1024] [--total-log2 26]\n");
        return 2;
    }
    HostOptions o;
    o.use_environment = false;
    o.cache_dir = cache;
    o.quiet = true;
    Host host(o);
    ModuleLoadOptions load;
    load.native_cpu = true;
    const CompiledModule m = host.load_module(file, load);
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::printf("# %u threads\n", threads);
    const Type f32 = Type::scalar(Scalar::Float32);
    LaunchOptions tiled;
    tiled.block_dim = 64;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
#ifdef WEFT_BENCH_OPENBLAS
    openblas_set_num_threads(static_cast<int>(threads));
#endif

    for (int n : sizes) {
        std::vector<float> a(static_cast<std::size_t>(n) * n), b(a.size()), c(a.size());
        for (float &x : a) x = uniform(rng);
        for (float &x : b) x = uniform(rng);
        const Array A = Array::from_host(f32, {n, n}, a.data(), a.size() * 4);
        const Array B = Array::from_host(f32, {n, n}, b.data(), b.size() * 4);
        const Array C = Array::zeros(f32, {n, n});
        const Kernel gemm = m.kernel("gemm");
        const int runs = n <= 512 ? 5 : 3;
        std::vector<double> t;
        for (int r = 0; r <= runs; ++r) {
            const double x = ms([&] { gemm.launch({n / 64, n / 64}, {A, B, C}, tiled); });
            if (r) t.push_back(x);
        }
        C.copy_to_host(c.data(), c.size() * 4);
        // A check that it computed the product: a few elements against double sums.
        double worst = 0;
        for (int s = 0; s < 64; ++s) {
            const int i = (s * 37) % n, j = (s * 91) % n;
            double ref = 0;
            for (int k = 0; k < n; ++k) ref += double(a[i * n + k]) * b[k * n + j];
            worst = std::max(worst, std::fabs(ref - c[i * n + j]) / std::fabs(ref));
        }
        const double weft_ms = median(t);
        std::printf("weft gemm_%d_ms %.3f\n# weft gemm %d: %.1f GFLOP/s, largest relative error %.2g\n", n, weft_ms, n,
                    2.0 * n * n * n / weft_ms / 1e6, worst);
#ifdef WEFT_BENCH_OPENBLAS
        std::vector<double> tb;
        for (int r = 0; r <= runs; ++r) {
            const double x = ms([&] {
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f,
                            c.data(), n);
            });
            if (r) tb.push_back(x);
        }
        std::printf("openblas gemm_%d_ms %.3f\nratio tiles_gemm_%d_vs_openblas %.3f\n", n, median(tb), n,
                    median(tb) / weft_ms);
#else
        std::printf("# OpenBLAS not found when the bench was built: no sgemm comparison\n");
#endif
    }

    const std::size_t count = std::size_t(1) << total_log2;
    std::vector<float> x(count);
    for (std::size_t i = 0; i < count; ++i) x[i] = float(i % 1024) / 1024.0f;
    const Array X = Array::from_host(f32, {static_cast<std::int64_t>(count)}, x.data(), count * 4);
    const Array out = Array::zeros(f32, {1});
    const Kernel total = m.kernel("total");
    std::vector<double> tt, th;
    float tile_result = 0, hand_result = 0;
    for (int r = 0; r <= 5; ++r) {
        const float zero = 0;
        const Array fresh = Array::from_host(f32, {1}, &zero, 4);
        const double x1 = ms([&] { total.launch({static_cast<std::int64_t>(count / 4096)}, {X, fresh}, tiled); });
        fresh.copy_to_host(&tile_result, 4);
        const double x2 = ms([&] { hand_result = hand_sum(x.data(), count, threads); });
        if (r) {
            tt.push_back(x1);
            th.push_back(x2);
        }
    }
    (void)out;
    std::printf("weft total_ms %.3f\nloop total_ms %.3f\n# sums: tiles %.6g, loop %.6g\nratio tiles_total_vs_loop %.3f\n",
                median(tt), median(th), double(tile_result), double(hand_result), median(th) / median(tt));

    // The tiled MLP (kernels.py): forward, and forward + backward through a Tape, 8192 samples.
    const std::int64_t samples = mlp_samples;
    std::uniform_real_distribution<float> weight(-0.18f, 0.18f), unit(-1.0f, 1.0f);
    const auto param = [&](std::vector<std::int64_t> shape, bool wide) {
        std::int64_t n = 1;
        for (std::int64_t d : shape) n *= d;
        std::vector<float> v(static_cast<std::size_t>(n));
        for (float &value : v) value = wide ? unit(rng) : weight(rng);
        Array a = Array::from_host(f32, shape, v.data(), v.size() * 4, Device::cpu(), true);
        return a;
    };
    std::vector<KernelArg> mlp_args{param({32, samples}, true)};
    for (int layer = 0; layer < 4; ++layer) {
        mlp_args.push_back(param({layer == 3 ? 3 : 32, 32}, false));
        mlp_args.push_back(param({layer == 3 ? 3 : 32, 1}, false));
    }
    mlp_args.push_back(param({3, samples}, true));
    const Array loss = Array::zeros(f32, {1}, Device::cpu(), true);
    mlp_args.push_back(loss);
    const Kernel mlp = m.kernel("mlp");
    LaunchOptions lanes32;
    lanes32.block_dim = 32;
    std::vector<double> fwd, both;
    for (int r = 0; r <= 5; ++r) {
        const double f1 = ms([&] { mlp.launch({samples / 32}, mlp_args, lanes32); });
        const double f2 = ms([&] {
            Tape tape;
            {
                Tape::Scope scope(tape);
                mlp.launch({samples / 32}, mlp_args, lanes32);
            }
            tape.backward(loss);
        });
        if (r) {
            fwd.push_back(f1);
            both.push_back(f2);
        }
    }
    std::printf("weft mlp_forward_ms %.3f\nweft mlp_forward_backward_ms %.3f\n", median(fwd), median(both));
    return 0;
}
