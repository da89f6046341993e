// Recording launches and running their backward passes (weft::Tape).
#include "weft/host/tape.hpp"

#include "weft/runtime/launch.hpp"
#include "weft/runtime/struct_value.hpp"
#include "weft/support/error.hpp"

#include <array>
#include <cstring>
#include <span>
#include <string>

namespace weft {

// A tape records through the modules layer's launch observer: the launch
// code knows nothing of tapes.
struct TapeRecorder {
    static void launched(void *tape, const Kernel &kernel, const std::vector<std::int64_t> &dim,
                         const std::vector<KernelArg> &args, const LaunchOptions &options) {
        static_cast<Tape *>(tape)->launches_.push_back({kernel, dim, args, options});
    }
};

Tape::Tape() = default;
Tape::~Tape() {
    // A tape destroyed inside its own scope stops recording at once.
    const LaunchObserver current = exchange_launch_observer({});
    if (current.context != this) exchange_launch_observer(current);
}

Tape::Scope::Scope(Tape &tape) : previous_(exchange_launch_observer({&TapeRecorder::launched, &tape})) {}
Tape::Scope::~Scope() { exchange_launch_observer(previous_); }

std::size_t Tape::size() const { return launches_.size(); }
const std::vector<Tape::Launch> &Tape::launches() const { return launches_; }
void Tape::reset() { launches_.clear(); }

void Tape::zero() {
    for (const Launch &l : launches_)
        for (const KernelArg &a : l.args)
            if (a.is_array()) a.array().zero_grad();
            else if (a.is_indexed_array()) a.indexed_array().base.zero_grad();
            else
                for (const Array &r : a.referenced_arrays()) r.zero_grad(); // a struct's arrays
}

namespace {
/// Sets, in `adj`, each array field of the struct `layout` at `offset` of
/// `value` (nested structs included) to the gradient of the array it holds,
/// found among the argument's arrays by its view.
void set_gradient_fields(StructValue &adj, const StructLayout &layout, const std::string &prefix, std::size_t offset,
                         const KernelArg &value) {
    for (const StructLayout::Field &f : layout.fields) {
        const std::string path = prefix + f.name;
        const std::size_t at = offset + static_cast<std::size_t>(f.offset);
        if (f.type.kind() == Type::Kind::Struct) {
            set_gradient_fields(adj, f.type.layout(), path + ".", at, value);
            continue;
        }
        if (f.type.kind() != Type::Kind::Array || f.type.is_indexed_array()) continue;
        const std::byte *view = value.bytes().data() + at;
        for (const Array &a : value.referenced_arrays()) {
            if (!a.requires_grad() || a.is_null()) continue;
            std::array<std::byte, ArrayViewLayout::size> mine{};
            write_array_view(mine.data(), reinterpret_cast<std::uintptr_t>(a.data()), a.shape(), a.strides());
            if (std::memcmp(mine.data(), view, mine.size()) != 0) continue;
            adj.set(path, a.grad());
            break;
        }
    }
}

/// The adjoint argument of a struct: zero, but for its arrays' gradients
/// (Warp's rule: a gradient flows into an array a struct argument holds).
KernelArg struct_adjoint(const KernelArg &a) {
    StructValue adj(a.type());
    set_gradient_fields(adj, a.type().layout(), "", 0, a);
    return KernelArg(adj);
}
} // namespace

namespace {
float float_from_half(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        const float v = static_cast<float>(m) * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    const std::uint32_t bits = e == 31 ? (sign | 0x7f800000u | (m << 13)) : (sign | ((e + 112u) << 23) | (m << 13));
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::uint16_t half_from_float(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);
    if (a >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (a >= 0x38800000u) {
        const std::uint32_t h = a - 0x38000000u;
        return static_cast<std::uint16_t>(sign | ((h + 0x0fffu + ((h >> 13) & 1u)) >> 13));
    }
    if (a < 0x33000000u) return static_cast<std::uint16_t>(sign);
    const std::uint32_t s = 126u - (a >> 23), m = (a & 0x7fffffu) | 0x800000u;
    std::uint32_t q = m >> s;
    const std::uint32_t rem = m & ((1u << s) - 1u), half = 1u << (s - 1u);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<std::uint16_t>(sign | q);
}

float float_from_bfloat16(std::uint16_t b) {
    const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

/// As the runtime's rt::f32_to_bf16 (Warp's rounding): nearest even, NaNs stay NaNs.
std::uint16_t bfloat16_from_float(float f) {
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7f800000u) == 0x7f800000u) {
        const auto h = static_cast<std::uint16_t>(x >> 16);
        return (x & 0x7fffffu) != 0u && (h & 0x7fu) == 0u ? static_cast<std::uint16_t>(h | 0x40u) : h;
    }
    return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/// One float component of scalar type `s` at `p`, as a double (16-bit floats exactly).
double load_float(Scalar s, const std::byte *p) {
    if (s == Scalar::Float64) {
        double v;
        std::memcpy(&v, p, 8);
        return v;
    }
    if (s == Scalar::Float32) {
        float v;
        std::memcpy(&v, p, 4);
        return v;
    }
    std::uint16_t h;
    std::memcpy(&h, p, 2);
    return s == Scalar::BFloat16 ? float_from_bfloat16(h) : float_from_half(h);
}

/// Stores `v` at `p` as scalar type `s`: float16 and bfloat16 from its float32
/// value, rounded to nearest even, as kernels round their float32 arithmetic.
void store_float(Scalar s, std::byte *p, double v) {
    if (s == Scalar::Float64) {
        std::memcpy(p, &v, 8);
        return;
    }
    const auto f = static_cast<float>(v);
    if (s == Scalar::Float32) {
        std::memcpy(p, &f, 4);
        return;
    }
    const std::uint16_t h = s == Scalar::BFloat16 ? bfloat16_from_float(f) : half_from_float(f);
    std::memcpy(p, &h, 2);
}

/// A host buffer of `a`'s element count holding the value 1 in its scalar type, per component.
std::vector<std::byte> ones_like(const Array &a) {
    const Type &t = a.dtype();
    const Type s = t.kind() == Type::Kind::Scalar ? t : Type::scalar(t.scalar_type());
    if (!s.is_float())
        throw UserError("Tape::backward: the loss has dtype " + t.name() + ", which carries no gradient (use a float type)");
    const std::size_t comps = t.size() / s.size();
    std::vector<std::byte> one(s.size());
    store_float(s.scalar_type(), one.data(), 1.0);
    std::vector<std::byte> out(static_cast<std::size_t>(a.size()) * comps * s.size());
    for (std::size_t i = 0; i < out.size(); i += one.size()) std::memcpy(out.data() + i, one.data(), one.size());
    return out;
}

/// grad += seed, element-wise, for float scalar components (host round trip: seeds are small).
void add_into_grad(const Array &target, const std::vector<std::byte> &seed) {
    const Array &g = target.grad();
    // A contiguous CPU gradient is updated where it is; others take a round trip.
    const bool in_place = g.device().is_cpu() && g.is_contiguous();
    std::vector<std::byte> copy;
    if (!in_place) {
        copy.resize(g.nbytes());
        g.copy_to_host(copy.data(), copy.size());
    }
    const std::span<std::byte> cur = in_place ? std::span<std::byte>(static_cast<std::byte *>(g.data()), g.nbytes())
                                              : std::span<std::byte>(copy);
    const Type &t = g.dtype();
    const Type s = t.kind() == Type::Kind::Scalar ? t : Type::scalar(t.scalar_type());
    const Scalar k = s.scalar_type();
    for (std::size_t i = 0; i < cur.size(); i += s.size()) {
        const double a = load_float(k, cur.data() + i), b = load_float(k, seed.data() + i);
        // The sum a kernel's += makes: in float32 below float64 (16-bit floats then rounded).
        const double sum = k == Scalar::Float64 ? a + b : static_cast<float>(a) + static_cast<float>(b);
        store_float(k, cur.data() + i, sum);
    }
    if (!in_place) const_cast<Array &>(g).copy_from_host(copy.data(), copy.size());
}

/// grad += 1 in place for a contiguous float32 or float64 CPU gradient (the
/// common loss); false for any other, which takes add_into_grad. Element by
/// element through a byte buffer, seeding a 1M-element loss cost 6 ms, more
/// than its saxpy's whole backward launch.
bool add_one_in_place(const Array &target) {
    const Array &g = target.grad();
    if (!g.device().is_cpu() || !g.is_contiguous()) return false;
    const Type::Kind k = g.dtype().kind();
    const bool components = k == Type::Kind::Scalar || k == Type::Kind::Vector || k == Type::Kind::Matrix ||
                            k == Type::Kind::Quaternion || k == Type::Kind::Transform;
    const Scalar s = components ? g.dtype().scalar_type() : Scalar::Bool;
    if (s != Scalar::Float32 && s != Scalar::Float64) return false;
    const std::size_t n = g.nbytes() / (s == Scalar::Float32 ? 4 : 8); // every component
    if (s == Scalar::Float32)
        for (float *p = static_cast<float *>(g.data()), *e = p + n; p != e; ++p) *p += 1.0f;
    else
        for (double *p = static_cast<double *>(g.data()), *e = p + n; p != e; ++p) *p += 1.0;
    return true;
}
} // namespace

void Tape::backward(const Array &loss) {
    if (!loss.requires_grad())
        throw UserError("Tape::backward: the loss array (" + loss.dtype().name() + " " + shape_text(loss.shape()) +
                        ") has no gradient: create it with requires_grad");
    // Built first: a backward pass that fails to build leaves no seed behind.
    const std::vector<Kernel> passes = backward_passes();
    if (!add_one_in_place(loss)) add_into_grad(loss, ones_like(loss));
    run_backward(passes);
}

void Tape::backward(const std::vector<std::pair<Array, Array>> &seeds) {
    for (const auto &[target, seed] : seeds) {
        if (!target.requires_grad())
            throw UserError("Tape::backward: a seeded array (" + target.dtype().name() + " " + shape_text(target.shape()) +
                            ") has no gradient: create it with requires_grad");
        if (seed.dtype() != target.dtype() || seed.shape() != target.shape())
            throw UserError("Tape::backward: a seed is " + seed.dtype().name() + " " + shape_text(seed.shape()) +
                            ", its array " + target.dtype().name() + " " + shape_text(target.shape()));
    }
    const std::vector<Kernel> passes = backward_passes();
    for (const auto &[target, seed] : seeds) {
        std::vector<std::byte> bytes(seed.nbytes());
        seed.copy_to_host(bytes.data(), bytes.size());
        add_into_grad(target, bytes);
    }
    run_backward(passes);
}

std::vector<Kernel> Tape::backward_passes() const {
    // Every kernel's first: a tape with one kernel lacking a backward pass
    // (or whose backward pass does not build) changes no gradient.
    std::vector<Kernel> backward;
    backward.reserve(launches_.size());
    for (const Launch &l : launches_) backward.push_back(l.kernel.backward());
    return backward;
}

void Tape::run_backward(const std::vector<Kernel> &backward) {
    // Backward launches are never recorded, on this tape or an enclosing one.
    struct Pause {
        LaunchObserver saved = exchange_launch_observer({});
        ~Pause() { exchange_launch_observer(saved); }
    } pause;
    for (std::size_t i = launches_.size(); i-- > 0;) {
        const Launch &l = launches_[i];
        std::vector<KernelArg> all = l.args;
        for (const KernelArg &a : l.args) {
            if (a.is_array()) {
                all.push_back(a.array().requires_grad() ? KernelArg(a.array().grad()) : KernelArg(null_array_like(a.array())));
            } else if (a.is_indexed_array()) {
                const IndexedArray &x = a.indexed_array();
                all.push_back(x.over(x.base.requires_grad() ? x.base.grad() : null_array_like(x.base)));
            } else if (a.type().kind() == Type::Kind::Struct && !a.referenced_arrays().empty()) {
                all.push_back(struct_adjoint(a));
            } else {
                const std::vector<std::byte> zero(a.bytes().size());
                all.push_back(KernelArg::value(a.type(), zero.data(), zero.size()));
            }
        }
        backward[i].launch(l.dim, all, l.options);
    }
}

} // namespace weft
