// Lowered IR -> one C++ translation unit. The emitter trusts the lowered
// form's rules (verify_lowered): operands are atoms, statements compute one
// operation, store targets are lvalue paths.
#include "weft/codegen/cpp_emitter.hpp"

#include "emitter.hpp"
#include "weft/support/sha256.hpp"

#include <cstdio>

namespace weft::codegen {

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

std::string without_line_numbers(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    constexpr std::string_view directive = "#line ";
    for (std::size_t at = 0; at < text.size();) {
        std::size_t end = text.find('\n', at);
        end = end == std::string_view::npos ? text.size() : end + 1;
        std::string_view line = text.substr(at, end - at);
        if (line.substr(0, directive.size()) == directive) {
            std::size_t digits = directive.size();
            while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
            out += directive;
            line.remove_prefix(digits);
        }
        out += line;
        at = end;
    }
    return out;
}

std::string kernel_signature_digest(const std::vector<KernelEntry> &kernels) {
    Sha256 h;
    h.field("weft.kernel-signatures.v2").field(std::to_string(kernels.size()));
    for (const KernelEntry &k : kernels) {
        h.field(k.name).field(k.key).field(k.symbol).field(std::to_string(k.tid_dims));
        // What a launch must do for the code to be right (plain adds into private copies).
        std::string privates = std::string(k.loops ? "loops" : "") + (k.serial ? " serial" : "");
        for (int p : k.private_gradients) privates += " " + std::to_string(p);
        h.field(privates);
        h.field(std::to_string(static_cast<int>(k.abi))).field(std::to_string(k.params.size()));
        // Layouts too, beside the types' codes.
        for (const auto &[name, type] : k.params)
            h.field(name).field(type.code()).field(std::to_string(type.size())).field(std::to_string(type.alignment()));
    }
    return h.hex();
}

namespace {
/// Whether the runtime has a typedef by the type's kernel name (vec3, mat33d,
/// quath, vec4i, ...): 2 to 4 components of float32, float64 or float16, and
/// int32 vectors. Other shapes and scalars (user types of wp.types.vector /
/// wp.types.matrix, bfloat16 and integer composites) spell the template.
bool runtime_has_typedef(const Type &t) {
    const Scalar s = t.scalar_type();
    const bool float_suffix = s == Scalar::Float32 || s == Scalar::Float64 || s == Scalar::Float16;
    const auto in_range = [](int n) { return n >= 2 && n <= 4; };
    switch (t.kind()) {
    case Type::Kind::Vector: return (float_suffix || s == Scalar::Int32) && in_range(t.rows());
    case Type::Kind::Matrix: return float_suffix && in_range(t.rows()) && in_range(t.cols());
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return float_suffix;
    default: return false;
    }
}
} // namespace

std::string cpp_type(const Type &t) {
    const auto scalar_cpp = [&] { return cpp_type(Type::scalar(t.scalar_type())); };
    switch (t.kind()) {
    case Type::Kind::Scalar: return t.is_bool() ? "bool" : "weft::" + std::string(scalar_name(t.scalar_type()));
    case Type::Kind::Vector:
        if (!runtime_has_typedef(t)) return "weft::vec_t<" + std::to_string(t.rows()) + ", " + scalar_cpp() + ">";
        return "weft::" + t.name();
    case Type::Kind::Matrix:
        if (!runtime_has_typedef(t))
            return "weft::mat_t<" + std::to_string(t.rows()) + ", " + std::to_string(t.cols()) + ", " + scalar_cpp() + ">";
        return "weft::" + t.name();
    case Type::Kind::Quaternion:
        if (!runtime_has_typedef(t)) return "weft::quat_t<" + scalar_cpp() + ">";
        return "weft::" + t.name();
    case Type::Kind::Transform:
        if (!runtime_has_typedef(t)) return "weft::transform_t<" + scalar_cpp() + ">";
        return "weft::" + t.name();
    case Type::Kind::Native: return t.native_name();
    case Type::Kind::Array:
        return std::string(t.is_indexed_array() ? "weft::indexedarray_t<" : "weft::array_t<") + cpp_type(t.element()) + ">";
    case Type::Kind::Struct: return "ws_" + t.layout().name;
    case Type::Kind::Tuple: return "weft_tuple_" + detail::hex16(detail::fnv1a(t.code()));
    case Type::Kind::Void: return "void";
    case Type::Kind::String: return "const char *";
    case Type::Kind::Tile:
        return "weft::tile_t<" + cpp_type(t.element()) + ", " + std::to_string(t.tile_rows()) + ", " +
               std::to_string(t.tile_cols()) + ">";
    }
    throw InternalError("cpp_type: unknown kind");
}

GeneratedSource generate_cpp(const kernel::ir::Module &module, const ResolvedBuildOptions &options, Backend backend,
                             const CodegenOptions &codegen) {
    return detail::Emitter(module, options, backend, codegen).run();
}

} // namespace weft::codegen
