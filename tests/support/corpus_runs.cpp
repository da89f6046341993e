#include "corpus_runs.hpp"

#include "geometry_inputs.hpp"

#include "weft/modules/compiled_module.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/kernel_arg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace weft::test {

namespace {

/// float -> IEEE half bits for the values made here (normal, at most 10
/// mantissa bits: exact, so truncation is the rounding).
std::uint16_t half_bits(float f) {
    std::uint32_t b = 0;
    std::memcpy(&b, &f, sizeof b);
    const std::uint32_t sign = (b >> 16) & 0x8000u;
    const int exponent = static_cast<int>((b >> 23) & 0xffu) - 127 + 15;
    return static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exponent) << 10) | ((b >> 13) & 0x3ffu));
}

float half_value(std::uint16_t h) {
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -24)
                                          : std::ldexp(1.0f + static_cast<float>(mantissa) / 1024.0f, exponent - 15);
    return (h & 0x8000) ? -magnitude : magnitude;
}

/// float -> bfloat16 bits: the top half (the values made here have at most 7 mantissa bits).
std::uint16_t bfloat16_bits(float f) {
    std::uint32_t b = 0;
    std::memcpy(&b, &f, sizeof b);
    return static_cast<std::uint16_t>(b >> 16);
}

float bfloat16_value(std::uint16_t h) {
    const std::uint32_t b = static_cast<std::uint32_t>(h) << 16;
    float f = 0;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

/// Element `k` of a stream seeded by `seed`: 0.25 + n/64 with n in 0..95.
float float_value(std::uint64_t seed, std::uint64_t k) {
    return 0.25f + static_cast<float>((seed * 31 + k * 37) % 96) / 64.0f;
}
std::int64_t int_value(std::uint64_t seed, std::uint64_t k) { return static_cast<std::int64_t>((seed * 5 + k * 7) % 8); }

void put_scalar(Scalar s, unsigned char *out, std::uint64_t seed, std::uint64_t k) {
    switch (s) {
    case Scalar::Bool: out[0] = static_cast<unsigned char>((seed + k) % 2); return;
    case Scalar::Float16: {
        const std::uint16_t h = half_bits(float_value(seed, k));
        std::memcpy(out, &h, 2);
        return;
    }
    case Scalar::BFloat16: {
        const std::uint16_t h = bfloat16_bits(float_value(seed, k));
        std::memcpy(out, &h, 2);
        return;
    }
    case Scalar::Float32: {
        const float f = float_value(seed, k);
        std::memcpy(out, &f, 4);
        return;
    }
    case Scalar::Float64: {
        const double d = float_value(seed, k);
        std::memcpy(out, &d, 8);
        return;
    }
    default: { // integers: little-endian, the low bytes of the value
        const std::int64_t v = int_value(seed, k);
        std::memcpy(out, &v, scalar_size(s));
        return;
    }
    }
}

/// Writes a value of `t` at `out`; nullopt, or the reason when `t` cannot be made here.
std::optional<std::string> put_value(const Type &t, unsigned char *out, std::uint64_t seed, std::uint64_t k) {
    switch (t.kind()) {
    case Type::Kind::Scalar: put_scalar(t.scalar_type(), out, seed, k); return std::nullopt;
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: {
        const std::uint64_t width = scalar_size(t.scalar_type()), n = t.size() / width;
        for (std::uint64_t c = 0; c < n; ++c) put_scalar(t.scalar_type(), out + c * width, seed, k * n + c);
        return std::nullopt;
    }
    case Type::Kind::Struct: {
        std::uint64_t f = 0;
        for (const StructLayout::Field &field : t.layout().fields)
            if (auto why = put_value(field.type, out + field.offset, seed + ++f, k)) return why;
        return std::nullopt;
    }
    default: return "a " + t.name() + " value";
    }
}

std::vector<std::int64_t> shape_for(int ndim) {
    switch (ndim) {
    case 1: return {64};
    case 2: return {16, 16};
    case 3: return {8, 8, 8};
    default: return {4, 4, 4, 4};
    }
}

double element_as_double(Scalar s, const unsigned char *p) {
    switch (s) {
    case Scalar::Float16: {
        std::uint16_t h = 0;
        std::memcpy(&h, p, 2);
        return half_value(h);
    }
    case Scalar::BFloat16: {
        std::uint16_t h = 0;
        std::memcpy(&h, p, 2);
        return bfloat16_value(h);
    }
    case Scalar::Float32: {
        float f = 0;
        std::memcpy(&f, p, 4);
        return f;
    }
    default: {
        double d = 0;
        std::memcpy(&d, p, 8);
        return d;
    }
    }
}

/// The scalar type a dtype's elements are made of (a struct: none, compared bytewise).
std::optional<Scalar> component_scalar(const Type &t) {
    if (t.kind() == Type::Kind::Struct || t.kind() == Type::Kind::Native) return std::nullopt;
    return t.scalar_type();
}

/// An indexed array parameter's argument (diff_corpus.py makes the same): the
/// array made for a plain one, its first dimension indexed in reverse (position
/// k reads element n-1-k), the other dimensions not indexed.
IndexedArray reversed_first_dimension(const Array &base, Device device) {
    std::vector<std::int32_t> reverse(static_cast<std::size_t>(base.shape()[0]));
    for (std::size_t k = 0; k < reverse.size(); ++k) reverse[k] = static_cast<std::int32_t>(reverse.size() - 1 - k);
    return IndexedArray{base, {Array::from_vector(Type::scalar(Scalar::Int32), reverse, device)}};
}

/// `# objects: mesh=sphere grid=hash_grid(points,0.4) tree=soup_bvh`: the
/// host object each named uint64 parameter receives (see the header).
struct ObjectSpec {
    std::string kind;
    std::string array_param; // hash_grid: the array parameter it is built over
    double radius = 0;
};

std::map<std::string, ObjectSpec> object_specs(const std::filesystem::path &file) {
    std::map<std::string, ObjectSpec> out;
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("# objects:", 0) != 0) continue;
        std::istringstream words(line.substr(10));
        for (std::string w; words >> w;) {
            const auto eq = w.find('=');
            if (eq == std::string::npos) throw std::runtime_error(file.string() + ": '# objects:' entry '" + w + "' is not NAME=KIND");
            ObjectSpec spec;
            std::string kind = w.substr(eq + 1);
            if (const auto open = kind.find('('); open != std::string::npos) {
                const std::string inner = kind.substr(open + 1, kind.size() - open - 2);
                const auto comma = inner.find(',');
                spec.array_param = inner.substr(0, comma);
                spec.radius = std::stod(inner.substr(comma + 1));
                kind = kind.substr(0, open);
            }
            spec.kind = kind;
            out[w.substr(0, eq)] = spec;
        }
    }
    return out;
}

Object make_object(Host &host, const ObjectSpec &spec, const std::map<std::string, Array> &arrays, Device device) {
    namespace gi = geometry_inputs;
    const Type i32 = Type::scalar(Scalar::Int32);
    const auto mesh = [&](const gi::Mesh &m) {
        return host.create("mesh", {{"points", Array::from_vector(m.points, device)},
                                    {"indices", Array::from_vector(i32, m.indices, device)}}, device);
    };
    if (spec.kind == "sphere") return mesh(gi::sphere());
    if (spec.kind == "box") return mesh(gi::box_mesh());
    if (spec.kind == "soup") return mesh(gi::soup());
    if (spec.kind == "soup_bvh") {
        gi::Points lo, hi;
        gi::triangle_bounds(gi::soup(), lo, hi);
        return host.create("bvh", {{"lowers", Array::from_vector(lo, device)}, {"uppers", Array::from_vector(hi, device)}},
                           device);
    }
    if (spec.kind == "hash_grid") {
        const auto it = arrays.find(spec.array_param);
        if (it == arrays.end()) throw std::runtime_error("hash_grid over '" + spec.array_param + "': no such array parameter");
        Object grid = host.create("hash_grid", {{"dim_x", std::int64_t{16}}, {"dim_y", std::int64_t{16}}, {"dim_z", std::int64_t{16}}},
                                  device);
        grid.call("build", {{"points", it->second}, {"radius", spec.radius}});
        return grid;
    }
    throw std::runtime_error("unknown object kind '" + spec.kind + "'");
}

} // namespace

std::vector<KernelRun> run_module_kernels(Host &host, const std::filesystem::path &file, Device device) {
    ModuleLoadOptions options;
    options.device = device;
    options.debug = true;
    options.fmad = false;
    options.enable_backward = false;
    const CompiledModule module = host.load_module(file, options);
    const std::map<std::string, ObjectSpec> objects = object_specs(file);
    std::vector<KernelRun> runs;
    std::vector<Kernel> kernels = module.kernels(); // each instance of a generic kernel apart
    std::stable_sort(kernels.begin(), kernels.end(), [](const Kernel &a, const Kernel &b) { return a.name() < b.name(); });
    for (std::size_t k = 0; k < kernels.size(); ++k) {
        const Kernel &kernel = kernels[k];
        KernelRun run;
        run.kernel = kernel.name();
        for (std::size_t j = k; j > 0 && kernels[j - 1].name() == run.kernel; --j) ++run.instance;
        const int tid_dims = kernel.tid_dims();
        run.dim = tid_dims >= 2 ? shape_for(tid_dims) : std::vector<std::int64_t>{64};
        std::vector<KernelArg> args;
        std::vector<Array> arrays;
        std::map<std::string, Array> by_name; // for objects built over an array argument
        std::vector<std::pair<std::size_t, std::string>> object_params;
        std::uint64_t seed = 1;
        for (const KernelParam &p : kernel.params()) {
            ++seed;
            if (objects.count(p.name) && p.type == Type::scalar(Scalar::UInt64)) {
                object_params.emplace_back(args.size(), p.name);
                args.push_back(KernelArg(std::uint64_t{0})); // replaced once every array is made
                continue;
            }
            if (p.type.kind() == Type::Kind::Array) {
                const Type &dtype = p.type.element();
                const std::vector<std::int64_t> shape = shape_for(p.type.ndim());
                std::int64_t count = 1;
                for (std::int64_t n : shape) count *= n;
                std::vector<unsigned char> bytes(static_cast<std::size_t>(count) * dtype.size());
                for (std::int64_t i = 0; i < count && !run.error.size(); ++i)
                    if (auto why = put_value(dtype, bytes.data() + i * dtype.size(), seed, static_cast<std::uint64_t>(i)))
                        run.error = "unsupported: parameter '" + p.name + "' holds " + *why;
                arrays.push_back(Array::from_host(dtype, shape, bytes.data(), bytes.size(), device));
                by_name.insert_or_assign(p.name, arrays.back());
                if (p.type.is_indexed_array())
                    args.emplace_back(reversed_first_dimension(arrays.back(), device));
                else
                    args.emplace_back(arrays.back());
                run.dtypes.push_back(dtype);
            } else {
                std::vector<unsigned char> bytes(p.type.size());
                if (auto why = put_value(p.type, bytes.data(), seed, 0))
                    run.error = "unsupported: parameter '" + p.name + "' is " + *why;
                else
                    args.push_back(KernelArg::value(p.type, bytes.data(), bytes.size()));
            }
        }
        std::vector<Object> live; // the objects outlive the launch
        for (const auto &[position, name] : object_params) {
            live.push_back(make_object(host, objects.at(name), by_name, device));
            args[position] = live.back();
        }
        if (run.error.empty()) {
            try {
                if (kernel.tiled()) {
                    run.block_dim = 64;
                    LaunchOptions tiled;
                    tiled.block_dim = run.block_dim;
                    kernel.launch(run.dim, args, tiled);
                } else {
                    kernel.launch(run.dim, args);
                }
            } catch (const LaunchError &e) {
                run.error = e.what();
            }
            for (const Array &a : arrays) {
                std::vector<unsigned char> bytes(a.nbytes());
                a.copy_to_host(bytes.data(), bytes.size());
                run.arrays.push_back(std::move(bytes));
            }
        }
        runs.push_back(std::move(run));
    }
    return runs;
}

std::string compare_runs(const std::vector<KernelRun> &a, const std::vector<KernelRun> &b, double float_tolerance) {
    if (a.size() != b.size()) return std::to_string(a.size()) + " kernels vs " + std::to_string(b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
        const KernelRun &x = a[k], &y = b[k];
        const std::string where = "kernel '" + x.kernel + "'";
        if (x.kernel != y.kernel) return "kernel '" + x.kernel + "' vs '" + y.kernel + "'";
        // Error texts name the device (cpu, cuda:0): compare whether each failed, and the first line's kind.
        if (x.error.empty() != y.error.empty())
            return where + ": " + (x.error.empty() ? "ran" : "failed (" + x.error + ")") + " on one device, " +
                   (y.error.empty() ? "ran" : "failed (" + y.error + ")") + " on the other";
        if (x.arrays.size() != y.arrays.size()) return where + ": different array counts";
        for (std::size_t i = 0; i < x.arrays.size(); ++i) {
            const std::vector<unsigned char> &p = x.arrays[i], &q = y.arrays[i];
            const Type &dtype = x.dtypes[i];
            const std::optional<Scalar> s = component_scalar(dtype);
            const bool is_float = s && Type::scalar(*s).is_float();
            if (!is_float) {
                if (p != q) {
                    const auto at = std::mismatch(p.begin(), p.end(), q.begin()).first - p.begin();
                    return where + ", array " + std::to_string(i) + " (" + dtype.name() + "): byte " +
                           std::to_string(at) + " differs";
                }
                continue;
            }
            const std::uint64_t width = scalar_size(*s);
            const double tolerance = is_half_precision(*s) ? 1e-2 : *s == Scalar::Float64 ? 1e-9 : float_tolerance;
            for (std::size_t e = 0; e + width <= p.size(); e += width) {
                const double u = element_as_double(*s, p.data() + e), v = element_as_double(*s, q.data() + e);
                const bool same = u == v || (std::isnan(u) && std::isnan(v)) ||
                                  std::fabs(u - v) <= tolerance * std::max({1.0, std::fabs(u), std::fabs(v)});
                if (!same)
                    return where + ", array " + std::to_string(i) + " (" + dtype.name() + "), component " +
                           std::to_string(e / width) + ": " + std::to_string(u) + " vs " + std::to_string(v);
            }
        }
    }
    return "";
}

std::string runs_to_json(const std::vector<KernelRun> &runs) {
    const auto quoted = [](const std::string &text) {
        std::string out = "\"";
        for (const char c : text) {
            if (c == '"' || c == '\\') out += '\\';
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
        return out + "\"";
    };
    std::string out = "[";
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const KernelRun &run = runs[r];
        out += (r ? ",\n" : "\n") + std::string("{\"kernel\": ") + quoted(run.kernel) +
               ", \"instance\": " + std::to_string(run.instance) + ", \"block_dim\": " + std::to_string(run.block_dim) +
               ", \"dim\": [";
        for (std::size_t d = 0; d < run.dim.size(); ++d) out += (d ? ", " : "") + std::to_string(run.dim[d]);
        out += "], \"error\": " + quoted(run.error) + ", \"arrays\": [";
        for (std::size_t i = 0; i < run.arrays.size(); ++i) {
            if (i) out += ", ";
            const std::optional<Scalar> s = component_scalar(run.dtypes[i]);
            if (!s) {
                out += "null";
                continue;
            }
            const std::uint64_t width = scalar_size(*s);
            const std::vector<unsigned char> &bytes = run.arrays[i];
            out += "[";
            for (std::size_t e = 0; e + width <= bytes.size(); e += width) {
                if (e) out += ", ";
                const unsigned char *p = bytes.data() + e;
                char buf[40];
                switch (*s) {
                case Scalar::Float16:
                case Scalar::BFloat16:
                case Scalar::Float32:
                case Scalar::Float64: {
                    const double v = element_as_double(*s, p);
                    if (std::isnan(v)) out += "\"nan\"";
                    else if (std::isinf(v)) out += v > 0 ? "\"inf\"" : "\"-inf\"";
                    else {
                        std::snprintf(buf, sizeof buf, "%.17g", v);
                        out += buf;
                    }
                    break;
                }
                case Scalar::Bool: out += p[0] ? "1" : "0"; break;
                case Scalar::UInt8: out += std::to_string(p[0]); break;
                case Scalar::UInt16: { std::uint16_t v; std::memcpy(&v, p, 2); out += std::to_string(v); break; }
                case Scalar::UInt32: { std::uint32_t v; std::memcpy(&v, p, 4); out += std::to_string(v); break; }
                case Scalar::UInt64: { std::uint64_t v; std::memcpy(&v, p, 8); out += std::to_string(v); break; }
                case Scalar::Int8: out += std::to_string(static_cast<std::int8_t>(p[0])); break;
                case Scalar::Int16: { std::int16_t v; std::memcpy(&v, p, 2); out += std::to_string(v); break; }
                case Scalar::Int32: { std::int32_t v; std::memcpy(&v, p, 4); out += std::to_string(v); break; }
                case Scalar::Int64: { std::int64_t v; std::memcpy(&v, p, 8); out += std::to_string(v); break; }
                }
            }
            out += "]";
        }
        out += "]}";
    }
    return out + "\n]\n";
}

} // namespace weft::test
