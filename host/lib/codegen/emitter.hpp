// The C++ emitter's class, shared by the forward code (cpp_emitter.cpp) and
// the reverse-mode code (adjoint_emitter.cpp). Internal to codegen.
#pragma once

#include "weft/codegen/cpp_emitter.hpp"

#include "deferred_atomics.hpp"
#include "disjoint_rows.hpp"
#include "row_guard.hpp"

#include "weft/support/error.hpp"
#include "weft/support/version.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace weft::codegen::detail {

using kernel::ir::Expr;
using kernel::ir::Stmt;
namespace ir = kernel::ir;
using K = Expr::Kind;
using S = Stmt::Kind;

inline std::uint64_t fnv1a(const std::string &s) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

inline std::string hex16(std::uint64_t v) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
    return buf;
}

inline std::string c_string(const std::string &s) { return c_string_literal(s); }

inline std::string float_text(double v, Scalar s) {
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

inline std::string int_text(ir::IntValue v, Scalar s) {
    // INT64_MIN has no literal: spell it as an expression.
    if (s == Scalar::Int64 && v == -(static_cast<ir::IntValue>(1) << 63)) return "(-9223372036854775807LL - 1)";
    std::string t = ir::to_string(v);
    if (s == Scalar::UInt64) return t + "ull";
    if (s == Scalar::Int64) return t + "LL";
    if (s == Scalar::UInt32) return t + "u";
    return t;
}

inline std::string scalar_value(const ir::ConstantValue &c, std::size_t i, Scalar s) {
    const Type t = Type::scalar(s);
    if (t.is_bool()) return c.int_components.size() > i && c.int_components[i] ? "true" : "false";
    if (t.is_float()) {
        const std::string f = float_text(c.components[i], s == Scalar::Float64 ? Scalar::Float64 : Scalar::Float32);
        return is_half_precision(s) ? "weft::" + std::string(scalar_name(s)) + "(" + f + ")" : f;
    }
    return "weft::" + std::string(scalar_name(s)) + "(" + int_text(c.int_components[i], s) + ")";
}

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

        // A CPU preamble's code would be defined again by every separately
        // compiled strided copy, as by every part (below): such modules compile whole.
        split_strided_ = backend_ == Backend::Cpu && options_.cpu_preamble.empty();
        // Bodies first: they discover the tuple types the declarations must define.
        std::ostringstream bodies;
        std::vector<std::string> kernels;
        emit_functions(bodies, kernels);
        std::vector<std::size_t> kernel_bytes;
        std::size_t body_bytes = static_cast<std::size_t>(bodies.tellp());
        for (std::size_t k = 0; k < kernels.size(); ++k) {
            // Parts are sized by what a load compiles: not the strided copies' entries.
            kernel_bytes.push_back(kernels[k].size() - strided_entry_bytes_[k]);
            body_bytes += kernels[k].size();
        }
        check_size(body_bytes);
        // CUDA compiles a module as one unit: NVRTC's time is not in its front
        // end. Nor is a module split whose plugins put code in the CPU
        // preamble: every part would define it again (a non-inline function
        // twice, a static variable once per part).
        const bool splittable = backend_ == Backend::Cpu && options_.cpu_preamble.empty();
        const std::vector<int> part = splittable ? assign_parts(kernel_bytes) : std::vector<int>(kernels.size(), 0);
        result_.parts = std::max(1, part.empty() ? 1 : *std::max_element(part.begin(), part.end()));

        std::ostringstream out;
        out << "// Generated by weft " << version_string << " for module '" << m_.name << "'. Do not edit.\n";
        // The text names the kernel file only through this macro: the pipeline
        // defines it to the real path when it compiles, outside what is hashed,
        // so the same module read from any path has one hash.
        out << "#ifndef " << source_file_macro << "\n#define " << source_file_macro << " " << c_string(logical_file_)
            << "\n#endif\n";
        out << "#include <weft/rt/runtime.h>\n";
        if (codegen_.adjoint) out << "#include <weft/rt/adjoint.h>\n";
        lines_ = codegen_.adjoint ? 6 : 5;
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
            // A preamble macro named like what the generated code uses turns that
            // code into errors that blame it: say whose preamble it is, here, under its name.
            // Undefined after the error, so that it is the only one.
            for (const char *name : {"weft", "WEFT_FN", "WEFT_GENERATED", "weft_same_"})
                append(std::string("#ifdef ") + name + "\n#error this preamble defines the macro " + name +
                       ", a name the generated code uses\n#undef " + name + "\n#endif\n");
        }
        // After the preambles: NVRTC's automatic PCH covers the leading #includes
        // (weft's and a plugin's headers) only up to the first definition.
        append("#line " + std::to_string(lines_ + 2) + " " + c_string(result_.file_name) + "\n");
        // A strided copy compiled alone links against the module's object: it
        // references the globals, never defines them.
        const std::string strided = strided_macro;
        if (split_strided_)
            append("#ifndef " + strided + "\n#define " + strided + " 0\n#endif\n");
        const std::string not_a_strided_copy = split_strided_ ? strided + " <= 0" : "1";
        if (result_.parts > 1)
            // Compiled without WEFT_PART, the text is the whole module; part 1
            // defines the module's globals, which the other parts reference.
            append("#ifndef WEFT_PART\n#define WEFT_PART 0\n#endif\n#if WEFT_PART <= 1 && " + not_a_strided_copy +
                   "\nWEFT_DEFINE_RUNTIME_GLOBALS\n#endif\n");
        else if (split_strided_)
            append("#if " + not_a_strided_copy + "\nWEFT_DEFINE_RUNTIME_GLOBALS\n#endif\n");
        else
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
        if (codegen_.native_signature_checks) append(native_signature_checks());
        append(structs());
        if (codegen_.adjoint) append(struct_adjoint_helpers());
        append(tuples());
        append(constants());
        append(bodies.str());
        for (std::size_t k = 0; k < kernels.size(); ++k) {
            // Kernel k's strided copy (WEFT_STRIDED == k + 1) holds it alone.
            const std::string copy = strided + " == " + std::to_string(k + 1);
            if (part[k] == 0 && !split_strided_) {
                append(kernels[k]);
                continue;
            }
            if (part[k] == 0)
                append("#if " + strided + " <= 0 || " + copy + "\n");
            else if (split_strided_)
                append("#if " + strided + " > 0 ? " + copy + " : (WEFT_PART == 0 || WEFT_PART == " + std::to_string(part[k]) +
                       ")\n");
            else
                append("#if WEFT_PART == 0 || WEFT_PART == " + std::to_string(part[k]) + "\n");
            append(kernels[k]);
            append("#endif\n");
        }
        // Defined once, where the runtime globals are.
        const std::string once = result_.parts > 1 ? "WEFT_PART <= 1 && " + not_a_strided_copy : not_a_strided_copy;
        append("#if " + once + "\nextern \"C\" " + std::string(backend_ == Backend::Cuda ? "__device__ " : "") +
               "const char " + kernel_signatures_symbol + "[65] = \"" + kernel_signature_digest(result_.kernels) +
               "\";\n#endif\n");
        check_size(text.size());
        result_.text = std::move(text);
        return std::move(result_);
    }

    /// Generated text grows with the module, never without bound: a module
    /// that still produced gigabytes (20,000 nested conditions once wrote
    /// 3.2 GB) is an error naming it rather than a compile that runs out of memory.
    static constexpr std::size_t max_generated_bytes = std::size_t(256) << 20;
    void check_size(std::size_t bytes) const {
        if (bytes > max_generated_bytes)
            throw UserError(py_file_ + ": module '" + m_.name + "' generates " + std::to_string(bytes >> 20) +
                            " MiB of C++, more than the " + std::to_string(max_generated_bytes >> 20) +
                            " MiB a module may; split it into smaller modules or functions");
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
    std::vector<bool> nonneg_; // per local of f_: never negative (find_nonneg_locals)
    int loop_counter_ = 0;
    int probes_ = 0;
    std::optional<Type> external_params_;
    // Reverse mode (adjoint_emitter.cpp).
    bool split_strided_ = false; // CPU kernels' strided copies compile apart (strided_macro)
    int section_ = 0;            // the kernel being emitted: its WEFT_STRIDED value (1-based)
    std::vector<std::size_t> strided_entry_bytes_; // per kernel section: text only a strided copy compiles
    bool replay_ = false; // emitting a replay: array stores, atomics and prints are skipped
    std::vector<int> deferred_; // the kernel being emitted: parameters whose atomic adds are deferred (deferred_atomics.hpp)
    std::vector<bool> varying_;  // ... its locals that may change along a row (detail::varying_locals)
    std::vector<int> scattered_; // ... the deferred parameters with a scattered atomic (detail::scattered)
    std::vector<int> private_gradients_; // the backward kernel being emitted: KernelEntry::private_gradients, by parameter

    /// Whether `f`, or a function it calls, has a loop (KernelEntry::loops).
    bool has_loop(const ir::Function &f, std::vector<bool> &seen) const {
        bool found = false;
        ir::for_each_stmt(f.body, [&](const ir::Stmt &s) {
            found = found || s.kind == ir::Stmt::Kind::For || s.kind == ir::Stmt::Kind::While;
        });
        // for_each_expr on a statement covers the statements it nests: the top level covers all.
        for (const ir::StmtPtr &s : f.body)
            ir::for_each_expr(*s, [&](const ir::Expr &e) {
                if (found || e.kind != K::Call || e.index < 0 || static_cast<std::size_t>(e.index) >= m_.functions.size())
                    return;
                if (seen[static_cast<std::size_t>(e.index)]) return;
                seen[static_cast<std::size_t>(e.index)] = true;
                found = has_loop(m_.functions[static_cast<std::size_t>(e.index)], seen);
            });
        return found;
    }
    bool has_loop(const ir::Function &f) const {
        std::vector<bool> seen(m_.functions.size(), false);
        return has_loop(f, seen);
    }

public:
    struct AdNode; // a statement of the adjoint's structured form

private:
    struct AdState;
    struct Checkpoint;
    AdState *ad_ = nullptr;
    std::optional<Checkpoint> checkpoint(const Stmt &loop) const; // analyze_checkpoint, once per loop
    std::optional<Checkpoint> analyze_checkpoint(const Stmt &loop) const;
    std::string struct_adjoint_helpers();
    std::string adj_struct_path(const Expr &e) const;
    std::string native_field(const std::string &value, const ExposedField &f, bool is_const);
    const NativeTypeInfo &native_info(const Type &t) const;
    std::string grad_element(const std::string &adj_array, const Expr &array, const Expr &access, std::size_t end);
    std::string gradient_data(const std::string &adj_array, const Expr &array);
    void adjoint_function(std::ostringstream &o, const ir::Function &f);
    std::vector<AdNode> ad_build(const std::vector<ir::StmtPtr> &stmts, std::size_t from, bool in_loop);
    void ad_forward(std::ostringstream &o, const std::vector<AdNode> &nodes, int depth);
    void ad_reverse(std::ostringstream &o, const std::vector<AdNode> &nodes, int depth);
    void ad_forward_plain(std::ostringstream &o, const Stmt &s, int depth);
    void ad_reverse_plain(std::ostringstream &o, const Stmt &s, int depth);
    void ad_value(std::ostringstream &o, const Expr &e, const std::string &adj_result, int depth);
    std::string adj_ref(const Expr &atom) const;
    std::string adj_local(int index) const { return "adj_" + local(index); }
    bool saved(int local) const;
    std::string adj_args(std::ostringstream &o, const Expr &e, const std::string &in, std::size_t from = 0);
    /// Whether e's value depends on a differentiable input of the function
    /// being differentiated (a float parameter, a float array element, a local
    /// assigned from either): a gradient flowing into it has somewhere to go.
    bool depends_on_input(const Expr &e) const;
    /// Refuses to drop a gradient silently: a native value that depends on a
    /// differentiable input has no adjoint to take it (UserError at `e`).
    void refuse_native_adjoint(const Expr &e, const Expr &native, const std::string &what) const;
    std::string adj_lvalue(const Expr &path);
    std::string adj_mirror(const Expr &array_value);

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

    /// Each external builtin's native function against its registered type:
    /// the same parameter and result types, where integers of one size and
    /// signedness count as one (uint64_t may be unsigned long, weft::uint64
    /// unsigned long long: the same ABI).
    std::string native_signature_checks() {
        std::ostringstream o;
        o << "template <typename A, typename B> struct weft_abi_same_ {\n"
             "    static constexpr bool value = weft_same_<A, B>::value ||\n"
             "        (weft::rt::is_int<A> && weft::rt::is_int<B> && sizeof(A) == sizeof(B) &&\n"
             "         weft::rt::is_signed_int<A> == weft::rt::is_signed_int<B>);\n"
             "};\n"
             "template <typename ER, typename... EA> struct weft_signature_ {\n"
             "    template <typename R, typename... A> WEFT_RT_HD static constexpr bool of(R (*)(A...)) {\n"
             "        if constexpr (sizeof...(A) != sizeof...(EA)) return false;\n"
             "        else return weft_abi_same_<R, ER>::value && (true && ... && weft_abi_same_<A, EA>::value);\n"
             "    }\n"
             "};\n";
        for (const BuiltinOverload &b : m_.references.builtins) {
            if (!b.external || b.generic()) continue;
            std::string params;
            for (const Parameter &p : b.params) params += ", " + type(p.type);
            const std::string result = b.result ? type(*b.result) : "void";
            const std::string owner = b.owners.empty() ? "?" : b.owners.front();
            o << "static_assert(weft_signature_<" << result << params << ">::of(static_cast<decltype(&" << b.native_name
              << ")>(nullptr)), "
              << c_string("plugin '" + owner + "': builtin " + b.signature() + ": its native function " + b.native_name +
                          " must be exactly " + result + "(" + (params.empty() ? "" : params.substr(2)) +
                          ") (parameters by value, no conversions: a registered int64 needs a 64-bit C++ integer)")
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
            o << "WEFT_FN void weft_store_(" << name << " &d, const " << name << " &s) {";
            for (const auto &f : l.fields) o << " " << element_store("d.m_" + f.name, "s.m_" + f.name, f.type) << ";";
            o << " }\n";
        }
        return o.str();
    }

    /// `dst = src` for a store into memory, field by field and component by
    /// component: an aggregate copy becomes a memcpy whose wide accesses keep
    /// the loop vectorizer from the launch loop ("unsafe dependent memory
    /// operations").
    static std::string element_store(const std::string &dst, const std::string &src, const Type &t) {
        switch (t.kind()) {
        case Type::Kind::Vector:
        case Type::Kind::Matrix:
        case Type::Kind::Quaternion:
        case Type::Kind::Transform: return "weft::rt::store(" + dst + ", " + src + ")";
        case Type::Kind::Struct: return "weft_store_(" + dst + ", " + src + ")";
        default: return dst + " = " + src;
        }
    }

    std::string tuples() {
        std::ostringstream o;
        for (const auto &[code, t] : tuples_) {
            o << "struct " << cpp_type(t) << " {";
            for (std::size_t i = 0; i < t.elements().size(); ++i) o << " " << cpp_type(t.elements()[i]) << " e" << i << ";";
            o << " };\n";
            if (codegen_.adjoint) {
                o << "WEFT_FN void adj_acc(" << cpp_type(t) << " &a, const " << cpp_type(t) << " &v) {";
                for (std::size_t i = 0; i < t.elements().size(); ++i)
                    if (t.elements()[i].kind() != Type::Kind::Native || t.elements()[i].is_differentiable_native())
                        o << " adj_acc(a.e" << i << ", v.e" << i << ");";
                o << " (void)a; (void)v; }\n";
            }
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
            o << "WEFT_FN " << type(c.value.type) << " " << constant_function(c.name) << "() { return "
              << constant_value(c.value) << "; }\n";
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

    /// Literals and constants of an integer type that are >= 0.
    static bool nonneg_literal(const Expr &e) {
        return (e.kind == K::Literal || e.kind == K::Constant) && e.value && e.type.is_integer() &&
               !e.value->int_components.empty() && e.value->int_components[0] >= 0;
    }

    /// Which locals of `f` are never negative: every assignment gives a tid()
    /// value, a non-negative literal, a sum of never-negative values, x - k for
    /// a local x known to be >= k (`minimums`: a row guard's body), or the
    /// counter of a range that starts at a non-negative literal and steps up by
    /// one. Their array indices skip Warp's negative-index wrap, which would
    /// stand between an element access and the vectorizer (the address is no
    /// longer affine in the counter). Sums assume no int32 overflow: an index
    /// that overflowed is outside the array with or without the wrap.
    void find_nonneg_locals(const ir::Function &f, const std::vector<std::pair<int, long long>> &minimums = {}) {
        nonneg_.assign(f.locals.size(), true); // locals start at {} == 0; refined to a fixed point
        const auto known = [&](const Expr &x) {
            return nonneg_literal(x) || (x.kind == K::Local && nonneg_[static_cast<std::size_t>(x.index)]);
        };
        const auto nonneg_value = [&](const Expr &v) {
            if (v.kind == K::Intrinsic && v.intrinsic == ir::Intrinsic::Tid) return true;
            if (known(v)) return true;
            // int32/int64 only: a sum of small types (int8 127 + 1) overflows within an array's range.
            if (v.kind != K::Builtin || !v.overload || v.overload->external || v.args.size() != 2 ||
                (v.type != Type::scalar(Scalar::Int32) && v.type != Type::scalar(Scalar::Int64)))
                return false;
            if (v.overload->native_name == "weft::add") return known(*v.args[0]) && known(*v.args[1]);
            if (v.overload->native_name == "weft::sub") {
                const Expr &a = *v.args[0], &b = *v.args[1];
                if (a.kind != K::Local || !nonneg_literal(b)) return false;
                for (const auto &[local, least] : minimums)
                    if (local == a.index && b.value->int_components[0] <= least) return true;
            }
            return false;
        };
        bool changed = true;
        const auto drop = [&](int local) {
            const std::size_t k = static_cast<std::size_t>(local);
            if (!nonneg_[k]) return;
            nonneg_[k] = false;
            changed = true;
        };
        const auto visit = [&](const auto &self, const std::vector<ir::StmtPtr> &body) -> void {
            for (const ir::StmtPtr &sp : body) {
                const Stmt &s = *sp;
                const bool tid = s.value && s.value->kind == K::Intrinsic && s.value->intrinsic == ir::Intrinsic::Tid;
                switch (s.kind) {
                case S::Declare:
                case S::Assign:
                    if (!nonneg_value(*s.value)) drop(s.index);
                    break;
                case S::Unpack:
                    if (!tid)
                        for (int t : s.targets) drop(t);
                    break;
                case S::For: {
                    const Expr &step = *s.args[2];
                    const bool up_by_one = step.kind == K::Literal && step.value && !step.value->int_components.empty() &&
                                           step.value->int_components[0] == 1;
                    if (!nonneg_literal(*s.args[0]) || !up_by_one) drop(s.index);
                    break;
                }
                default: break;
                }
                self(self, s.body);
                self(self, s.orelse);
            }
        };
        while (changed) {
            changed = false;
            visit(visit, f.body);
        }
    }

    /// " + " / " - " when `s` assigns a never-negative int32/int64 local (an
    /// index: find_nonneg_locals) the sum or difference of two values: C++'s
    /// own operator, whose overflow is undefined, instead of weft's wrapping
    /// add. The analysis already assumes such sums do not overflow; with
    /// that, j + 1 stays affine in the loop counter (no sign extension of a
    /// wrapped 32-bit value per element), which keeps stencils vectorized
    /// with their indices in registers.
    const char *index_arithmetic(const Stmt &s) const {
        const Expr &v = *s.value;
        if (v.kind != K::Builtin || !v.overload || v.overload->external || v.args.size() != 2) return nullptr;
        if (v.type != Type::scalar(Scalar::Int32) && v.type != Type::scalar(Scalar::Int64)) return nullptr;
        if (static_cast<std::size_t>(s.index) >= nonneg_.size() || !nonneg_[static_cast<std::size_t>(s.index)])
            return nullptr;
        if (v.overload->native_name == "weft::add") return " + ";
        if (v.overload->native_name == "weft::sub") return " - ";
        return nullptr;
    }

    /// Whether an index is known not to be negative (find_nonneg_locals).
    bool nonneg_index(const Expr &x) const {
        return nonneg_literal(x) ||
               (x.kind == K::Local && static_cast<std::size_t>(x.index) < nonneg_.size() &&
                nonneg_[static_cast<std::size_t>(x.index)]);
    }

    void function(std::ostringstream &o, const ir::Function &f) {
        f_ = &f;
        find_nonneg_locals(f);
        loop_counter_ = 0;
        const std::string name = f.is_kernel ? f.mangled_name + "_body" : f.mangled_name + (replay_ ? "_rep" : "");
        deferred_.clear();
        private_gradients_.clear();
        if (f.is_kernel && backend_ == Backend::Cpu && !codegen_.adjoint && !codegen_.bounds_checks && !replay_)
            deferred_ = detail::deferred_atomic_params(m_, f);
        scattered_.clear();
        if (!deferred_.empty()) {
            varying_ = detail::varying_locals(f);
            ir::for_each_stmt(f.body, [&](const ir::Stmt &s) {
                if (s.kind != ir::Stmt::Kind::Eval || !s.value) return;
                if (const std::optional<int> p = deferred_param(*s.value))
                    if (detail::scattered(*s.value, varying_) &&
                        std::find(scattered_.begin(), scattered_.end(), *p) == scattered_.end())
                        scattered_.push_back(*p);
            });
            // The chunk's pending sums, one table per such array: the entry's
            // run function owns them, the body reaches them through weft_t_.
            o << "\nstruct " << deferred_type(f) << " {\n";
            for (int p : deferred_)
                o << "    weft::rt::deferred_adds<" << type(f.params[static_cast<std::size_t>(p)].type.element()) << "> d"
                  << p << ";\n";
            o << "};\n";
        }
        // Every function is specialized on whether the kernel's arrays are dense in
        // their last dimension (weft_contig_): then element addresses vectorize.
        o << "\n" << signature(f, name) << " {\n";
        if (replay_ && !f.custom_replay.empty()) {
            // @wp.func_replay: backward replays call it instead of the function.
            o << "    return " << f.custom_replay << "<weft_contig_>(weft_t_";
            for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << param(static_cast<int>(i));
            o << ");\n}\n";
            return;
        }
        o << "    (void)weft_t_;\n";
        if (f.is_native) {
            // The snippet sees the parameters under their own names (Warp's convention).
            native_aliases(o, f, false);
            const ir::Function::Snippet &s = replay_ && !f.native_replay.text.empty() ? f.native_replay : f.native;
            o << line_marker(s.location) << s.text << "\n}\n";
            return;
        }
        for (std::size_t i = 0; i < f.locals.size(); ++i)
            o << "    " << type(f.locals[i].type) << " " << local(static_cast<int>(i)) << "{};\n";
        block(o, f.body, 1);
        o << "}\n";
        if (f.is_kernel) entry(o, f);
        deferred_.clear();
    }

    /// `auto &x = p_x;` for each parameter of a @wp.func_native (and `adj_x`, `adj_ret` in its adjoint).
    void native_aliases(std::ostringstream &o, const ir::Function &f, bool adjoint) {
        // Snippets written for Warp name its runtime wp:: (wp::index, wp::vec3) or
        // use it unqualified (sqrt): weft's runtime has those names.
        // NVRTC declares float math (sqrt, sin ...) globally too: block-scope
        // using-declarations make weft's the ones found, on both backends.
        o << "    namespace wp = ::weft;\n    using namespace ::weft;\n   ";
        for (const char *m : {"abs", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "exp", "floor", "log",
                              "log10", "log2", "max", "min", "pow", "round", "sin", "sinh", "sqrt", "tan", "tanh",
                              "trunc"})
            o << " using ::weft::" << m << ";";
        o << "\n";
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            const std::string &n = f.params[i].name;
            o << "    auto &" << n << " = " << param(static_cast<int>(i)) << ";\n    (void)" << n << ";\n";
            if (adjoint)
                o << "    auto &adj_" << n << " = adj_" << param(static_cast<int>(i)) << ";\n    (void)adj_" << n << ";\n";
        }
        if (adjoint && f.return_type) o << "    const auto &adj_ret = weft_adj_ret_;\n    (void)adj_ret;\n";
    }

    /// "template <bool weft_contig_> WEFT_FN R name(const weft::tid_t &weft_t_, T p_x, ...)"
    std::string signature(const ir::Function &f, const std::string &name) {
        f_ = &f;
        std::string out = "template <bool weft_contig_>\nWEFT_FN " + (f.return_type ? type(*f.return_type) : "void") + " " +
                          name + "(const weft::tid_t &weft_t_";
        for (std::size_t i = 0; i < f.params.size(); ++i) {
            const bool by_reference =
                (f.reference_params_from >= 0 && static_cast<int>(i) >= f.reference_params_from) || f.params[i].reference;
            out += ", " + type(f.params[i].type) + (by_reference ? " &" : " ") + param(static_cast<int>(i));
        }
        return out + ")";
    }

    /// Forward mode: functions and kernel entries. Adjoint mode: user functions
    /// and their replays (no side effects), then the adjoints and each
    /// differentiable kernel's adjoint body and backward entry. Declarations
    /// first: a @wp.func_grad or @wp.func_replay instance follows what it serves.
    /// Functions into `o`; each kernel's code (its forward entry, or in the
    /// backward pass its adjoint entry) into one string of `kernels`, in source
    /// order, after every function it may call: kernels are what a module
    /// split into parts divides.
    void emit_functions(std::ostringstream &o, std::vector<std::string> &kernels) {
        const auto kernel_code = [&](const ir::Function &f, auto emit) {
            std::ostringstream k;
            section_ = static_cast<int>(kernels.size()) + 1;
            strided_entry_bytes_.push_back(0);
            emit(k, f);
            kernels.push_back(k.str());
        };
        if (!codegen_.adjoint) {
            for (const ir::Function &f : m_.functions)
                if (!f.is_kernel) function(o, f);
            for (const ir::Function &f : m_.functions)
                if (f.is_kernel) kernel_code(f, [this](std::ostringstream &k, const ir::Function &g) { function(k, g); });
            return;
        }
        for (const ir::Function &f : m_.functions) {
            if (f.is_kernel) continue;
            o << signature(f, f.mangled_name) << ";\n";
            if (f.reference_params_from < 0) o << signature(f, f.mangled_name + "_rep") << ";\n";
        }
        for (const ir::Function &f : m_.functions) {
            if (f.is_kernel) continue;
            function(o, f);
            if (f.reference_params_from >= 0) continue; // a gradient: called, never replayed or differentiated
            replay_ = true;
            function(o, f);
            replay_ = false;
        }
        for (const ir::Function &f : m_.functions)
            if (!f.is_kernel && f.reference_params_from < 0) adjoint_function(o, f);
        for (const ir::Function &f : m_.functions)
            if (f.is_kernel && f.enable_backward && f.abi == ir::EntryPointAbi::Warp)
                kernel_code(f, [this](std::ostringstream &k, const ir::Function &g) { adjoint_function(k, g); });
    }

    /// Whether a type holds an array inside a struct or tuple (such arrays are
    /// not checked for density, so their kernel gets no dense specialization).
    /// Whether a view may leave its array's innermost dimension strided
    /// (a[:, j], a[::2], a run-time step): code specialized on dense arrays
    /// (weft_contig_) assumes every array it indexes is dense where the
    /// parameters are, so a module with such a view never specializes.
    static bool strided_view(const Expr &e) {
        if (e.kind == K::View) {
            const int source_dims = e.args[0]->type.ndim();
            int positions = 0;
            std::size_t last_slice_step = 0; // arg index of the last position's step, 0: an integer index
            for (std::size_t a = 1; a < e.args.size(); ++positions) {
                const bool slice = e.index & (1 << positions);
                last_slice_step = slice ? a + 2 : 0;
                a += slice ? 3 : 1;
            }
            if (positions == source_dims) {
                if (last_slice_step == 0) return true;
                const Expr &step = *e.args[last_slice_step];
                if (!(step.kind == K::Literal && step.value && !step.value->int_components.empty() &&
                      step.value->int_components[0] == 1))
                    return true;
            }
        }
        for (const ir::ExprPtr &a : e.args)
            if (strided_view(*a)) return true;
        return false;
    }
    static bool strided_views(const std::vector<ir::StmtPtr> &body) {
        for (const ir::StmtPtr &s : body) {
            for (const ir::Expr *e : {s->value.get(), s->target.get(), s->cond.get()})
                if (e && strided_view(*e)) return true;
            for (const ir::ExprPtr &a : s->args)
                if (strided_view(*a)) return true;
            if (strided_views(s->body) || strided_views(s->orelse)) return true;
        }
        return false;
    }
    bool module_strided_views() const {
        for (const ir::Function &f : m_.functions)
            if (strided_views(f.body)) return true;
        return false;
    }

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
        k.key = f.entry_name;
        k.symbol = f.entry_name.empty() ? f.mangled_name : f.entry_name;
        k.abi = f.abi;
        k.params.push_back({f.params[0].name, P});
        o << "extern \"C\" __global__ void " << k.symbol << "() {\n"
          << "    const " << t << " a0_ = *reinterpret_cast<const " << t << " *>(params);\n"
          << "    const weft::tid_t weft_t_{};\n"
          << "    " << f.mangled_name << "_body<false>(weft_t_, a0_);\n}\n";
        result_.kernels.push_back(std::move(k));
    }

    /// The entry's parameters: the kernel's, then (backward entries) one adjoint
    /// per parameter, of the same type ("adj_<name>": a gradient array, or a value).
    std::vector<KernelParam> entry_params(const ir::Function &f) const {
        std::vector<KernelParam> out;
        for (const ir::Variable &p : f.params) out.push_back({p.name, p.type});
        if (codegen_.adjoint)
            for (const ir::Variable &p : f.params) out.push_back({"adj_" + p.name, p.type});
        return out;
    }

    /// "_body" / "_run" / entry symbol suffix of forward or backward code.
    std::string entry_suffix() const { return codegen_.adjoint ? "_adj" : ""; }

    /// The components of a CUDA thread's index, unrolled for the kernel's
    /// tid() dimensionality: a loop over the launch's runtime ndim indexes
    /// weft_t_.c dynamically, which puts the array in local memory. With
    /// tid_dims >= 2 the launch has exactly that many dimensions (checked at
    /// launch); one component is the outermost index; none is unused.
    static std::string cuda_tid_components(int tid_dims) {
        if (tid_dims == 0) return "";
        if (tid_dims == 1)
            return "    weft_t_.c[0] = weft::int32(weft_launch_.ndim == 1 ? weft_idx_ : weft_idx_ / (weft_launch_.size / "
                   "weft_launch_.shape[0]));\n";
        std::string out = "    long long weft_rest_ = weft_idx_;\n";
        for (int k = tid_dims - 1; k > 0; --k) {
            const std::string d = std::to_string(k);
            out += "    weft_t_.c[" + d + "] = weft::int32(weft_rest_ % weft_launch_.shape[" + d + "]);\n" +
                   "    weft_rest_ /= weft_launch_.shape[" + d + "];\n";
        }
        return out + "    weft_t_.c[0] = weft::int32(weft_rest_);\n";
    }

    void cuda_entry(std::ostringstream &o, const ir::Function &f) {
        if (f.abi == ir::EntryPointAbi::ExternalConstantParams) return external_entry(o, f);
        KernelEntry k;
        k.name = f.name;
        k.key = f.entry_name;
        k.symbol = f.mangled_name + "_cuda" + entry_suffix();
        k.tid_dims = f.tid_dims;
        k.abi = f.abi;
        k.params = entry_params(f);
        std::string decl, grid_decl, pass, dense = "true";
        bool specializable = true;
        for (std::size_t i = 0; i < k.params.size(); ++i) {
            const Type &pt = k.params[i].type;
            const std::string t = type(pt);
            decl += ", const " + t + " a" + std::to_string(i) + "_";
            grid_decl += ", const WEFT_GRID_CONSTANT " + t + " a" + std::to_string(i) + "_";
            pass += ", a" + std::to_string(i) + "_";
            if (pt.kind() == Type::Kind::Array) dense += " && weft::innermost_dense(a" + std::to_string(i) + "_)";
            if (nests_array(pt)) specializable = false;
        }
        if (module_strided_views()) specializable = false;
        const std::string body = f.mangled_name + "_body" + entry_suffix(), run = f.mangled_name + "_run" + entry_suffix();
        o << "template <bool weft_contig_>\nWEFT_FN void " << run
          << "(const weft::launch_t &weft_launch_, long long weft_idx_" << decl << ") {\n"
          << "    weft::tid_t weft_t_{};\n    weft_t_.idx = weft_idx_;\n"
          << cuda_tid_components(f.tid_dims) << "    " << body << "<weft_contig_>(weft_t_" << pass << ");\n}\n";
        // A grid-stride loop over the launch: any grid covers any dimension.
        // __grid_constant__ parameters are read in place: without it, taking a
        // parameter's address (the run function's references) copies it to
        // the thread's local memory, a stack frame of the parameters' size.
        // launch_bounds=: the compiler may then use more registers per thread.
        const std::string bounds =
            f.launch_bounds > 0 ? "__launch_bounds__(" + std::to_string(f.launch_bounds) + ") " : std::string();
        o << "extern \"C\" __global__ void " << bounds << k.symbol << "(const WEFT_GRID_CONSTANT weft::launch_t weft_launch_"
          << grid_decl << ") {\n"
          << "    const bool weft_dense_ = " << (specializable ? dense : std::string("false")) << ";\n"
          << "    for (long long weft_idx_ = (long long)blockIdx.x * blockDim.x + threadIdx.x; weft_idx_ < weft_launch_.size;\n"
          << "         weft_idx_ += (long long)blockDim.x * gridDim.x) {\n"
          << "        if (weft_dense_) " << run << "<true>(weft_launch_, weft_idx_" << pass << ");\n"
          << "        else " << run << "<false>(weft_launch_, weft_idx_" << pass << ");\n"
          << "    }\n}\n";
        result_.kernels.push_back(std::move(k));
    }

    void entry(std::ostringstream &o, const ir::Function &f) {
        if (backend_ == Backend::Cuda) return cuda_entry(o, f);
        KernelEntry k;
        k.name = f.name;
        k.key = f.entry_name;
        k.symbol = f.mangled_name + "_cpu" + entry_suffix();
        k.tid_dims = f.tid_dims;
        k.abi = f.abi;
        k.params = entry_params(f);
        k.loops = has_loop(f);
        if (codegen_.adjoint)
            for (int p : private_gradients_) k.private_gradients.push_back(static_cast<int>(f.params.size()) + p);
        std::string params_decl, params_pass, dense = "true";
        bool specializable = true;
        for (std::size_t i = 0; i < k.params.size(); ++i) {
            const Type &pt = k.params[i].type;
            const std::string t = type(pt);
            params_decl += ", const " + t + " a" + std::to_string(i) + "_"; // by value: no alias with stores
            params_pass += ", a" + std::to_string(i) + "_";
            if (pt.kind() == Type::Kind::Array) dense += " && weft::innermost_dense(a" + std::to_string(i) + "_)";
            if (nests_array(pt)) specializable = false;
        }
        if (module_strided_views()) specializable = false;
        const std::string body = f.mangled_name + "_body" + entry_suffix(), run = f.mangled_name + "_run" + entry_suffix();
        // A kernel whose work sits under a bounds test on its innermost index
        // runs each row's passing range without the test (row_guard.hpp).
        const std::optional<RowGuard> guard = codegen_.adjoint ? std::nullopt : find_row_guard(f);
        if (guard) row_guard_functions(o, f, *guard);
        // Guarded rows of an N-D launch over dense arrays: when the launch's
        // arrays are disjoint, each row runs without the compiler's overlap
        // tests (disjoint_rows.hpp).
        // Not with deferred atomics: the row function would need the chunk's
        // tables through a pointer, and a pointer to them that leaves the run
        // function keeps their sums out of registers (deferred_adds).
        const bool disjoint = deferred_.empty() && guard && f.tid_dims >= 2 && specializable && dense != "true" &&
                              options_.cpu_preamble.empty() && disjoint_rows_apply(m_, f, k.params);
        // Rows of the launch grid: the last dimension is a counted inner loop
        // (vectorizable); the outer components are computed once per row. Each
        // element gets its own copy of the thread index, which the compiler
        // keeps in registers. A kernel that unpacks tid() into N >= 2 values
        // runs on N-D launches only (checked at launch): the innermost
        // component has a constant index. One that takes tid() as one value,
        // or not at all, reads only the linear index: no components are kept.
        const bool components = f.tid_dims >= 2;
        // The rows of an N-D launch are one dimension long (often a few
        // hundred elements): two vectors per iteration, the compiler's choice
        // for such loops, leave a scalar tail of up to 2 * width - 1 elements
        // per row, which cost more than the interleaving gains (diffuse3d on
        // 160^3: 12% fewer instructions). 1-D launches run one long row.
        const std::string one_vector_per_iteration =
            components ? "        _Pragma(\"clang loop interleave_count(1)\")\n" : "";
        // The chunk's deferred atomics reach the body in each element's copy
        // only: stored in weft_t_, which stays in memory, their address would
        // escape and their sums with it (deferred_adds).
        const std::string each =
            (components ? "            weft::tid_t weft_e_ = weft_t_;\n"
                          "            weft_e_.c[" + std::to_string(f.tid_dims - 1) + "] = weft::int32(weft_j_);\n"
                          "            weft_e_.idx = weft_base_ + weft_j_;\n"
                        : "            weft::tid_t weft_e_{};\n"
                          "            weft_e_.idx = weft_base_ + weft_j_;\n") +
            std::string(deferred_.empty() ? "" : "            weft_e_.deferred = &weft_deferred_;\n");
        if (disjoint) disjoint_row_function(o, f, k.params, each);
        o << "template <bool weft_contig_>\nstatic void " << run
          << "(const weft::launch_t &weft_launch_, long long weft_begin_, long long weft_end_" << params_decl << ") {\n"
          << "    const int weft_n_ = weft_launch_.ndim;\n"
          << "    const long long weft_inner_ = weft_launch_.shape[weft_n_ - 1];\n";
        if (disjoint) {
            std::string test = "weft_contig_";
            for (std::size_t a = 0; a < k.params.size(); ++a)
                for (std::size_t b = a + 1; b < k.params.size(); ++b)
                    if (k.params[a].type.kind() == Type::Kind::Array && k.params[b].type.kind() == Type::Kind::Array)
                        test += " && weft::disjoint(a" + std::to_string(a) + "_, a" + std::to_string(b) + "_)";
            o << "    const bool weft_disjoint_ = " << test << ";\n";
        }
        if (guard)
            // A 1-D test compares the int32 tid() value, the linear index: rows
            // of a launch beyond int32 take the plain loop.
            o << "    const bool weft_rows_ = " << (f.tid_dims == 1 ? "weft_launch_.size <= 0x7fffffffLL" : "true") << ";\n";
        // The outer components of the first row by division, of each next row
        // by a carry (divisions per row cost as much as a short row's work).
        o << "    weft::tid_t weft_t_{};\n"
          << "    long long weft_row_ = weft_begin_ / weft_inner_;\n";
        if (!deferred_.empty()) {
            // Deferred only while the array shares no byte with another array
            // parameter: otherwise a read through the other would miss the sums.
            // Each table is an object of its own (deferred_adds says why).
            o << "    " << deferred_type(f) << " weft_deferred_;\n";
            for (int p : deferred_) {
                const std::string d = std::to_string(p);
                std::string alone = "true";
                for (std::size_t b = 0; b < k.params.size(); ++b)
                    if (static_cast<int>(b) != p && k.params[b].type.kind() == Type::Kind::Array)
                        alone += " && weft::disjoint_copies(a" + d + "_, a" + std::to_string(b) + "_)";
                o << "    weft::rt::deferred_table weft_table" << d << "_;\n"
                  << "    weft_deferred_.d" << d << ".begin(" << alone << ", &weft_table" << d << "_);\n";
                if (std::find(scattered_.begin(), scattered_.end(), p) != scattered_.end())
                    o << "    weft_deferred_.d" << d << ".privatize(a" << d << "_, weft_end_ - weft_begin_);\n";
            }
        }
        // Unrolled for the kernel's tid() dimensionality, which the launch's
        // matches (checked at launch): indexed by a loop counter, weft_t_.c
        // stayed in memory and each element reloaded its outer components
        // (row_sums ran at 0.67x the hand-written loop).
        if (components) {
            o << "    long long weft_rest_ = weft_row_;\n";
            for (int c = f.tid_dims - 2; c >= 0; --c) {
                const std::string d = std::to_string(c);
                o << "    weft_t_.c[" << d << "] = weft::int32(weft_rest_ % weft_launch_.shape[" << d << "]);\n"
                  << "    weft_rest_ /= weft_launch_.shape[" << d << "];\n";
            }
        }
        o << "    for (long long weft_idx_ = weft_begin_; weft_idx_ < weft_end_; ++weft_row_) {\n"
          << "        const long long weft_base_ = weft_row_ * weft_inner_;\n"
          << "        const long long weft_stop_ = weft_base_ + weft_inner_ < weft_end_ ? weft_base_ + weft_inner_ : weft_end_;\n"
          << "        const int weft_j0_ = int(weft_idx_ - weft_base_), weft_j1_ = int(weft_stop_ - weft_base_);\n";
        if (guard) {
            // The test's j is the component (tid_dims >= 2) or the linear index
            // (1); the range stays inside [j0, j1) of this row, an int.
            const std::string shift = f.tid_dims == 1 ? "weft_base_" : "0";
            o << "        if (weft_rows_) {\n"
              << "            const long long weft_shift_ = " << shift << ";\n"
              << "            long long weft_lo_ = weft_j0_ + weft_shift_, weft_hi_ = weft_j1_ + weft_shift_;\n"
              << "            if (" << f.mangled_name << "_rows<weft_contig_>(weft_t_, weft_lo_, weft_hi_" << params_pass << "))"
              << (disjoint ? " {\n" : "\n");
            if (disjoint) {
                std::string pointers;
                for (std::size_t i = 0; i < k.params.size(); ++i)
                    if (k.params[i].type.kind() == Type::Kind::Array) pointers += "a" + std::to_string(i) + "_.data, ";
                // Only the dense instantiation names the row function: the
                // strided one, compiled alone, does not compile it.
                o << "                if (weft_disjoint_) {\n"
                  << "                    if constexpr (weft_contig_)\n"
                  << "                        " << f.mangled_name << "_row_disjoint(" << pointers
                  << "weft_t_, int(weft_lo_), int(weft_hi_), weft_base_" << params_pass << ");\n"
                  << "                } else\n";
            }
            o << one_vector_per_iteration << "                for (int weft_j_ = int(weft_lo_ - weft_shift_); weft_j_ < int(weft_hi_ - weft_shift_); ++weft_j_) {\n"
              << indented(each, 2) << "                    " << f.mangled_name << "_body_rows<weft_contig_>(weft_e_" << params_pass
              << ");\n"
              << "                }\n"
              << (disjoint ? "            }\n" : "")
              << "        } else {\n";
        }
        o << one_vector_per_iteration << "        for (int weft_j_ = weft_j0_; weft_j_ < weft_j1_; ++weft_j_) {\n"
          << each << "            " << body << "<weft_contig_>(weft_e_" << params_pass << ");\n"
          << "        }\n";
        if (guard) o << "        }\n";
        o << "        weft_idx_ = weft_stop_;\n";
        if (components) {
            // The carry into the outer components, innermost first.
            std::string close;
            for (int c = f.tid_dims - 2; c >= 0; --c) {
                const std::string d = std::to_string(c), in(static_cast<std::size_t>(8 + 4 * (f.tid_dims - 2 - c)), ' ');
                o << in << "if (++weft_t_.c[" << d << "] >= weft_launch_.shape[" << d << "]) {\n"
                  << in << "    weft_t_.c[" << d << "] = 0;\n";
                close = in + "}\n" + close;
            }
            o << close;
        }
        o << "    }\n";
        for (int p : deferred_) o << "    weft_deferred_.d" << p << ".flush();\n";
        o << "}\n";
        std::string unpack, unpack_arrays;
        for (std::size_t i = 0; i < k.params.size(); ++i) {
            const std::string t = type(k.params[i].type);
            const std::string line = "    const " + t + " a" + std::to_string(i) + "_ = *static_cast<const " + t +
                                     " *>(weft_args_[" + std::to_string(i) + "]);\n";
            unpack += line;
            if (k.params[i].type.kind() == Type::Kind::Array) unpack_arrays += line;
        }
        const std::string launch_params =
            "(const weft::launch_t *weft_launch_, void *const *weft_args_, long long weft_begin_, long long weft_end_)";
        const auto call = [&](bool dense_copy) {
            return run + (dense_copy ? "<true>" : "<false>") + "(*weft_launch_, weft_begin_, weft_end_" + params_pass + ");\n";
        };
        if (!(specializable && dense != "true")) {
            o << "extern \"C\" void " << k.symbol << launch_params << " {\n" << unpack << "    " << call(false) << "}\n";
        } else if (!split_strided_) {
            o << "extern \"C\" void " << k.symbol << launch_params << " {\n"
              << unpack << "    if (" << dense << ")\n        " << call(true) << "    else\n        " << call(false) << "}\n";
        } else {
            // The dense and strided instantiations behind symbols of their own,
            // so that each compiles without the other (strided_macro).
            const std::string launch_args = "(weft_launch_, weft_args_, weft_begin_, weft_end_)";
            const std::string strided = strided_macro;
            k.strided_section = section_;
            // The density test a JIT launch needs is the host's (weft/runtime/
            // launch.hpp innermost_dense): compiled here, ten ten-line tests
            // were 9% of ten_kernels' cold compile. Only the full entry, for
            // AOT objects and C callers, tests in generated code.
            o << "extern \"C\" void " << dense_symbol(k) << launch_params << ";\n"
              << "#if " << strided << " <= 0\n"
              << "extern \"C\" void " << dense_symbol(k) << launch_params << " {\n" << unpack << "    " << call(true) << "}\n"
              << "#endif\n";
            const std::string strided_entries =
                "#if " + strided + " >= 0\n" + "extern \"C\" void " + strided_symbol(k) + launch_params + " {\n" + unpack +
                "    " + call(false) + "}\n" + "extern \"C\" void " + k.symbol + launch_params + " {\n" + unpack_arrays +
                "    if (" + dense + ")\n        " + dense_symbol(k) + launch_args + ";\n    else\n        " +
                strided_symbol(k) + launch_args + ";\n}\n" + "#endif\n";
            o << strided_entries;
            strided_entry_bytes_.back() = strided_entries.size();
        }
        result_.kernels.push_back(std::move(k));
    }

    /// NAME_row_disjoint: one guarded row of an N-D launch over dense arrays,
    /// [weft_lo_, weft_hi_) of its last component, each array read and written
    /// through a `__restrict` copy of its data pointer (disjoint_rows.hpp).
    void disjoint_row_function(std::ostringstream &o, const ir::Function &f,
                               const std::vector<KernelParam> &params, const std::string &each) {
        std::string pointers, arrays, rebind, pass;
        for (std::size_t i = 0; i < params.size(); ++i) {
            const std::string a = "a" + std::to_string(i) + "_";
            const Type &t = params[i].type;
            pass += ", " + a;
            if (t.kind() != Type::Kind::Array) {
                arrays += ", const " + type(t) + " " + a;
                continue;
            }
            pointers += type(t.element()) + " *__restrict " + a + "data_, ";
            arrays += ", " + type(t) + " " + a;
            rebind += "    " + a + ".data = " + a + "data_;\n";
        }
        o << "\nWEFT_FN void " << f.mangled_name << "_row_disjoint(" << pointers
          << "const weft::tid_t &weft_t_, int weft_lo_, int weft_hi_, long long weft_base_" << arrays << ") {\n"
          << rebind << "        _Pragma(\"clang loop interleave_count(1)\")\n"
          << "        for (int weft_j_ = weft_lo_; weft_j_ < weft_hi_; ++weft_j_) {\n"
          << each << "            " << f.mangled_name << "_body_rows<true>(weft_e_" << pass << ");\n"
          << "        }\n}\n";
    }

    /// A row-guarded kernel's two helpers: NAME_body_rows, the body without its
    /// test (for j inside the passing range, where the test's literal lower
    /// bounds hold: `i > 0` makes i - 1 an index that needs no wrap), and NAME_rows, the test once per
    /// row: false when no element of the row passes, else [weft_lo_, weft_hi_)
    /// (values of j) narrowed to the elements that do.
    void row_guard_functions(std::ostringstream &o, const ir::Function &f, const RowGuard &g) {
        const auto locals = [&] {
            o << "    (void)weft_t_;\n";
            for (std::size_t i = 0; i < f.locals.size(); ++i)
                o << "    " << type(f.locals[i].type) << " " << local(static_cast<int>(i)) << "{};\n";
        };
        find_nonneg_locals(f, g.minimums);
        o << "\n" << signature(f, f.mangled_name + "_body_rows") << " {\n";
        locals();
        for (std::size_t k = 0; k < g.test; ++k) statement(o, *f.body[k], 1);
        block(o, f.body[g.test]->body, 1);
        o << "}\n";
        find_nonneg_locals(f);

        o << "\ntemplate <bool weft_contig_>\nWEFT_FN bool " << f.mangled_name
          << "_rows(const weft::tid_t &weft_t_, long long &weft_lo_, long long &weft_hi_";
        for (std::size_t i = 0; i < f.params.size(); ++i) o << ", " << type(f.params[i].type) << " " << param(static_cast<int>(i));
        o << ") {\n";
        locals();
        const auto test = [&](const auto &self, const std::vector<ir::StmtPtr> &stmts, std::size_t n) -> void {
            for (std::size_t k = 0; k < n; ++k) {
                const Stmt &s = *stmts[k];
                if (s.kind == S::If) { // a link of the `and` chain: its statements run unconditionally here
                    self(self, s.body, s.body.size());
                    continue;
                }
                const RowTerm *t = g.term(s);
                if (!t) {
                    statement(o, s, 1);
                    continue;
                }
                o << line_marker(s.location);
                if (!t->bound) {
                    o << "    if (!(" << expr(*s.value) << ")) return false;\n";
                    continue;
                }
                const std::string b = "(long long)(" + expr(*t->bound->bound) + ")";
                const auto raise_lo = [&](const std::string &v) { o << "    if (" << v << " > weft_lo_) weft_lo_ = " << v << ";\n"; };
                const auto cut_hi = [&](const std::string &v) { o << "    if (" << v << " < weft_hi_) weft_hi_ = " << v << ";\n"; };
                switch (t->bound->op) {
                case RowOp::Lt: cut_hi(b); break;
                case RowOp::Le: cut_hi(b + " + 1"); break;
                case RowOp::Gt: raise_lo(b + " + 1"); break;
                case RowOp::Ge: raise_lo(b); break;
                case RowOp::Eq:
                    raise_lo(b);
                    cut_hi(b + " + 1");
                    break;
                }
            }
        };
        test(test, f.body, g.test);
        o << "    return weft_lo_ < weft_hi_;\n}\n";
    }

    /// The C++ function of a module constant: c_NAME, or for a class member
    /// (Color.RED) c5_Color_RED: the class name's length after the "c" keeps
    /// it apart from every c_NAME and from other classes' members.
    static std::string constant_function(const std::string &name) {
        const auto dot = name.find('.');
        if (dot == std::string::npos) return "c_" + name;
        return "c" + std::to_string(dot) + "_" + name.substr(0, dot) + "_" + name.substr(dot + 1);
    }

    std::string indent(int depth) const { return std::string(static_cast<std::size_t>(depth) * 4, ' '); }

    /// Each line of `text` indented by `depth` more levels.
    std::string indented(const std::string &text, int depth) const {
        std::string out;
        const std::string pad = indent(depth);
        std::size_t from = 0;
        for (std::size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1)
            out += pad + text.substr(from, nl + 1 - from);
        return out;
    }

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
            else if (replay_ && s.value->kind == K::Intrinsic && ir::is_atomic(s.value->intrinsic))
                // The forward pass applied the atomic; a replay reads the element instead.
                o << in << local(s.index) << " = " << atomic_element(*s.value) << ";\n";
            else if (const char *op = index_arithmetic(s))
                o << in << local(s.index) << " = " << expr(*s.value->args[0]) << op << expr(*s.value->args[1]) << ";\n";
            else
                o << in << local(s.index) << " = " << expr(*s.value) << ";\n";
            return;
        case S::Store:
            if (replay_ && writes_array(*s.target)) return; // the forward pass wrote it
            o << in << element_store(lvalue(*s.target), expr(*s.value), s.value->type) << ";\n";
            return;
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
        case S::Eval:
            if (replay_ && s.value->kind == K::Intrinsic) return; // atomics, print, expect_*: done by the forward pass
            o << in << expr(*s.value) << ";\n";
            return;
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
            o << in << "while (" << expr(*s.cond) << ") {\n" << in << "    WEFT_LOOP_PROGRESS();\n";
            block(o, s.body, depth + 1);
            o << in << "}\n";
            return;
        case S::Break: o << in << "break;\n"; return;
        case S::Continue: o << in << "continue;\n"; return;
        case S::Return: o << in << (s.value ? "return " + expr(*s.value) : std::string("return")) << ";\n"; return;
        case S::AugAssign: throw InternalError("generate_cpp: an augmented assignment survived lowering");
        }
    }

    /// Whether an lvalue path goes through an array element.
    static bool writes_array(const Expr &path) {
        if (path.kind == K::Index && path.args[0]->type.kind() == Type::Kind::Array) return true;
        if (path.kind == K::Field || path.kind == K::Index) return writes_array(*path.args[0]);
        return false;
    }

    /// The element an atomic intrinsic applies to: weft::index(arr, i...)
    /// (checked in debug mode, as the atomic itself is).
    std::string atomic_element(const Expr &atomic) {
        std::string out = codegen_.bounds_checks ? "weft::index_checked<false>(" + expr(*atomic.args[0]) + ", " +
                                                       c_string(array_name(*atomic.args[0])) + ", " +
                                                       c_string(f_->name) + ", " + c_string(logical_file_) + ", " +
                                                       std::to_string(atomic.location.line) + ", weft_t_.idx"
                                                 : "weft::index(" + expr(*atomic.args[0]);
        for (std::size_t i = 1; i + 1 < atomic.args.size(); ++i) out += ", " + expr(*atomic.args[i]);
        return out + ")";
    }

    /// atomic_add(arr, i..., value); in debug mode atomic_add_checked(value,
    /// arr, kernel, file, line, i...): an index outside the array is a
    /// reported failure, like a[i], instead of a write outside it.
    std::string atomic_call(const char *name, const Expr &e, const std::string &where) {
        if (const std::optional<int> p = deferred_param(e)) {
            const std::string value = e.intrinsic == ir::Intrinsic::AtomicSub ? "weft::neg(" + expr(*e.args.back()) + ")"
                                                                               : expr(*e.args.back());
            const std::string table = "static_cast<" + deferred_type(*f_) + " *>(weft_t_.deferred)->d" + std::to_string(*p);
            if (!detail::scattered(e, varying_)) return table + ".add(&" + atomic_element(e) + ", " + value + ")";
            std::string out = table + ".scatter<weft_contig_>(" + expr(*e.args[0]) + ", " + value;
            for (std::size_t i = 1; i + 1 < e.args.size(); ++i) out += ", " + expr(*e.args[i]);
            return out + ")";
        }
        if (!codegen_.bounds_checks) return "weft::" + std::string(name) + "(" + args(e) + ")";
        std::string out = "weft::" + std::string(name) + "_checked(" + expr(*e.args.back()) + ", " + expr(*e.args[0]) +
                          ", " + c_string(array_name(*e.args[0])) + ", " + where;
        for (std::size_t i = 1; i + 1 < e.args.size(); ++i) out += ", " + expr(*e.args[i]);
        return out + ")";
    }

    /// The parameter whose deferred table takes atomic `e`, if its adds are deferred.
    std::optional<int> deferred_param(const Expr &e) const {
        if (deferred_.empty() || e.args.empty() || e.args[0]->kind != K::Param) return std::nullopt;
        if (e.intrinsic != ir::Intrinsic::AtomicAdd && e.intrinsic != ir::Intrinsic::AtomicSub) return std::nullopt;
        if (std::find(deferred_.begin(), deferred_.end(), e.args[0]->index) == deferred_.end()) return std::nullopt;
        return e.args[0]->index;
    }
    static std::string deferred_type(const ir::Function &f) { return f.mangled_name + "_deferred"; }

    std::string args(const Expr &e, std::size_t from = 0) {
        std::string out;
        for (std::size_t i = from; i < e.args.size(); ++i) out += (i > from ? ", " : "") + expr(*e.args[i]);
        return out;
    }

    std::string component(const Expr &e) {
        // A field of a struct, native type or transform (p, q), or a vector/quaternion component.
        const Type &base = e.args[0]->type;
        if (base.kind() == Type::Kind::Struct) return ".m_" + e.name;
        if (base.kind() == Type::Kind::Native || base.kind() == Type::Kind::Transform) return "." + e.name;
        return ".c[" + std::to_string(e.index) + "]";
    }

    /// v[i] on a vector, quaternion, matrix row or transform (whose components live in p and q).
    std::string subscript(const Expr &e) {
        // Warp counts a negative index from the end (v[-1] is the last component).
        const Type &t = e.args[0]->type;
        const bool transform = t.kind() == Type::Kind::Transform;
        const std::string open = transform ? "[" : ".c[";
        if (nonneg_index(*e.args[1])) return open + expr(*e.args[1]) + "]";
        const int n = transform ? 7 : t.kind() == Type::Kind::Quaternion ? 4 : t.rows();
        return open + "weft::rt::wrap(" + expr(*e.args[1]) + ", " + std::to_string(n) + ")]";
    }

    /// a[i, ...]: unchecked, or in debug mode checked against the shape with the access's position.
    std::string array_element(const Expr &e) {
        if (!codegen_.bounds_checks) {
            // Warp's negative-index wrap only on the indices that need it: the
            // others stay affine in the thread index (vectorizable).
            const std::string array = expr(*e.args[0]);
            std::string out = "weft::index_nn_c<weft_contig_>(" + array;
            for (std::size_t i = 1; i < e.args.size(); ++i) {
                const std::string x = expr(*e.args[i]);
                out += nonneg_index(*e.args[i]) ? ", " + x
                                                : ", weft::rt::wrap(" + x + ", " + array + ".shape[" + std::to_string(i - 1) + "])";
            }
            return out + ")";
        }
        return "weft::index_checked<weft_contig_>(" + expr(*e.args[0]) + ", " + c_string(array_name(*e.args[0])) + ", " +
               c_string(f_->name) + ", " + c_string(logical_file_) + ", " + std::to_string(e.location.line) +
               ", weft_t_.idx, " + args(e, 1) + ")";
    }

    /// The value local `index` is first given in `body`, if any.
    static const Expr *declared_value(const std::vector<ir::StmtPtr> &body, int index) {
        for (const ir::StmtPtr &st : body) {
            if (st->kind == S::Declare && st->index == index) return st->value.get();
            if (const Expr *v = declared_value(st->body, index)) return v;
            if (const Expr *v = declared_value(st->orelse, index)) return v;
        }
        return nullptr;
    }

    /// The array as the kernel's source names it, for bounds failures'
    /// messages: a parameter or local ("x"), a struct field ("p.weights").
    std::string array_name(const Expr &e) const {
        const auto variable = [](const std::vector<ir::Variable> &vars, int i) -> std::string {
            if (i < 0 || static_cast<std::size_t>(i) >= vars.size() || vars[i].temporary) return "";
            return vars[i].name;
        };
        std::string name;
        if (e.kind == K::Param) name = variable(f_->params, e.index);
        else if (e.kind == K::Local) {
            name = variable(f_->locals, e.index);
            // A temporary lowering made for a path (p.weights): the path's name.
            if (name.empty())
                if (const Expr *source = declared_value(f_->body, e.index)) name = array_name(*source);
            if (name == "array") name.clear();
        }
        else if (e.kind == K::Field && !e.args.empty()) {
            const std::string base = array_name(*e.args[0]);
            if (base != "array") name = base + "." + e.name;
        }
        return name.empty() ? "array" : name;
    }

    /// weft::view(base, positions...) for a View whose array is `base`
    /// (the forward array, or its gradient's twin in reverse mode).
    std::string view(const Expr &e, const std::string &base) {
        std::string out = "weft::view(" + base;
        std::size_t a = 1;
        for (int k = 0; a < e.args.size(); ++k) {
            if (e.index & (1 << k)) {
                out += ", weft::rt::slice(" + expr(*e.args[a]) + ", " + expr(*e.args[a + 1]) + ", " + expr(*e.args[a + 2]) + ")";
                a += 3;
            } else {
                out += ", " + expr(*e.args[a++]);
            }
        }
        return out + ")";
    }

    /// The source component of a Gather's k-th result component: ".c[i]" or ".c[r].c[c]".
    std::string gather_source(const Expr &e, std::size_t k) {
        const auto &pos = e.value->int_components;
        if (e.args[0]->type.kind() != Type::Kind::Matrix) return ".c[" + ir::to_string(pos[k]) + "]";
        auto at = [&](ir::IntValue p, int extent) {
            if (p >= 0) return ir::to_string(p);
            return "weft::rt::wrap(" + expr(*e.args[1]) + ", " + std::to_string(extent) + ")";
        };
        return ".c[" + at(pos[2 * k], e.args[0]->type.rows()) + "].c[" + at(pos[2 * k + 1], e.args[0]->type.cols()) + "]";
    }
    static std::size_t gather_count(const Expr &e) {
        const std::size_t n = e.value->int_components.size();
        return e.args[0]->type.kind() == Type::Kind::Matrix ? n / 2 : n;
    }
    /// The k-th component of a Gather's result type (vector or matrix).
    static std::string result_component(const Type &t, std::size_t k) {
        if (t.kind() == Type::Kind::Matrix)
            return ".c[" + std::to_string(k / static_cast<std::size_t>(t.cols())) + "].c[" +
                   std::to_string(k % static_cast<std::size_t>(t.cols())) + "]";
        return ".c[" + std::to_string(k) + "]";
    }
    std::string gather(const Expr &e) {
        const std::string base = expr(*e.args[0]);
        std::string out = type(e.type) + "(";
        for (std::size_t k = 0; k < gather_count(e); ++k) out += (k ? ", " : "") + base + gather_source(e, k);
        return out + ")";
    }

    std::string lvalue(const Expr &e) {
        switch (e.kind) {
        case K::Local: return local(e.index);
        case K::Param: return param(e.index);
        case K::Field: return lvalue(*e.args[0]) + component(e);
        case K::Index:
            if (e.args[0]->type.kind() == Type::Kind::Array) return array_element(e);
            if (e.args.size() == 3) return lvalue(*e.args[0]) + ".c[" + expr(*e.args[1]) + "].c[" + expr(*e.args[2]) + "]";
            return lvalue(*e.args[0]) + subscript(e);
        default: throw InternalError("generate_cpp: not an lvalue");
        }
    }

    std::string expr(const Expr &e) {
        switch (e.kind) {
        case K::Literal: return constant_value(*e.value);
        case K::String: return c_string(e.name);
        case K::Local: return local(e.index);
        case K::Param: return param(e.index);
        case K::Constant: return constant_function(e.name) + "()";
        case K::Builtin: return e.overload->native_namespace + e.overload->native_function + "(" + args(e) + ")";
        case K::Call: return e.name + (replay_ ? "_rep" : "") + "<weft_contig_>(weft_t_" + (e.args.empty() ? "" : ", " + args(e)) + ")";
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
            return expr(*e.args[0]) + subscript(e);
        case K::Shape: return "weft::int32(" + expr(*e.args[0]) + ".shape[" + std::to_string(e.index) + "])";
        case K::View: return view(e, expr(*e.args[0]));
        case K::Gather: return gather(e);
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
        const std::string checked_where = where + ", weft_t_.idx"; // an atomic's bounds failure names the thread
        switch (e.intrinsic) {
        case I::Tid: return "weft::int32(weft_t_.idx)";
        case I::Len: return "weft::len(" + args(e) + ")";
        case I::Select: return "weft::select(" + args(e) + ")";
        case I::Where: return "weft::where(" + args(e) + ")";
        case I::AtomicAdd: return atomic_call("atomic_add", e, checked_where);
        case I::AtomicSub: return atomic_call("atomic_sub", e, checked_where);
        case I::AtomicMin: return atomic_call("atomic_min", e, checked_where);
        case I::AtomicMax: return atomic_call("atomic_max", e, checked_where);
        case I::Print: return "weft::print(" + args(e) + ")";
        case I::ExpectEq: return "weft::expect_eq(" + args(e) + ", " + where + ")";
        // Release builds drop the check (the condition's effects, if any, still happen).
        case I::Assert: return codegen_.bounds_checks ? "weft::assert_true(" + args(e) + ", " + where + ")" : "(void)0";
        case I::ExpectNeq: return "weft::expect_neq(" + args(e) + ", " + where + ")";
        case I::ExpectNear:
            return "weft::expect_near(" + args(e) + (e.args.size() == 2 ? ", 1e-6f" : "") + ", " + where + ")";
        case I::Identity:
            return "weft::identity<" + std::to_string(e.type.rows()) + ", " + cpp_type(Type::scalar(e.type.scalar_type())) +
                   ">()";
        case I::TransformIdentity: return "weft::transform_identity<" + cpp_type(Type::scalar(e.type.scalar_type())) + ">()";
        case I::QuatIdentity: return "weft::quat_identity<" + cpp_type(Type::scalar(e.type.scalar_type())) + ">()";
        }
        throw InternalError("generate_cpp: unknown intrinsic");
    }
};

} // namespace weft::codegen::detail
