// Lowered IR -> one C++ translation unit. The emitter trusts the lowered
// form's rules (verify_lowered): operands are atoms, statements compute one
// operation, store targets are lvalue paths.
#include "weft/codegen/cpp_emitter.hpp"

#include "emitter.hpp"

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


std::string cpp_type(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar: return t.is_bool() ? "bool" : "weft::" + std::string(scalar_name(t.scalar_type()));
    // The runtime's typedefs (vec3, mat33d, ...) cover 2-4 components; user
    // vector and matrix types (wp.types.vector / wp.types.matrix) spell the template.
    case Type::Kind::Vector:
        if (t.rows() < 2 || t.rows() > 4)
            return "weft::vec_t<" + std::to_string(t.rows()) + ", " + cpp_type(Type::scalar(t.scalar_type())) + ">";
        return "weft::" + t.name();
    case Type::Kind::Matrix:
        if (t.rows() < 2 || t.rows() > 4 || t.cols() < 2 || t.cols() > 4)
            return "weft::mat_t<" + std::to_string(t.rows()) + ", " + std::to_string(t.cols()) + ", " +
                   cpp_type(Type::scalar(t.scalar_type())) + ">";
        return "weft::" + t.name();
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return "weft::" + t.name();
    case Type::Kind::Native: return t.native_name();
    case Type::Kind::Array:
        return std::string(t.is_indexed_array() ? "weft::indexedarray_t<" : "weft::array_t<") + cpp_type(t.element()) + ">";
    case Type::Kind::Struct: return "ws_" + t.layout().name;
    case Type::Kind::Tuple: return "weft_tuple_" + detail::hex16(detail::fnv1a(t.code()));
    case Type::Kind::Void: return "void";
    case Type::Kind::String: return "const char *";
    }
    throw InternalError("cpp_type: unknown kind");
}

GeneratedSource generate_cpp(const kernel::ir::Module &module, const ResolvedBuildOptions &options, Backend backend,
                             const CodegenOptions &codegen) {
    return detail::Emitter(module, options, backend, codegen).run();
}

} // namespace weft::codegen
