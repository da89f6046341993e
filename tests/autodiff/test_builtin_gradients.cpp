// One gradient check per differentiable core builtin overload, generated from
// the registry (a builtin added later cannot skip it): float64 overloads
// against central finite differences, float32 overloads against their float64
// twin, float16 and bfloat16 ones compiled and run.
#include "weft/modules/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/host/tape.hpp"
#include "weft/runtime/array.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace weft;
namespace fs = std::filesystem;

namespace {

bool float_based(const Type &t) {
    if (t.kind() == Type::Kind::Scalar) return t.is_float();
    if (t.kind() == Type::Kind::Vector || t.kind() == Type::Kind::Matrix || t.kind() == Type::Kind::Quaternion ||
        t.kind() == Type::Kind::Transform)
        return Type::scalar(t.scalar_type()).is_float();
    return false;
}

Scalar scalar_of(const Type &t) { return t.kind() == Type::Kind::Scalar ? t.scalar_type() : t.scalar_type(); }

/// The differentiable core overloads: float results from float operands.
std::vector<BuiltinOverload> differentiable_overloads(const Registry &r) {
    std::vector<BuiltinOverload> out;
    for (const std::string &name : r.builtin_names())
        for (const BuiltinOverload &o : r.overloads(name)) {
            if (o.external || o.generic() || !o.differentiable || !o.result || !float_based(*o.result)) continue;
            bool ok = !o.params.empty();
            for (const Parameter &p : o.params) ok = ok && float_based(p.type);
            if (ok) out.push_back(o);
        }
    return out;
}

/// The type as kernel source writes it: 6-vectors and 6x6 matrices by Warp's spatial names (only they parse).
std::string spelled(const Type &t) {
    const std::string sfx = t.scalar_type() == Scalar::Float64 ? "d" : t.scalar_type() == Scalar::Float16 ? "h" : "";
    if (t.kind() == Type::Kind::Vector && t.rows() == 6) return "spatial_vector" + sfx;
    if (t.kind() == Type::Kind::Matrix && t.rows() == 6 && t.cols() == 6) return "spatial_matrix" + sfx;
    return t.name();
}

std::string twin_name(const Type &t) {
    const std::string n = spelled(t);
    if (t.kind() == Type::Kind::Scalar) return "float64";
    if (n.back() == 'h') return n.substr(0, n.size() - 1) + "d";
    if (n.back() == 'd') return n;
    return n + "d";
}

/// "k<i>": out[0] = wp.<name>(a0[0], a1[0], ...).
std::string kernel_text(const BuiltinOverload &o, std::size_t i, bool twin) {
    std::string s = "@wp.kernel\ndef k" + std::to_string(i) + "(";
    std::string call = "wp." + o.name + "(";
    for (std::size_t p = 0; p < o.params.size(); ++p) {
        s += "a" + std::to_string(p) + ": wp.array(dtype=wp." + (twin ? twin_name(o.params[p].type) : spelled(o.params[p].type)) +
             "), ";
        call += (p ? ", " : "") + std::string("a") + std::to_string(p) + "[0]";
    }
    s += "out: wp.array(dtype=wp." + (twin ? twin_name(*o.result) : spelled(*o.result)) + ")):\n";
    s += "    out[0] = " + call + ")\n\n";
    return s;
}

struct TempCache {
    fs::path path;
    TempCache() {
        const char *base = std::getenv("WEFT_CACHE_DIR");
        const fs::path root = base && *base ? fs::path(base) : fs::temp_directory_path();
        path = root / ("weft-builtin-gradients-" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempCache() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

HostOptions options(const fs::path &cache) {
    HostOptions o;
    o.use_environment = false;
    o.search_path = {};
    o.cache_dir = cache;
    o.quiet = true;
    return o;
}

std::size_t components(const Type &t) { return t.size() / Type::scalar(scalar_of(t)).size(); }

/// Host values as the dtype's scalar bytes (float64 or float32).
Array make(const Type &t, const std::vector<double> &v, bool grad) {
    Array a = Array::zeros(t, {1}, Device::cpu(), grad);
    if (scalar_of(t) == Scalar::Float64) {
        a.copy_from_host(v.data(), v.size() * 8);
    } else if (scalar_of(t) == Scalar::Float32) {
        std::vector<float> f(v.begin(), v.end());
        a.copy_from_host(f.data(), f.size() * 4);
    } else { // float16 and bfloat16 from float32 bits, rounded toward zero (inputs only need to be representable)
        const bool brain = scalar_of(t) == Scalar::BFloat16;
        std::vector<std::uint16_t> h;
        for (double d : v) {
            const float f = static_cast<float>(d);
            std::uint32_t b;
            std::memcpy(&b, &f, 4);
            const std::uint32_t e = (b >> 23) & 0xff;
            h.push_back(brain ? static_cast<std::uint16_t>(b >> 16)
                              : static_cast<std::uint16_t>(((b >> 16) & 0x8000) | ((e - 112) << 10) | ((b >> 13) & 0x3ff)));
        }
        a.copy_from_host(h.data(), h.size() * 2);
    }
    return a;
}

std::vector<double> values(const Array &a) {
    std::vector<double> out;
    if (scalar_of(a.dtype()) == Scalar::Float64) {
        out.resize(a.nbytes() / 8);
        a.copy_to_host(out.data(), a.nbytes());
    } else if (scalar_of(a.dtype()) == Scalar::Float32) {
        std::vector<float> f(a.nbytes() / 4);
        a.copy_to_host(f.data(), a.nbytes());
        out.assign(f.begin(), f.end());
    } else {
        std::vector<std::uint16_t> h(a.nbytes() / 2);
        a.copy_to_host(h.data(), a.nbytes());
        const bool brain = scalar_of(a.dtype()) == Scalar::BFloat16;
        for (std::uint16_t x : h) {
            const std::uint32_t b = brain ? static_cast<std::uint32_t>(x) << 16
                                          : (static_cast<std::uint32_t>(x & 0x8000) << 16) |
                                                ((((x >> 10) & 0x1f) + 112u) << 23) |
                                                (static_cast<std::uint32_t>(x & 0x3ff) << 13);
            float f;
            std::memcpy(&f, &b, 4);
            out.push_back(!brain && (x & 0x7fff) == 0 ? 0.0 : f);
        }
    }
    return out;
}

/// Inputs of overload `o` in (0.2, 0.8), one vector per parameter.
std::vector<std::vector<double>> inputs_for(const BuiltinOverload &o, std::size_t seed) {
    std::mt19937 rng(static_cast<unsigned>(seed * 7919 + 13));
    std::uniform_real_distribution<double> u(0.2, 0.8);
    std::vector<std::vector<double>> in;
    for (const Parameter &p : o.params) {
        std::vector<double> v(components(p.type));
        for (double &x : v) x = u(rng);
        in.push_back(v);
    }
    return in;
}

struct Run {
    std::vector<double> out;
    std::vector<std::vector<double>> grads;
};

Run run(const Kernel &k, const BuiltinOverload &o, const std::vector<std::vector<double>> &in,
        const std::vector<double> &w) {
    std::vector<KernelArg> args;
    std::vector<Array> arrays;
    for (std::size_t p = 0; p < o.params.size(); ++p) {
        arrays.push_back(make(k.params()[p].type.element(), in[p], true));
        args.emplace_back(arrays.back());
    }
    const Type rt = k.params().back().type.element();
    Array out = Array::zeros(rt, {1}, Device::cpu(), true);
    args.emplace_back(out);
    Tape tape;
    {
        Tape::Scope scope(tape);
        k.launch({1}, args);
    }
    tape.backward({{out, make(rt, w, false)}});
    Run r;
    r.out = values(out);
    for (const Array &a : arrays) r.grads.push_back(values(a.grad()));
    return r;
}

double loss(const Kernel &k, const BuiltinOverload &o, const std::vector<std::vector<double>> &in,
            const std::vector<double> &w) {
    std::vector<KernelArg> args;
    for (std::size_t p = 0; p < o.params.size(); ++p) args.emplace_back(make(k.params()[p].type.element(), in[p], false));
    Array out = Array::zeros(k.params().back().type.element(), {1});
    args.emplace_back(out);
    k.launch({1}, args);
    const std::vector<double> v = values(out);
    double s = 0;
    for (std::size_t i = 0; i < v.size(); ++i) s += w[i] * v[i];
    return s;
}

} // namespace

TEST_CASE("every differentiable core builtin's gradient matches finite differences") {
    // One host and three modules for every overload (sections would rebuild them).
    TempCache cache;
    Host host(options(cache.path));
    const std::vector<BuiltinOverload> all = differentiable_overloads(host.registry());
    REQUIRE(all.size() > 150);
    std::string f64_src = "import warp as wp\n\n", f32_src = f64_src, f16_src = f64_src;
    std::vector<std::size_t> f64_ops, f32_ops, f16_ops;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Scalar s = scalar_of(*all[i].result);
        if (s == Scalar::Float64) {
            f64_src += kernel_text(all[i], i, false);
            f64_ops.push_back(i);
        } else if (s == Scalar::Float32) {
            f32_src += kernel_text(all[i], i, false) + kernel_text(all[i], i + 100000, true);
            f32_ops.push_back(i);
        } else { // float16 and bfloat16
            f16_src += kernel_text(all[i], i, false);
            f16_ops.push_back(i);
        }
    }
    CompiledModule m64 = host.load_module_source("grad_f64", f64_src);
    CompiledModule m32 = host.load_module_source("grad_f32", f32_src);
    CompiledModule m16 = host.load_module_source("grad_f16", f16_src);

    for (std::size_t i : f64_ops) {
        const BuiltinOverload &o = all[i];
        {
            const Kernel k = m64.kernel("k" + std::to_string(i));
            const auto in = inputs_for(o, i);
            std::vector<double> w(components(*o.result));
            for (std::size_t c = 0; c < w.size(); ++c) w[c] = 0.5 + 0.25 * static_cast<double>(c % 3);
            const Run r = run(k, o, in, w);
            const double h = 1e-6;
            for (std::size_t p = 0; p < in.size(); ++p)
                for (std::size_t c = 0; c < in[p].size(); ++c) {
                    auto plus = in, minus = in;
                    plus[p][c] += h;
                    minus[p][c] -= h;
                    const double fd = (loss(k, o, plus, w) - loss(k, o, minus, w)) / (2 * h);
                    INFO(o.signature() << ": parameter " << o.params[p].name << ", component " << c << ": analytic "
                                       << r.grads[p][c] << ", finite differences " << fd);
                    CHECK(std::abs(r.grads[p][c] - fd) <= 1e-6 * std::max(1.0, std::abs(fd)));
                }
        }
    }
    for (std::size_t i : f32_ops) {
        const BuiltinOverload &o = all[i];
        {
            const auto in = inputs_for(o, i);
            std::vector<double> w(components(*o.result), 1.0);
            const Run r32 = run(m32.kernel("k" + std::to_string(i)), o, in, w);
            const Run r64 = run(m32.kernel("k" + std::to_string(i + 100000)), o, in, w);
            for (std::size_t p = 0; p < in.size(); ++p)
                for (std::size_t c = 0; c < in[p].size(); ++c) {
                    INFO(o.signature() << ": parameter " << o.params[p].name << ", component " << c << ": float32 "
                                       << r32.grads[p][c] << ", float64 " << r64.grads[p][c]);
                    CHECK(std::abs(r32.grads[p][c] - r64.grads[p][c]) <= 1e-3 * std::max(1.0, std::abs(r64.grads[p][c])));
                }
        }
    }
    for (std::size_t i : f16_ops) {
        const BuiltinOverload &o = all[i];
        {
            INFO(o.signature());
            const auto in = inputs_for(o, i);
            std::vector<double> w(components(*o.result), 1.0);
            const Run r16 = run(m16.kernel("k" + std::to_string(i)), o, in, w);
            for (const auto &g : r16.grads)
                for (double x : g) CHECK(std::isfinite(x));
        }
    }
}
