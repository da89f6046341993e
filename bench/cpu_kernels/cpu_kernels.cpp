// Generated kernels vs hand-written C++ loops compiled by the same in-process
// Clang with the same flags, on one thread; then the generated kernels from 1
// thread to all cores. Every kernel of bench/kernels/ten_kernels.py, a 2-D
// reduction with atomics, a 3-D stencil and a plugin builtin. Each pair runs
// from the same inputs the same number of times and must agree. Prints
// `ratio <name> <value>` lines:
//   ratio <kernel>_generated_vs_handwritten  hand-written time / generated time (>= 1: weft as fast)
//   ratio <kernel>_speedup_<N>_threads       1-thread time / N-thread time
//   ratio min_generated_vs_handwritten       the smallest of the first kind
//
//   build/bin/bench_cpu_kernels [--kernels bench/kernels] [--repeat 9] [--only NAME]
#include "weft/backend/cpu_compiler.hpp"
#include "weft/host/host.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
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

// The hand-written references: what a C++ programmer writes for the same
// work, with the same operations in the same order (so results agree exactly).
// Reductions sum privately and add each sum once, atomically, as weft's
// deferred atomics do on a chunk of the launch (one chunk on one thread).
const char *handwritten = R"(
#include <math.h>
static inline void atomic_add_f(float *p, float v) {
    float old, next;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do next = old + v;
    while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
}
static inline float clamp01(float x) { float t = x < 0.0f ? 0.0f : x; return 1.0f < t ? 1.0f : t; }
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
extern "C" void ref_reduce_sum(const float *x, float *total, long long n) {
    if (n <= 0) return;
    float s = x[0];
    for (long long i = 1; i < n; ++i) s += x[i];
    atomic_add_f(total, s);
}
struct Particle { float pos[3], vel[3], mass; };
extern "C" void ref_integrate(Particle *ps, float dt, long long n) {
    for (long long i = 0; i < n; ++i) {
        Particle p = ps[i];
        p.vel[0] = p.vel[0] + 0.0f * dt; p.vel[1] = p.vel[1] + -9.8f * dt; p.vel[2] = p.vel[2] + 0.0f * dt;
        for (int k = 0; k < 3; ++k) p.pos[k] = p.pos[k] + p.vel[k] * dt;
        ps[i] = p;
    }
}
extern "C" void ref_transform(const float *m, const float *v, float *out, long long n) {
    for (long long i = 0; i < n; ++i)
        for (int r = 0; r < 3; ++r)
            out[3 * i + r] = m[3 * r] * v[3 * i] + m[3 * r + 1] * v[3 * i + 1] + m[3 * r + 2] * v[3 * i + 2];
}
extern "C" void ref_clampk(const float *x, float *y, long long n) {
    for (long long i = 0; i < n; ++i) y[i] = x[i] > 0.5f ? clamp01(x[i] * 2.0f) : 0.0f;
}
extern "C" void ref_normalize_all(float *v, long long n) {
    for (long long i = 0; i < n; ++i) {
        float *p = v + 3 * i;
        float l = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        if (l > 0.0f) { p[0] = p[0] / l; p[1] = p[1] / l; p[2] = p[2] / l; }
    }
}
extern "C" void ref_quat_rot(const float *q, const float *v, float *out, long long n) {
    const float x = q[0], y = q[1], z = q[2], w = q[3];
    for (long long i = 0; i < n; ++i) {
        const float px = v[3 * i], py = v[3 * i + 1], pz = v[3 * i + 2];
        const float c = 2.0f * w * w - 1.0f, d = 2.0f * (x * px + y * py + z * pz), w2 = 2.0f * w;
        out[3 * i] = px * c + x * d + (y * pz - z * py) * w2;
        out[3 * i + 1] = py * c + y * d + (z * px - x * pz) * w2;
        out[3 * i + 2] = pz * c + z * d + (x * py - y * px) * w2;
    }
}
extern "C" void ref_histogram(const float *x, int *bins, long long n) {
    int counts[16] = {0};
    for (long long i = 0; i < n; ++i) ++counts[(int)(clamp01(x[i]) * 15.0f)];
    for (int b = 0; b < 16; ++b)
        if (counts[b]) __atomic_fetch_add(&bins[b], counts[b], __ATOMIC_SEQ_CST);
}
extern "C" void ref_row_sums(const float *x, float *sums, int n, int m) {
    for (int i = 0; i < n; ++i) {
        if (m <= 0) continue;
        float s = x[(long long)i * m];
        for (int j = 1; j < m; ++j) s += x[(long long)i * m + j];
        atomic_add_f(&sums[i], s);
    }
}
extern "C" void ref_diffuse3d(const float *u, float *out, float k, int n, int m, int p) {
    for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < m - 1; ++j)
            for (int l = 1; l < p - 1; ++l) {
                const long long c = ((long long)i * m + j) * p + l;
                out[c] = u[c] + k * (u[c - (long long)m * p] + u[c + (long long)m * p] + u[c - p] + u[c + p] + u[c - 1] + u[c + 1] - 6.0f * u[c]);
            }
}
)";

// Kernels beyond ten_kernels.py: a reduction with atomics over a 2-D launch
// and a 3-D stencil under a bounds test.
const char *extra_kernels = R"(import warp as wp

@wp.kernel
def row_sums(x: wp.array2d(dtype=float), sums: wp.array(dtype=float)):
    i, j = wp.tid()
    wp.atomic_add(sums, i, x[i, j])

@wp.kernel
def diffuse3d(u: wp.array3d(dtype=float), out: wp.array3d(dtype=float), k: float):
    i, j, l = wp.tid()
    if i > 0 and j > 0 and l > 0 and i < u.shape[0] - 1 and j < u.shape[1] - 1 and l < u.shape[2] - 1:
        out[i, j, l] = u[i, j, l] + k * (u[i - 1, j, l] + u[i + 1, j, l] + u[i, j - 1, l] + u[i, j + 1, l] + u[i, j, l - 1] + u[i, j, l + 1] - 6.0 * u[i, j, l])
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


/// One generated kernel and its hand-written twin, on their own copies of the same inputs.
struct Case {
    std::string name;
    int repeat_divisor = 1; // long-running kernels take fewer repeats
    std::function<void()> generated, handwritten;
    std::function<bool()> agree; // after both ran equally often
};

/// An array's elements as floats (vectors, structs of floats: their components).
std::vector<float> floats(const weft::Array &a, std::size_t count) {
    std::vector<float> out(count);
    a.copy_to_host(out.data(), count * sizeof(float));
    return out;
}

std::vector<float> wave(std::size_t n, float scale) {
    std::vector<float> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<float>(i) * 0.37f) * scale;
    return v;
}

} // namespace

int main(int argc, char **argv) {
    fs::path kernels = "bench/kernels";
    fs::path plugins = WEFT_BUNDLED_PLUGIN_DIR;
    int repeat = 9;
    std::string only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--kernels") && i + 1 < argc) kernels = argv[++i];
        else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--plugins") && i + 1 < argc) plugins = argv[++i];
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    }
    const fs::path cache = fs::temp_directory_path() / "weft_bench_cpu_kernels";
    fs::remove_all(cache);
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

    // The reference loops, through the same backend and flags (-O2, generic x86-64).
    weft::backend::CpuCompileOptions copts;
    auto ref = weft::backend::CpuJit::instance().load(weft::backend::compile_to_object(handwritten, copts), "handwritten");
    weft::backend::CpuCompileOptions colors_opts;
    colors_opts.include_dirs = {plugins / "colors" / "include"};
    auto ref_colors =
        weft::backend::CpuJit::instance().load(weft::backend::compile_to_object(handwritten_colors, colors_opts), "colors_ref");

    using weft::Array;
    using weft::Type;
    const Type f32 = Type::scalar(weft::Scalar::Float32), i32 = Type::scalar(weft::Scalar::Int32);
    const Type v3 = Type::vector(weft::Scalar::Float32, 3);
    std::printf("bench_cpu_kernels: %u hardware threads; medians of %d runs\n", cores, repeat);

    std::vector<std::pair<std::string, double>> single; // kernel -> generated 1-thread ms
    double min_ratio = 1e9;
    std::string min_name;
    auto run_set = [&](unsigned threads, bool compare) {
        weft::HostOptions ho;
        ho.use_environment = false;
        ho.cache_dir = cache;
        ho.quiet = true;
        ho.threads = threads;
        weft::Host host(ho);
        const weft::CompiledModule m = host.load_module(kernels / "ten_kernels.py");
        const weft::CompiledModule extra = host.load_module_source("cpu_bench_extra", extra_kernels);
        const weft::LoadedPlugin &colors = host.load(plugins / "colors");
        const Type color = colors.native_types.at(0).type();
        const Type particle = m.kernel("integrate").params()[0].type.element();
        const Type mat33 = m.kernel("transform").params()[0].type, quat = m.kernel("quat_rot").params()[0].type;
        std::vector<Case> cases;
        const auto add = [&](Case c) {
            if (only.empty() || c.name == only) cases.push_back(std::move(c));
        };

        // 1-D elementwise kernels over 4M-10M elements; inputs from wave().
        {
            const std::int64_t n = 10'000'000;
            auto xs = std::make_shared<std::vector<float>>(n, 1.5f), ys = std::make_shared<std::vector<float>>(n, 0.5f);
            auto x = std::make_shared<Array>(Array::from_vector(f32, *xs)), y = std::make_shared<Array>(Array::from_vector(f32, *ys));
            auto fn = ref->lookup_function<void(const float *, float *, float, long long)>("ref_saxpy");
            const weft::Kernel k = m.kernel("saxpy");
            add({"saxpy", 1, [=] { k.launch({n}, {*x, *y, 2.0f}); }, [=] { fn(xs->data(), ys->data(), 2.0f, n); },
                 [=] { return y->to_vector<float>() == *ys; }});
        }
        {
            const int sn = 2048, sm = 2048;
            auto us = std::make_shared<std::vector<float>>(static_cast<std::size_t>(sn) * sm);
            for (std::size_t i = 0; i < us->size(); ++i) (*us)[i] = static_cast<float>(i % 97) * 0.01f;
            auto u = std::make_shared<Array>(Array::from_host(f32, {sn, sm}, us->data(), us->size() * 4));
            auto out = std::make_shared<Array>(Array::zeros(f32, {sn, sm}));
            auto ref_out = std::make_shared<std::vector<float>>(us->size());
            auto fn = ref->lookup_function<void(const float *, float *, int, int)>("ref_stencil");
            const weft::Kernel k = m.kernel("stencil");
            add({"stencil", 1, [=] { k.launch({sn, sm}, {*u, *out}); }, [=] { fn(us->data(), ref_out->data(), sn, sm); },
                 [=] { return out->to_vector<float>() == *ref_out; }});
        }
        {
            const int bn = 2048;
            auto ps = std::make_shared<std::vector<float>>(wave(3 * bn, 10.0f));
            auto vs = std::make_shared<std::vector<float>>(3 * bn, 0.0f);
            auto pos = std::make_shared<Array>(Array::from_host(v3, {bn}, ps->data(), ps->size() * 4));
            auto vel = std::make_shared<Array>(Array::from_host(v3, {bn}, vs->data(), vs->size() * 4));
            auto fn = ref->lookup_function<void(const float *, float *, float, int)>("ref_nbody");
            const weft::Kernel k = m.kernel("nbody");
            add({"nbody", 3, [=] { k.launch({bn}, {*pos, *vel, 0.01f}); }, [=] { fn(ps->data(), vs->data(), 0.01f, bn); },
                 [=] { return floats(*vel, vs->size()) == *vs; }});
        }
        {
            const std::int64_t n = 4'000'000;
            auto xs = std::make_shared<std::vector<float>>(wave(n, 1.0f));
            auto total = std::make_shared<std::vector<float>>(1, 0.0f);
            auto x = std::make_shared<Array>(Array::from_vector(f32, *xs));
            auto t = std::make_shared<Array>(Array::zeros(f32, {1}));
            auto fn = ref->lookup_function<void(const float *, float *, long long)>("ref_reduce_sum");
            const weft::Kernel k = m.kernel("reduce_sum");
            // One thread adds in the same order: the sums agree exactly.
            add({"reduce_sum", 1, [=] { k.launch({n}, {*x, *t}); }, [=] { fn(xs->data(), total->data(), n); },
                 [=] { return threads > 1 || t->to_vector<float>() == *total; }});
        }
        {
            const std::int64_t n = 2'000'000;
            auto ps = std::make_shared<std::vector<float>>(wave(7 * n, 3.0f));
            auto arr = std::make_shared<Array>(Array::from_host(particle, {n}, ps->data(), ps->size() * 4));
            auto fn = ref->lookup_function<void(float *, float, long long)>("ref_integrate");
            const weft::Kernel k = m.kernel("integrate");
            add({"integrate", 1, [=] { k.launch({n}, {*arr, 0.01f}); }, [=] { fn(ps->data(), 0.01f, n); },
                 [=] { return floats(*arr, ps->size()) == *ps; }});
        }
        {
            const std::int64_t n = 4'000'000;
            auto vs = std::make_shared<std::vector<float>>(wave(3 * n, 2.0f));
            auto outs = std::make_shared<std::vector<float>>(3 * n, 0.0f);
            const std::vector<float> ms{0.5f, -1.25f, 2.0f, 0.75f, 1.5f, -0.5f, 3.0f, 0.25f, -2.0f};
            auto v = std::make_shared<Array>(Array::from_host(v3, {n}, vs->data(), vs->size() * 4));
            auto out = std::make_shared<Array>(Array::zeros(v3, {n}));
            auto fn = ref->lookup_function<void(const float *, const float *, float *, long long)>("ref_transform");
            const weft::Kernel k = m.kernel("transform");
            const weft::KernelArg mat = weft::KernelArg::value(mat33, ms.data(), ms.size() * 4);
            add({"transform", 1, [=] { k.launch({n}, {mat, *v, *out}); }, [=] { fn(ms.data(), vs->data(), outs->data(), n); },
                 [=] { return floats(*out, outs->size()) == *outs; }});
        }
        {
            const std::int64_t n = 10'000'000;
            auto xs = std::make_shared<std::vector<float>>(wave(n, 1.0f));
            auto ys = std::make_shared<std::vector<float>>(n, 0.0f);
            auto x = std::make_shared<Array>(Array::from_vector(f32, *xs)), y = std::make_shared<Array>(Array::zeros(f32, {n}));
            auto fn = ref->lookup_function<void(const float *, float *, long long)>("ref_clampk");
            const weft::Kernel k = m.kernel("clampk");
            add({"clampk", 1, [=] { k.launch({n}, {*x, *y}); }, [=] { fn(xs->data(), ys->data(), n); },
                 [=] { return y->to_vector<float>() == *ys; }});
        }
        {
            const std::int64_t n = 4'000'000;
            auto vs = std::make_shared<std::vector<float>>(wave(3 * n, 4.0f));
            auto v = std::make_shared<Array>(Array::from_host(v3, {n}, vs->data(), vs->size() * 4));
            auto fn = ref->lookup_function<void(float *, long long)>("ref_normalize_all");
            const weft::Kernel k = m.kernel("normalize_all");
            add({"normalize_all", 1, [=] { k.launch({n}, {*v}); }, [=] { fn(vs->data(), n); },
                 [=] { return floats(*v, vs->size()) == *vs; }});
        }
        {
            const std::int64_t n = 4'000'000;
            auto vs = std::make_shared<std::vector<float>>(wave(3 * n, 2.0f));
            auto outs = std::make_shared<std::vector<float>>(3 * n, 0.0f);
            const std::vector<float> qs{0.18257419f, 0.36514837f, 0.54772256f, 0.73029674f};
            auto v = std::make_shared<Array>(Array::from_host(v3, {n}, vs->data(), vs->size() * 4));
            auto out = std::make_shared<Array>(Array::zeros(v3, {n}));
            auto fn = ref->lookup_function<void(const float *, const float *, float *, long long)>("ref_quat_rot");
            const weft::Kernel k = m.kernel("quat_rot");
            const weft::KernelArg q = weft::KernelArg::value(quat, qs.data(), qs.size() * 4);
            add({"quat_rot", 1, [=] { k.launch({n}, {q, *v, *out}); }, [=] { fn(qs.data(), vs->data(), outs->data(), n); },
                 [=] { return floats(*out, outs->size()) == *outs; }});
        }
        {
            const std::int64_t n = 4'000'000;
            auto xs = std::make_shared<std::vector<float>>(wave(n, 1.2f));
            auto bins = std::make_shared<std::vector<std::int32_t>>(16, 0);
            auto x = std::make_shared<Array>(Array::from_vector(f32, *xs));
            auto b = std::make_shared<Array>(Array::zeros(i32, {16}));
            auto fn = ref->lookup_function<void(const float *, std::int32_t *, long long)>("ref_histogram");
            const weft::Kernel k = m.kernel("histogram");
            add({"histogram", 1, [=] { k.launch({n}, {*x, *b}); }, [=] { fn(xs->data(), bins->data(), n); },
                 [=] { return b->to_vector<std::int32_t>() == *bins; }});
        }
        {
            const int rn = 2048, rm = 2048;
            auto xs = std::make_shared<std::vector<float>>(wave(static_cast<std::size_t>(rn) * rm, 1.0f));
            auto sums = std::make_shared<std::vector<float>>(rn, 0.0f);
            auto x = std::make_shared<Array>(Array::from_host(f32, {rn, rm}, xs->data(), xs->size() * 4));
            auto s = std::make_shared<Array>(Array::zeros(f32, {rn}));
            auto fn = ref->lookup_function<void(const float *, float *, int, int)>("ref_row_sums");
            const weft::Kernel k = extra.kernel("row_sums");
            add({"row_sums", 1, [=] { k.launch({rn, rm}, {*x, *s}); }, [=] { fn(xs->data(), sums->data(), rn, rm); },
                 [=] { return threads > 1 || s->to_vector<float>() == *sums; }});
        }
        {
            const int d = 160;
            auto us = std::make_shared<std::vector<float>>(wave(static_cast<std::size_t>(d) * d * d, 1.0f));
            auto outs = std::make_shared<std::vector<float>>(us->size(), 0.0f);
            auto u = std::make_shared<Array>(Array::from_host(f32, {d, d, d}, us->data(), us->size() * 4));
            auto out = std::make_shared<Array>(Array::zeros(f32, {d, d, d}));
            auto fn = ref->lookup_function<void(const float *, float *, float, int, int, int)>("ref_diffuse3d");
            const weft::Kernel k = extra.kernel("diffuse3d");
            add({"diffuse3d", 1, [=] { k.launch({d, d, d}, {*u, *out, 0.1f}); }, [=] { fn(us->data(), outs->data(), 0.1f, d, d, d); },
                 [=] { return floats(*out, outs->size()) == *outs; }});
        }
        {
            const std::int64_t cn = 4'000'000;
            auto cs = std::make_shared<std::vector<float>>(3 * cn);
            for (std::size_t i = 0; i < cs->size(); ++i) (*cs)[i] = static_cast<float>(i % 255) / 255.0f;
            auto carr = std::make_shared<Array>(Array::from_host(color, {cn}, cs->data(), cs->size() * 4));
            auto lout = std::make_shared<Array>(Array::zeros(f32, {cn}));
            auto lref = std::make_shared<std::vector<float>>(cn);
            auto fn = ref_colors->lookup_function<void(const float *, float *, float, long long)>("ref_luminance");
            const weft::Kernel k = host.load_module_source("colors_bench", colors_kernel).kernel("scaled_luminance");
            add({"plugin_colors", 1, [=] { k.launch({cn}, {*carr, *lout, 0.5f}); }, [=] { fn(cs->data(), lref->data(), 0.5f, cn); },
                 [=] { return lout->to_vector<float>() == *lref; }});
        }

        for (std::size_t c = 0; c < cases.size(); ++c) {
            const Case &k = cases[c];
            const int reps = std::max(3, repeat / k.repeat_divisor);
            const double gen = median_ms(reps, k.generated);
            if (compare) {
                const double hw = median_ms(reps, k.handwritten);
                if (!k.agree()) {
                    std::fprintf(stderr, "bench_cpu_kernels: %s: the generated kernel disagrees with the hand-written loop\n",
                                 k.name.c_str());
                    std::exit(1);
                }
                std::printf("%-14s generated %9.3f ms   hand-written %9.3f ms   (1 thread)\n", k.name.c_str(), gen, hw);
                std::printf("ratio %s_generated_vs_handwritten %.3f\n", k.name.c_str(), hw / gen);
                if (hw / gen < min_ratio) min_ratio = hw / gen, min_name = k.name;
                single.emplace_back(k.name, gen);
            } else {
                std::printf("%-14s %u threads %9.3f ms\n", k.name.c_str(), threads, gen);
                std::printf("ratio %s_speedup_%u_threads %.3f\n", k.name.c_str(), threads, single[c].second / gen);
            }
        }
        if (compare && !cases.empty())
            std::printf("ratio min_generated_vs_handwritten %.3f   (%s)\n", min_ratio, min_name.c_str());
    };
    run_set(1, true);
    for (unsigned threads = 2; threads <= cores; threads *= 2) run_set(threads, false);
    if (cores > 2 && (cores & (cores - 1))) run_set(cores, false);
    fs::remove_all(cache);
    return 0;
}
