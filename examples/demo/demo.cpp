// weft_demo: an application composing the two bundled plugins.
//
// It loads colors and philox into one weft::Host, then loads two kernel
// modules: noisy_colors.py (uses both plugins) and gradient.py (uses colors
// only). Each module is checked, compiled in process (or taken from the
// artifact cache), launched on the CPU, and its results are printed and
// checked against the same computations done here on the host. A second run
// with the same cache compiles nothing: every module says "cached".
//
//   weft_demo [--plugins DIR] [--kernels DIR] [--cache DIR] [--expect-cached]
//
//   --plugins DIR     the bundled plugins (default: ../bundled-plugins beside bin/)
//   --kernels DIR     the directory holding the .py modules (default: the source tree's examples/demo)
//   --cache DIR       the artifact cache root (default: WEFT_CACHE_DIR, else ~/.cache/weft)
//   --expect-cached   exit 1 unless every module came from the cache
#include "weft/host/host.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"
#include "weft/support/error.hpp"

// The host-side colors::Color: the header kernels include, so the layouts agree.
#include "weft_colors.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Args {
    fs::path plugins;
    fs::path kernels = WEFT_DEMO_KERNEL_DIR;
    fs::path cache;
    bool expect_cached = false;
};

fs::path default_plugin_dir(const char *argv0) {
    std::error_code ec;
    fs::path exe = fs::canonical("/proc/self/exe", ec);
    if (ec) exe = fs::absolute(argv0);
    return exe.parent_path().parent_path() / "bundled-plugins";
}

bool parse(int argc, char **argv, Args &a) {
    a.plugins = default_plugin_dir(argv[0]);
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](fs::path &out) {
            if (i + 1 >= argc) return false;
            out = argv[++i];
            return true;
        };
        if (arg == "--plugins" && value(a.plugins)) continue;
        if (arg == "--kernels" && value(a.kernels)) continue;
        if (arg == "--cache" && value(a.cache)) continue;
        if (arg == "--expect-cached") {
            a.expect_cached = true;
            continue;
        }
        std::fprintf(stderr, "usage: weft_demo [--plugins DIR] [--kernels DIR] [--cache DIR] [--expect-cached]\n");
        return false;
    }
    return true;
}

std::string join(const std::vector<std::string> &items) {
    std::string out;
    for (const std::string &s : items) out += (out.empty() ? "" : ", ") + s;
    return out.empty() ? "none" : out;
}

weft::Type native_type(const weft::Host &host, const char *name) {
    const weft::NativeTypeInfo *t = host.registry().native_type(name);
    if (!t) throw weft::UserError(std::string("native type ") + name + " is not registered");
    return t->type();
}

/// Loads one module and prints how: compiled or from the cache.
weft::CompiledModule load(weft::Host &host, const fs::path &file, int &compiled, int &cached) {
    weft::CompiledModule m = host.load_module(file);
    (m.from_cache() ? cached : compiled)++;
    const weft::ModuleSettings *module = host.find_module(m.name());
    std::printf("\nmodule %s (plugins: %s): %s in %.1f ms, hash %s\n", m.name().c_str(),
                module ? join(module->plugins()).c_str() : "?", m.from_cache() ? "cached, loaded" : "compiled",
                m.load_ms(), m.hash().substr(0, 16).c_str());
    return m;
}

bool close(float a, float b) { return std::fabs(a - b) <= 1e-6f * std::fmax(1.0f, std::fabs(b)); }

/// noisy_colors: base + colors_scale(three philox draws, amount), and its luminance.
bool run_noisy_colors(weft::Host &host, const weft::CompiledModule &m) {
    const weft::Type color_t = native_type(host, "colors::Color");
    const std::uint64_t seed = 42;
    const colors::Color base{0.1f, 0.2f, 0.3f};
    const float amount = 0.5f;
    const std::int64_t n = 6;
    weft::Array out = weft::Array::zeros(color_t, {n});
    weft::Array lum = weft::Array::zeros(weft::Type::scalar(weft::Scalar::Float32), {n});
    m.kernel("noisy_colors").launch({n}, {seed, weft::KernelArg::of(color_t, base), amount, out, lum});

    std::printf("  noisy_colors(seed=%llu, base=(%.2f, %.2f, %.2f), amount=%.2f) over %lld elements:\n",
                static_cast<unsigned long long>(seed), double{base.r}, double{base.g}, double{base.b}, double{amount},
                static_cast<long long>(n));
    const std::vector<colors::Color> c = out.to_vector<colors::Color>();
    const std::vector<float> l = lum.to_vector<float>();
    bool ok = true;
    for (std::size_t i = 0; i < c.size(); ++i) {
        std::printf("    [%zu] color (%.4f, %.4f, %.4f)  luminance %.4f\n", i, double{c[i].r}, double{c[i].g},
                    double{c[i].b}, double{l[i]});
        // Each channel is base + amount * u with u uniform in [0, 1).
        const float channels[3][2] = {{c[i].r, base.r}, {c[i].g, base.g}, {c[i].b, base.b}};
        for (const auto &ch : channels) ok = ok && ch[0] >= ch[1] && ch[0] < ch[1] + amount;
        ok = ok && close(l[i], colors::luminance(c[i]));
    }
    std::printf("  check: channels within [base, base + amount), luminance as colors::luminance on the host: %s\n",
                ok ? "ok" : "FAILED");
    return ok;
}

/// gradient: colors_scale(Color(t, t/2, 1-t), brightness) for t = i/(n-1), and its luminance.
bool run_gradient(weft::Host &host, const weft::CompiledModule &m) {
    const weft::Type color_t = native_type(host, "colors::Color");
    const int n = 5;
    const float brightness = 0.8f;
    weft::Array out = weft::Array::zeros(color_t, {n});
    weft::Array lum = weft::Array::zeros(weft::Type::scalar(weft::Scalar::Float32), {n});
    m.kernel("gradient").launch({n}, {n, brightness, out, lum});

    std::printf("  gradient(n=%d, brightness=%.2f):\n", n, double{brightness});
    const std::vector<colors::Color> c = out.to_vector<colors::Color>();
    const std::vector<float> l = lum.to_vector<float>();
    bool ok = true;
    for (std::size_t i = 0; i < c.size(); ++i) {
        std::printf("    [%zu] color (%.4f, %.4f, %.4f)  luminance %.4f\n", i, double{c[i].r}, double{c[i].g},
                    double{c[i].b}, double{l[i]});
        const float t = static_cast<float>(i) / static_cast<float>(n - 1);
        const colors::Color want = colors::scale(colors::Color{t, 0.5f * t, 1.0f - t}, brightness);
        ok = ok && close(c[i].r, want.r) && close(c[i].g, want.g) && close(c[i].b, want.b) &&
             close(l[i], colors::luminance(want));
    }
    std::printf("  check: as computed on the host with weft_colors.h: %s\n", ok ? "ok" : "FAILED");
    return ok;
}

} // namespace

int main(int argc, char **argv) {
    Args args;
    if (!parse(argc, argv, args)) return 2;
    try {
        weft::HostOptions options;
        options.use_environment = false; // plugins are loaded by path
        options.cache_dir = args.cache;
        options.quiet = true; // this program prints each module's status itself
        weft::Host host(options);

        std::printf("weft demo: plugins from %s\n", args.plugins.string().c_str());
        for (const char *name : {"colors", "philox"}) {
            const weft::LoadedPlugin &p = host.load(args.plugins / name);
            std::printf("  loaded %s %s: %zu builtin%s, %zu native type%s\n", p.name().c_str(),
                        p.manifest.version.str().c_str(), p.builtins.size(), p.builtins.size() == 1 ? "" : "s",
                        p.native_types.size(), p.native_types.size() == 1 ? "" : "s");
        }
        std::printf("artifact cache: %s\n", host.cache().root().string().c_str());

        int compiled = 0, cached = 0;
        bool ok = run_noisy_colors(host, load(host, args.kernels / "noisy_colors.py", compiled, cached));
        ok = run_gradient(host, load(host, args.kernels / "gradient.py", compiled, cached)) && ok;

        std::printf("\n%d modules: %d compiled, %d cached\n", compiled + cached, compiled, cached);
        if (!ok) {
            std::fprintf(stderr, "weft_demo: a result check failed\n");
            return 1;
        }
        if (args.expect_cached && compiled != 0) {
            std::fprintf(stderr, "weft_demo: expected every module from the cache, but %d compiled\n", compiled);
            return 1;
        }
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "weft_demo: %s\n", e.what());
        return 1;
    }
}
