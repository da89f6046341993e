// Lowered IR -> one C++ translation unit. The emitter trusts the lowered
// form's rules (verify_lowered): operands are atoms, statements compute one
// operation, store targets are lvalue paths.
#include "weft/codegen/cpp_emitter.hpp"

#include "weft/support/error.hpp"
#include "weft/support/version.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace weft::codegen {

namespace {

using kernel::ir::Expr;
using kernel::ir::Stmt;
namespace ir = kernel::ir;
using K = Expr::Kind;
using S = Stmt::Kind;

std::uint64_t fnv1a(const std::string &s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::string hex16(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

} // namespace

std::string c_string_literal(const std::string &s) {
    std::string out = "\"";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') out += std::string("\\") + c;
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (u < 0x20 || u >= 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\%03o", u);
            out += buf;
        } else
            out += c;
    }
    return out + "\"";
}

namespace {

std::string c_string(const std::string &s) { return c_string_literal(s); }

std::string float_text(double v, Scalar s) {
    if (std::isnan(v)) return s == Scalar::Float64 ? "__builtin_nan(\"\")" : "__builtin_nanf(\"\")";
    if (std::isinf(v)) {
        const std::string inf = s == Scalar::Float64 ? "__builtin_inf()" : "__builtin_inff()";
        return v < 0 ? "(-" + inf + ")" : inf;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, s == Scalar::Float64 ? "%.17g" : "%.9g", v);
    std::string t = buf;
    if (t.find_first_of(".eE") == std::string::npos) t += ".0";
    return s == Scalar::Float64 ? t : t + "f";
}

std::string int_text(ir::IntValue v, Scalar s) {
    // INT64_MIN has no literal: spell it as an expression.
    if (s == Scalar::Int64 && v == -(static_cast<ir::IntValue>(1) << 63)) return "(-9223372036854775807LL - 1)";
    std::string t = ir::to_string(v);
    if (s == Scalar::UInt64) return t + "ull";
    if (s == Scalar::Int64) return t + "LL";
    if (s == Scalar::UInt32) return t + "u";
    return t;
}

std::string scalar_value(const ir::ConstantValue &c, std::size_t i, Scalar s) {
    const Type t = Type::scalar(s);
    if (t.is_bool()) return c.int_components.size() > i && c.int_components[i] ? "true" : "false";
    if (t.is_float()) {
        const std::string f = float_text(c.components[i], s == Scalar::Float64 ? Scalar::Float64 : Scalar::Float32);
        return s == Scalar::Float16 ? "weft::float16(" + f + ")" : f;
    }
    return "weft::" + std::string(scalar_name(s)) + "(" + int_text(c.int_components[i], s) + ")";
}

} // namespace

std::string cpp_type(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar: return t.is_bool() ? "bool" : "weft::" + std::string(scalar_name(t.scalar_type()));
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion: return "weft::" + t.name();
    case Type::Kind::Native: return t.native_name();
    case Type::Kind::Array: return "weft::array_t<" + cpp_type(t.element()) + ">";
    case Type::Kind::Struct: return "ws_" + t.layout().name;
    case Type::Kind::Tuple: return "weft_tuple_" + hex16(fnv1a(t.code()));
    case Type::Kind::Void: return "void";
    case Type::Kind::String: return "const char *";
    }
    throw InternalError("cpp_type: unknown kind");
}

namespace {

class Emitter {
public:
    Emitter(const ir::Module &m, const ResolvedBuildOptions &options, Backend backend, const CodegenOptions &codegen)
        : m_(m), options_(options), backend_(backend), codegen_(codegen) {}

    GeneratedSource run() {
        if (!m_.lowered) throw InternalError("generate_cpp: module '" + m_.name + "' is not lowered");
        result_.file_name = m_.name + ".weft.cpp";
        py_file_ = m_.source_path.empty() ? m_.name + ".py" : m_.source_path;
        logical_file_ = m_.name + ".py";
        for (const ir::Function &f : m_.functions)
            if (f.is_kernel && f.abi == ir::EntryPointAbi::ExternalConstantParams && backend_ == Backend::Cpu)
                throw UserError(py_file_ + ":" + std::to_string(f.location.line) + ":" + std::to_string(f.location.column) +
                                ": kernel '" + f.name +
                                "' uses entry_point_abi='external_constant_params', which is not supported by the CPU backend");

        // Bodies first: they discover the tuple types the declarations must define.
        std::ostringstream bodies;
        for (const ir::Function &f : m_.functions) function(bodies, f);

        std::ostringstream out;
        out << "// Generated by weft " << version_string << " for module '" << m_.name << "'. Do not edit.\n";
        // The text names the kernel file only through this macro: the pipeline
        // defines it to the real path when it compiles, outside what is hashed,
        // so the same module read from any path has one hash.
        out << "#ifndef " << source_file_macro << "\n#define " << source_file_macro << " " << c_string(logical_file_)
            << "\n#endif\n";
        out << "#include <weft/rt/runtime.h>\n";
        lines_ = 5;
        std::string text = out.str();
        auto append = [&](const std::string &s) {
            text += s;
            for (char c : s)
                if (c == '\n') ++lines_;
        };
        const auto &pieces = backend_ == Backend::Cpu ? options_.cpu_preamble : options_.cuda_preamble;
        for (const SourcedValue &p : pieces) {
            // The marker names the piece's provenance: a compiler error in it names the plugin.
            append("#line 1 " + c_string(p.source + " preamble") + "\n");
            append(p.value);
            if (!p.value.empty() && p.value.back() != '\n') append("\n");
        }
        // After the preambles: NVRTC's automatic PCH covers the leading #includes
        // (weft's and a plugin's headers) only up to the first definition.
        append("#line " + std::to_string(lines_ + 2) + " " + c_string(result_.file_name) + "\n");
        append("WEFT_DEFINE_RUNTIME_GLOBALS\n");
        append("#define WEFT_GENERATED 1\n");
        append(backend_ == Backend::Cpu ? "#define WEFT_FN static inline\n" : "#define WEFT_FN static __device__ __forceinline__\n");
        append("template <typename A, typename B> struct weft_same_ { static constexpr bool value = false; };\n"
               "template <typename A> struct weft_same_<A, A> { static constexpr bool value = true; };\n");
        if (backend_ == Backend::Cuda)
            // NVRTC has no constant offsetof: a constexpr probe writes a field with
            // nonzero bytes and finds the first nonzero byte of the bit-cast object.
            append("template <unsigned long N> struct weft_bytes_ { unsigned char b[N]; };\n"
                   "template <typename F> __device__ constexpr F weft_marker_() {\n"
                   "    weft_bytes_<sizeof(F)> m{};\n"
                   "    for (unsigned long i = 0; i < sizeof(F); ++i) m.b[i] = 1;\n"
                   "    return __builtin_bit_cast(F, m);\n"
                   "}\n"
                   "template <typename T> __device__ constexpr long weft_first_set_byte_(const T &v) {\n"
                   "    const weft_bytes_<sizeof(T)> bytes = __builtin_bit_cast(weft_bytes_<sizeof(T)>, v);\n"
                   "    for (unsigned long i = 0; i < sizeof(T); ++i)\n"
                   "        if (bytes.b[i]) return long(i);\n"
                   "    return -1;\n"
                   "}\n");
        append(native_contracts());
        append(structs());
        append(tuples());
        append(constants());
        append(bodies.str());
        result_.text = std::move(text);
        return std::move(result_);
    }

private:
    const ir::Module &m_;
    const ResolvedBuildOptions &options_;
    Backend backend_;
    CodegenOptions codegen_;
    GeneratedSource result_;
    std::string py_file_;      // the file as given: codegen errors name it (they are not in the text)
    std::string logical_file_; // "<module>.py": what the text may name
    std::size_t lines_ = 0;
    std::map<std::string, Type> tuples_; // code -> type
    const ir::Function *f_ = nullptr;
    int loop_counter_ = 0;
    int probes_ = 0;
    std::optional<Type> external_params_;

    std::string type(const Type &t) {
        if (t.kind() == Type::Kind::Tuple) tuples_.emplace(t.code(), t);
        if (t.kind() == Type::Kind::Array) type(t.element());
        return cpp_type(t);
    }

    // --- declarations -----------------------------------------------------

    std::string native_contracts() {
        std::ostringstream o;
        for (const NativeTypeInfo &n : m_.references.native_types) {
            const std::string owner = n.owners.empty() ? "?" : n.owners.front();
            const std::string who = "plugin '" + owner + "': native type " + n.native_name;
            const std::string &T = n.native_name;
            o << "// ABI contract of " << T << " (plugin '" << owner << "')\n";
            o << "static_assert(__is_trivially_copyable(" << T << "), " << c_string(who + " must be trivially copyable") << ");\n";
            o << "static_assert(__is_standard_layout(" << T << "), " << c_string(who + " must be standard layout") << ");\n";
            o << "static_assert(sizeof(" << T << ") == " << n.size << ", "
              << c_string(who + ": the plugin declares size " + std::to_string(n.size) + ", the header disagrees") << ");\n";
            o << "static_assert(alignof(" << T << ") == " << n.alignment << ", "
              << c_string(who + ": the plugin declares alignment " + std::to_string(n.alignment) + ", the header disagrees")
              << ");\n";
            for (const DeclaredField &f : n.fields) {
                o << "static_assert(sizeof(((" << T << " *)0)->" << f.name << ") == " << f.size << ", "
                  << c_string(who + ", field '" + f.name + "': the plugin declares size " + std::to_string(f.size) +
                              ", the header disagrees")
                  << ");\n";
                const std::string offset_message = c_string(who + ", field '" + f.name + "': the plugin declares offset " +
                                                            std::to_string(f.offset) + ", the header disagrees");
                if (backend_ == Backend::Cpu) {
                    o << "static_assert(__builtin_offsetof(" << T << ", " << f.name << ") == " << f.offset << ", "
                      << offset_message << ");\n";
                } else {
                    const std::string fn = "weft_probe_" + std::to_string(probes_++) + "_";
                    o << "__device__ constexpr long " << fn << "() {\n    " << T << " v{};\n    v." << f.name
                      << " = weft_marker_<decltype(v." << f.name << ")>();\n    return weft_first_set_byte_(v);\n}\n";
                    o << "static_assert(" << fn << "() == " << f.offset << ", " << offset_message << ");\n";
                }
            }
            for (const ExposedField &f : n.exposed)
                o << "static_assert(weft_same_<decltype(((" << T << " *)0)->" << f.name << "), " << type(f.type) << ">::value, "
                  << c_string(who + ", field '" + f.name + "': the plugin declares type " + f.type.name() +
                              ", the header disagrees")
                  << ");\n";
        }
        return o.str();
    }

    std::string structs() {
        std::ostringstream o;
        for (const ir::Struct &s : m_.structs) {
            const StructLayout &l = s.type.layout();
            const std::string name = cpp_type(s.type);
            o << "struct " << name << " {\n";
            for (const auto &f : l.fields) o << "    " << type(f.type) << " m_" << f.name << ";\n";
            o << "};\n";
            const std::string who = "struct " + s.name + " (";
            const std::string at = ":" + std::to_string(s.location.line) + ")";
            o << "static_assert(sizeof(" << name << ") == " << l.size << " && alignof(" << name << ") == " << l.alignment
              << ", " << literal_with_file(who, at + ": C++ layout differs from weft's") << ");\n";
            for (const auto &f : l.fields)
                if (backend_ == Backend::Cpu)
                    o << "static_assert(__builtin_offsetof(" << name << ", m_" << f.name << ") == " << f.offset << ", "
                      << literal_with_file(who, at + ", field '" + f.name + "': offset differs from weft's") << ");\n";
        }
        return o.str();
    }

    std::string tuples() {
        std::ostringstream o;
        for (const auto &[code, t] : tuples_) {
            o << "struct " << cpp_type(t) << " {";
            for (std::size_t i = 0; i < t.elements().size(); ++i) o << " " << cpp_type(t.elements()[i]) << " e" << i << ";";
            o << " };\n";
        }
        return o.str();
    }

    std::string constant_value(const ir::ConstantValue &c) {
        const Type &t = c.type;
        if (t.is_scalar()) return scalar_value(c, 0, t.scalar_type());
        std::string out;
        if (t.kind() == Type::Kind::Native) {
            // Aggregate: the exposed fields are every declared field, in order (checked at registration).
            const NativeTypeInfo *n = nullptr;
            for (const NativeTypeInfo &x : m_.references.native_types)
                if (x.native_name == t.native_name()) n = &x;
            out = t.native_name() + "{";
            for (std::size_t i = 0; i < c.components.size(); ++i) {
                const Scalar s = n && i < n->exposed.size() && n->exposed[i].type.is_scalar() ? n->exposed[i].type.scalar_type()
                                                                                              : Scalar::Float32;
                out += (i ? ", " : "") + scalar_value(c, i, s);
            }
            return out + "}";
        }
        out = type(t) + "(";
        for (std::size_t i = 0; i < c.components.size(); ++i) out += (i ? ", " : "") + scalar_value(c, i, t.scalar_type());
        return out + ")";
    }

    std::string constants() {
        std::ostringstream o;
        for (const ir::Constant &c : m_.constants)
            o << "WEFT_FN " << type(c.value.type) << " c_" << c.name << "() { return " << constant_value(c.value) << "; }\n";
        return o.str();
    }

    // --- functions --------------------------------------------------------

    std::string local(int index) const {
        const ir::Variable &v = f_->locals[static_cast<std::size_t>(index)];
        return v.temporary ? "t" + v.name.substr(2) + "_" : "v_" + v.name;
    }

    std::string param(int index) const { return "p_" + f_->params[static_cast<std::size_t>(index)].name; }

    /// "before" WEFT_PY_FILE "after": one string literal once concatenated.
    std::string literal_with_file(const std::string &before, const std::string &after) const {
        return c_string(before) + " " + source_file_macro + " " + c_string(after);
    }

    std::string line_marker(const kernel::SourceLocation &at) const {
        return "#line " + std::to_string(at.line) + " " + source_file_macro + "\n";
    }

    void function(std::ostringstream &o, const ir::Function &f) {
        f_ = &f;
        loop_counter_ = 0;
        const std::string name = f.is_kernel ? f.mangled_name + "_body" : f.mangled_name;
        // Every function is specialized on whether the kernel's arrays are dense in
        // their last dimension (weft_contig_): then element addresses vectorize.
        o << "\ntemplate <bool weft_contig_>\nWEFT_FN " << (f.return_type ? type(*f.return_type) : "void") << " "
          << name << "(const weft::tid_t &weft_t_";
        for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << type(f.params[i].type) << " " << param(static_cast<int>(i));
        o << ") {\n";
        o << "    (void)weft_t_;\n";
        for (std::size_t i = 0; i < f.locals.size(); ++i)
            o << "    " << type(f.locals[i].type) << " " << local(static_cast<int>(i)) << "{};\n";
        block(o, f.body, 1);
        o << "}\n";
        if (f.is_kernel) entry(o, f);
    }

    /// Whether a type holds an array inside a struct or tuple (such arrays are
    /// not checked for density, so their kernel gets no dense specialization).
    static bool nests_array(const Type &t) {
        if (t.kind() == Type::Kind::Struct)
            for (const auto &f : t.layout().fields)
                if (f.type.kind() == Type::Kind::Array || nests_array(f.type)) return true;
        if (t.kind() == Type::Kind::Tuple)
            for (const Type &e : t.elements())
                if (e.kind() == Type::Kind::Array || nests_array(e)) return true;
        return false;
    }

    std::string where(const ir::Function &f) const {
        return py_file_ + ":" + std::to_string(f.location.line) + ":" + std::to_string(f.location.column) + ": kernel '" +
               f.name + "'";
    }

    /// entry_point_abi='external_constant_params': an entry with no parameters
    /// that reads its one struct parameter from the module's __constant__ `params`,
    /// for runtimes such as OptiX that launch it themselves.
    void external_entry(std::ostringstream &o, const ir::Function &f) {
        if (f.params.size() != 1 || f.params[0].type.kind() != Type::Kind::Struct)
            throw UserError(where(f) + " uses entry_point_abi='external_constant_params' and must take exactly one "
                                       "@wp.struct parameter (it takes " +
                            std::to_string(f.params.size()) + " parameter" + (f.params.size() == 1 ? "" : "s") +
                            (f.params.size() == 1 ? " of type " + f.params[0].type.name() : std::string()) + ")");
        if (f.uses_tid)
            throw UserError(where(f) + " uses entry_point_abi='external_constant_params' and cannot call tid(): the "
                                       "external runtime decides the launch");
        const Type &P = f.params[0].type;
        if (external_params_ && *external_params_ != P)
            throw UserError(where(f) + ": every external_constant_params kernel of a module shares one params type; this "
                                       "one takes " + P.name() + ", another takes " + external_params_->name());
        const std::string t = type(P);
        if (!external_params_) {
            external_params_ = P;
            o << "extern \"C\" { __constant__ __align__(alignof(" << t << ")) unsigned char params[sizeof(" << t << ")]; }\n";
        }
        KernelEntry k;
        k.name = f.name;
        k.symbol = f.entry_name.empty() ? f.mangled_name : f.entry_name;
        k.abi = f.abi;
        k.params.emplace_back(f.params[0].name, P);
        o << "extern \"C\" __global__ void " << k.symbol << "() {\n"
          << "    const " << t << " a0_ = *reinterpret_cast<const " << t << " *>(params);\n"
          << "    const weft::tid_t weft_t_{};\n"
          << "    " << f.mangled_name << "_body<false>(weft_t_, a0_);\n}\n";
        result_.kernels.push_back(std::move(k));
    }

    void cuda_entry(std::ostringstream &o, const ir::Function &f) {
        if (f.abi == ir::EntryPointAbi::ExternalConstantParams) return external_entry(o, f);
        KernelEntry k;
        k.name = f.name;
        k.symbol = f.mangled_name + "_cuda";
        k.tid_dims = f.tid_dims;
        k.abi = f.abi;
        std::string decl, pass, dense = "true";
        bool specializable = true;
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            k.params.emplace_back(f.params[i].name, f.params[i].type);
            const std::string t = type(f.params[i].type);
            decl += ", const " + t + " a" + std::to_string(i) + "_";
            pass += ", a" + std::to_string(i) + "_";
            if (f.params[i].type.kind() == Type::Kind::Array) dense += " && weft::innermost_dense(a" + std::to_string(i) + "_)";
            if (nests_array(f.params[i].type)) specializable = false;
        }
        o << "template <bool weft_contig_>\nWEFT_FN void " << f.mangled_name
          << "_run(const weft::launch_t &weft_launch_, long long weft_idx_" << decl << ") {\n"
          << "    weft::tid_t weft_t_{};\n    weft_t_.idx = weft_idx_;\n    long long weft_rest_ = weft_idx_;\n"
          << "    for (int k = weft_launch_.ndim - 1; k >= 0; --k) {\n"
          << "        weft_t_.c[k] = weft::int32(weft_rest_ % weft_launch_.shape[k]);\n"
          << "        weft_rest_ /= weft_launch_.shape[k];\n    }\n"
          << "    " << f.mangled_name << "_body<weft_contig_>(weft_t_" << pass << ");\n}\n";
        // A grid-stride loop over the launch: any grid covers any dimension.
        o << "extern \"C\" __global__ void " << k.symbol << "(const weft::launch_t weft_launch_" << decl << ") {\n"
          << "    const bool weft_dense_ = " << (specializable ? dense : std::string("false")) << ";\n"
          << "    for (long long weft_idx_ = (long long)blockIdx.x * blockDim.x + threadIdx.x; weft_idx_ < weft_launch_.size;\n"
          << "         weft_idx_ += (long long)blockDim.x * gridDim.x) {\n"
          << "        if (weft_dense_) " << f.mangled_name << "_run<true>(weft_launch_, weft_idx_" << pass << ");\n"
          << "        else " << f.mangled_name << "_run<false>(weft_launch_, weft_idx_" << pass << ");\n"
          << "    }\n}\n";
        result_.kernels.push_back(std::move(k));
    }

    void entry(std::ostringstream &o, const ir::Function &f) {
        if (backend_ == Backend::Cuda) return cuda_entry(o, f);
        KernelEntry k;
        k.name = f.name;
        k.symbol = f.mangled_name + "_cpu";
        k.tid_dims = f.tid_dims;
        k.abi = f.abi;
        for (const ir::Variable &p : f.params) k.params.emplace_back(p.name, p.type);
        std::string params_decl, params_pass, dense = "true";
        bool specializable = true;
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            const std::string t = type(f.params[i].type);
            params_decl += ", const " + t + " a" + std::to_string(i) + "_"; // by value: no alias with stores
            params_pass += ", a" + std::to_string(i) + "_";
            if (f.params[i].type.kind() == Type::Kind::Array) dense += " && weft::innermost_dense(a" + std::to_string(i) + "_)";
            if (nests_array(f.params[i].type)) specializable = false;
        }
        // Rows of the launch grid: the last dimension is a counted inner loop
        // (vectorizable); the outer components are computed once per row.
        o << "template <bool weft_contig_>\nstatic void " << f.mangled_name
          << "_run(const weft::launch_t &weft_launch_, long long weft_begin_, long long weft_end_" << params_decl << ") {\n"
          << "    const int weft_n_ = weft_launch_.ndim;\n"
          << "    const long long weft_inner_ = weft_launch_.shape[weft_n_ - 1];\n"
          << "    weft::tid_t weft_t_{};\n"
          << "    for (long long weft_idx_ = weft_begin_; weft_idx_ < weft_end_;) {\n"
          << "        const long long weft_row_ = weft_idx_ / weft_inner_;\n"
          << "        long long weft_rest_ = weft_row_;\n"
          << "        for (int k = weft_n_ - 2; k >= 0; --k) {\n"
          << "            weft_t_.c[k] = weft::int32(weft_rest_ % weft_launch_.shape[k]);\n"
          << "            weft_rest_ /= weft_launch_.shape[k];\n"
          << "        }\n"
          << "        const long long weft_base_ = weft_row_ * weft_inner_;\n"
          << "        const long long weft_stop_ = weft_base_ + weft_inner_ < weft_end_ ? weft_base_ + weft_inner_ : weft_end_;\n"
          << "        const int weft_j0_ = int(weft_idx_ - weft_base_), weft_j1_ = int(weft_stop_ - weft_base_);\n"
          << "        for (int weft_j_ = weft_j0_; weft_j_ < weft_j1_; ++weft_j_) {\n"
          << "            weft_t_.c[weft_n_ - 1] = weft_j_;\n"
          << "            weft_t_.idx = weft_base_ + weft_j_;\n"
          << "            " << f.mangled_name << "_body<weft_contig_>(weft_t_" << params_pass << ");\n"
          << "        }\n"
          << "        weft_idx_ = weft_stop_;\n"
          << "    }\n"
          << "}\n";
        o << "extern \"C\" void " << k.symbol
          << "(const weft::launch_t *weft_launch_, void *const *weft_args_, long long weft_begin_, long long weft_end_) {\n";
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            const std::string t = type(f.params[i].type);
            o << "    const " << t << " a" << i << "_ = *static_cast<const " << t << " *>(weft_args_[" << i << "]);\n";
        }
        if (specializable && dense != "true")
            o << "    if (" << dense << ")\n        " << f.mangled_name << "_run<true>(*weft_launch_, weft_begin_, weft_end_"
              << params_pass << ");\n    else\n    ";
        o << "    " << f.mangled_name << "_run<false>(*weft_launch_, weft_begin_, weft_end_" << params_pass << ");\n}\n";
        result_.kernels.push_back(std::move(k));
    }

    std::string indent(int depth) const { return std::string(static_cast<std::size_t>(depth) * 4, ' '); }

    void block(std::ostringstream &o, const std::vector<ir::StmtPtr> &body, int depth) {
        for (const ir::StmtPtr &s : body) statement(o, *s, depth);
    }

    void statement(std::ostringstream &o, const Stmt &s, int depth) {
        o << line_marker(s.location);
        const std::string in = indent(depth);
        switch (s.kind) {
        case S::Declare:
        case S::Assign:
            if (s.value->kind == K::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid)
                o << in << local(s.index) << " = weft::int32(weft_t_.idx);\n";
            else
                o << in << local(s.index) << " = " << expr(*s.value) << ";\n";
            return;
        case S::Store: o << in << lvalue(*s.target) << " = " << expr(*s.value) << ";\n"; return;
        case S::Unpack: {
            if (s.value->kind == K::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid) {
                // Row-major, as Warp: the last index varies fastest (computed by the entry's loop).
                for (std::size_t k = 0; k < s.targets.size(); ++k)
                    o << in << local(s.targets[k]) << " = weft_t_.c[" << k << "];\n";
                return;
            }
            o << in << "{\n" << in << "    const auto weft_tuple_ = " << expr(*s.value) << ";\n";
            for (std::size_t k = 0; k < s.targets.size(); ++k)
                o << in << "    " << local(s.targets[k]) << " = weft_tuple_.e" << k << ";\n";
            o << in << "}\n";
            return;
        }
        case S::Eval: o << in << expr(*s.value) << ";\n"; return;
        case S::If:
            o << in << "if (" << expr(*s.cond) << ") {\n";
            block(o, s.body, depth + 1);
            if (!s.orelse.empty()) {
                o << in << "} else {\n";
                block(o, s.orelse, depth + 1);
            }
            o << in << "}\n";
            return;
        case S::For: {
            // Python's range: the loop variable is assigned from a hidden counter,
            // so assigning it in the body does not change the iteration.
            // A 64-bit counter: range(2147483640, 2147483647, 5) and int8 bounds near
            // their limits must not overflow while stepping past the end.
            const std::string it = "weft_it" + std::to_string(loop_counter_++) + "_";
            const std::string t = type(f_->locals[static_cast<std::size_t>(s.index)].type);
            const std::string start = expr(*s.args[0]), stop = "(long long)(" + expr(*s.args[1]) + ")",
                              step = "(long long)(" + expr(*s.args[2]) + ")";
            o << in << "for (long long " << it << " = " << start << "; (" << step << " > 0) ? (" << it << " < " << stop
              << ") : (" << it << " > " << stop << "); " << it << " += " << step << ") {\n";
            o << in << "    " << local(s.index) << " = static_cast<" << t << ">(" << it << ");\n";
            block(o, s.body, depth + 1);
            o << in << "}\n";
            return;
        }
        case S::While:
            o << in << "while (" << expr(*s.cond) << ") {\n";
            block(o, s.body, depth + 1);
            o << in << "}\n";
            return;
        case S::Break: o << in << "break;\n"; return;
        case S::Continue: o << in << "continue;\n"; return;
        case S::Return: o << in << (s.value ? "return " + expr(*s.value) : std::string("return")) << ";\n"; return;
        case S::AugAssign: throw InternalError("generate_cpp: an augmented assignment survived lowering");
        }
    }

    std::string args(const Expr &e, std::size_t from = 0) {
        std::string out;
        for (std::size_t i = from; i < e.args.size(); ++i) out += (i > from ? ", " : "") + expr(*e.args[i]);
        return out;
    }

    std::string component(const Expr &e) {
        // A field of a struct or native type, or a vector/quaternion component.
        const Type &base = e.args[0]->type;
        if (base.kind() == Type::Kind::Struct) return ".m_" + e.name;
        if (base.kind() == Type::Kind::Native) return "." + e.name;
        return ".c[" + std::to_string(e.index) + "]";
    }

    /// a[i, ...]: unchecked, or in debug mode checked against the shape with the access's position.
    std::string array_element(const Expr &e) {
        if (!codegen_.bounds_checks) return "weft::index_c<weft_contig_>(" + expr(*e.args[0]) + ", " + args(e, 1) + ")";
        return "weft::index_checked<weft_contig_>(" + expr(*e.args[0]) + ", " + c_string(f_->name) + ", " +
               c_string(logical_file_) + ", " + std::to_string(e.location.line) + ", " + args(e, 1) + ")";
    }

    std::string lvalue(const Expr &e) {
        switch (e.kind) {
        case K::Local: return local(e.index);
        case K::Param: return param(e.index);
        case K::Field: return lvalue(*e.args[0]) + component(e);
        case K::Index:
            if (e.args[0]->type.kind() == Type::Kind::Array) return array_element(e);
            if (e.args.size() == 3) return lvalue(*e.args[0]) + ".c[" + expr(*e.args[1]) + "].c[" + expr(*e.args[2]) + "]";
            return lvalue(*e.args[0]) + ".c[" + expr(*e.args[1]) + "]";
        default: throw InternalError("generate_cpp: not an lvalue");
        }
    }

    std::string expr(const Expr &e) {
        switch (e.kind) {
        case K::Literal: return constant_value(*e.value);
        case K::String: return c_string(e.name);
        case K::Local: return local(e.index);
        case K::Param: return param(e.index);
        case K::Constant: return "c_" + e.name + "()";
        case K::Builtin: return e.overload->native_namespace + e.overload->native_function + "(" + args(e) + ")";
        case K::Call: return e.name + "<weft_contig_>(weft_t_" + (e.args.empty() ? "" : ", " + args(e)) + ")";
        case K::Construct: {
            const Type &t = e.type;
            if (t.kind() == Type::Kind::Native || t.kind() == Type::Kind::Struct || t.kind() == Type::Kind::Tuple)
                return type(t) + "{" + args(e) + "}";
            return type(t) + "(" + args(e) + ")";
        }
        case K::Cast: return "static_cast<" + type(e.type) + ">(" + expr(*e.args[0]) + ")";
        case K::Field: return expr(*e.args[0]) + component(e);
        case K::Index:
            if (e.args[0]->type.kind() == Type::Kind::Array) return array_element(e);
            if (e.args.size() == 3) return expr(*e.args[0]) + ".c[" + expr(*e.args[1]) + "].c[" + expr(*e.args[2]) + "]";
            return expr(*e.args[0]) + ".c[" + expr(*e.args[1]) + "]";
        case K::Shape: return "weft::int32(" + expr(*e.args[0]) + ".shape[" + std::to_string(e.index) + "])";
        case K::Not: return "!(" + expr(*e.args[0]) + ")";
        case K::Intrinsic: return intrinsic(e);
        case K::Select:
        case K::And:
        case K::Or:
        case K::Compare: throw InternalError("generate_cpp: a short-circuit expression survived lowering");
        }
        throw InternalError("generate_cpp: unknown expression kind");
    }

    std::string intrinsic(const Expr &e) {
        using I = ir::Intrinsic;
        // Run-time messages name the logical file: an artifact from the cache
        // may have been compiled from a copy of the module at another path.
        const std::string where = c_string(f_->name) + ", " + c_string(logical_file_) + ", " + std::to_string(e.location.line);
        switch (e.intrinsic) {
        case I::Tid: return "weft::int32(weft_t_.idx)";
        case I::Len: return "weft::len(" + args(e) + ")";
        case I::Select: return "weft::select(" + args(e) + ")";
        case I::Where: return "weft::where(" + args(e) + ")";
        case I::AtomicAdd: return "weft::atomic_add(" + args(e) + ")";
        case I::AtomicSub: return "weft::atomic_sub(" + args(e) + ")";
        case I::AtomicMin: return "weft::atomic_min(" + args(e) + ")";
        case I::AtomicMax: return "weft::atomic_max(" + args(e) + ")";
        case I::Print: return "weft::print(" + args(e) + ")";
        case I::ExpectEq: return "weft::expect_eq(" + args(e) + ", " + where + ")";
        case I::ExpectNeq: return "weft::expect_neq(" + args(e) + ", " + where + ")";
        case I::ExpectNear:
            return "weft::expect_near(" + args(e) + (e.args.size() == 2 ? ", 1e-6f" : "") + ", " + where + ")";
        case I::Identity:
            return "weft::identity<" + std::to_string(e.type.rows()) + ", " + cpp_type(Type::scalar(e.type.scalar_type())) +
                   ">()";
        }
        throw InternalError("generate_cpp: unknown intrinsic");
    }
};

} // namespace

GeneratedSource generate_cpp(const kernel::ir::Module &module, const ResolvedBuildOptions &options, Backend backend,
                             const CodegenOptions &codegen) {
    return Emitter(module, options, backend, codegen).run();
}

} // namespace weft::codegen
