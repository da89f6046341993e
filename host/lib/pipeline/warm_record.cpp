// The text form of a warm record (WarmRecord), the one thing a warm load
// reads before its artifact. It was JSON: parsing ten_kernels' 4.4 KB record
// into a DOM and rebuilding a Type per parameter took 80 us on a warm cache
// and about 0.17 ms in a new process, a quarter of the whole load (issue 20).
// Now it is lines of space-separated tokens, read in one pass, and each
// distinct parameter type is written, rebuilt and checked once:
//
//   weft-warm-record 4
//   module 11:ten_kernels
//   target cpu
//   options 64:<digest>
//   plugins 1 5:geomx
//   types 2
//   type 4:a1f4 64 a 1 s float32        code, size, then the type's tokens
//   type 2:f4 4 s float32
//   compiled 11:ten_kernels <hash> 1    module, full hash, kernel count
//   kernel 5:saxpy 0: 12:wk5saxpy_cpu 1 1 0 0 0 0 0 0: 3
//                                       name, key, symbol, tid_dims,
//                                       strided_section, external, loops, tiled, serial, no_backward,
//                                       private gradient count and indices,
//                                       params
//   param 1:x 0                         name, index into the types
//   end
//
// Strings are length-prefixed (LEN:BYTES), so no name needs escaping. Types,
// prefix-written: s SCALAR | v SCALAR N | m SCALAR R C | q SCALAR |
// t SCALAR | n NAME CODE SIZE ALIGN | a NDIM T | x NDIM T (indexedarray) |
// S NAME N (FIELD T)... | T N T... | void | string.
//
// The record is signed by the cache and written only by weft, but it is read
// as untrusted input all the same: anything unexpected is a UserError, which
// the load takes for a miss.
#include "weft/pipeline/pipeline.hpp"

#include "weft/support/error.hpp"

#include <charconv>
#include <limits>
#include <unordered_map>

namespace weft::pipeline {

namespace {

constexpr std::string_view record_magic = "weft-warm-record";
constexpr int record_format = 8; // 2: the modules of unique kernels; 3: strided copies; 4: this text form; 5: loops, private gradients; 6: tiled; 7: no_backward; 8: serial
constexpr int max_type_depth = 32;
constexpr std::size_t max_count = 1 << 20;

[[noreturn]] void bad(const std::string &why) { throw UserError("warm record: " + why); }

// --- writing -----------------------------------------------------------------

void put_string(std::string &out, std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
}

void put_type(std::string &out, const Type &t) {
    const auto scalar = [&](const char *kind) {
        out += kind;
        out += ' ';
        out += scalar_name(t.scalar_type());
    };
    switch (t.kind()) {
    case Type::Kind::Scalar: return scalar("s");
    case Type::Kind::Vector:
        scalar("v");
        out += ' ' + std::to_string(t.rows());
        return;
    case Type::Kind::Matrix:
        scalar("m");
        out += ' ' + std::to_string(t.rows()) + ' ' + std::to_string(t.cols());
        return;
    case Type::Kind::Quaternion: return scalar("q");
    case Type::Kind::Transform: return scalar("t");
    case Type::Kind::Native:
        out += "n ";
        put_string(out, t.native_name());
        out += ' ';
        put_string(out, t.code());
        out += ' ' + std::to_string(t.size()) + ' ' + std::to_string(t.alignment());
        return;
    case Type::Kind::Array:
        out += t.is_indexed_array() ? "x " : "a ";
        out += std::to_string(t.ndim()) + ' ';
        return put_type(out, t.element());
    case Type::Kind::Struct:
        out += "S ";
        put_string(out, t.layout().name);
        out += ' ' + std::to_string(t.layout().fields.size());
        for (const StructLayout::Field &f : t.layout().fields) {
            out += ' ';
            put_string(out, f.name);
            out += ' ';
            put_type(out, f.type);
        }
        return;
    case Type::Kind::Tuple:
        out += "T " + std::to_string(t.elements().size());
        for (const Type &e : t.elements()) {
            out += ' ';
            put_type(out, e);
        }
        return;
    case Type::Kind::Void: out += "void"; return;
    case Type::Kind::String: out += "string"; return;
    case Type::Kind::Tile: break; // kernel locals only: never a parameter
    }
    throw InternalError("warm record: unknown type kind");
}

// --- reading -----------------------------------------------------------------

/// One pass over the record's tokens. Every read names what it expected in
/// its error, so a bad record's log line says where it went wrong.
class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    /// The next space- or newline-ended token (the separator is consumed).
    std::string_view word(const char *what) {
        const std::size_t start = at_;
        while (at_ < text_.size() && text_[at_] != ' ' && text_[at_] != '\n') ++at_;
        if (at_ == start) bad(std::string("expected ") + what);
        const std::string_view w = text_.substr(start, at_ - start);
        separator(what);
        return w;
    }

    void keyword(const char *expected) {
        if (word(expected) != expected) bad("expected '" + std::string(expected) + "'");
    }

    template <class T> T number(const char *what, T lo, T hi) {
        const std::string_view w = word(what);
        T v{};
        const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
        if (ec != std::errc() || end != w.data() + w.size() || v < lo || v > hi)
            bad(std::string(what) + " '" + std::string(w.substr(0, 32)) + "' is not a number in range");
        return v;
    }

    /// A LEN:BYTES string.
    std::string_view string(const char *what) {
        const std::size_t colon = text_.find(':', at_);
        if (colon == std::string_view::npos || colon == at_ || colon - at_ > 9) bad(std::string("expected ") + what);
        std::size_t length = 0;
        const auto [end, ec] = std::from_chars(text_.data() + at_, text_.data() + colon, length);
        if (ec != std::errc() || end != text_.data() + colon || length > text_.size() - colon - 1)
            bad(std::string(what) + ": bad length");
        const std::string_view s = text_.substr(colon + 1, length);
        at_ = colon + 1 + length;
        separator(what);
        return s;
    }

    Type type(int depth = 0) {
        if (depth > max_type_depth) bad("types nested too deeply");
        const std::string_view kind = word("a type");
        if (kind == "s") return Type::scalar(scalar());
        if (kind == "v") {
            const Scalar s = scalar();
            return Type::vector(s, number("vector length", 1, 64));
        }
        if (kind == "m") {
            const Scalar s = scalar();
            const int rows = number("matrix rows", 1, 64);
            return Type::matrix(s, rows, number("matrix cols", 1, 64));
        }
        if (kind == "q") return Type::quaternion(scalar());
        if (kind == "t") return Type::transform(scalar());
        if (kind == "n") {
            std::string name(string("a native type name"));
            std::string code(string("a native type code"));
            const auto size = number<std::uint64_t>("a native type size", 1, std::uint64_t(1) << 32);
            return Type::native(std::move(name), std::move(code), size,
                                number<std::uint64_t>("a native type alignment", 1, 4096));
        }
        if (kind == "a" || kind == "x") {
            const int ndim = number("ndim", 1, 4);
            const Type dtype = type(depth + 1);
            return kind == "a" ? Type::array(dtype, ndim) : Type::indexed_array(dtype, ndim);
        }
        if (kind == "S") {
            std::string name(string("a struct name"));
            const std::size_t n = number<std::size_t>("a field count", 0, 4096);
            std::vector<StructLayout::Field> fields;
            fields.reserve(n);
            for (std::size_t i = 0; i < n; ++i) {
                std::string field(string("a field name"));
                fields.push_back({std::move(field), type(depth + 1), 0});
            }
            return Type::structure(StructLayout::make(std::move(name), std::move(fields)));
        }
        if (kind == "T") {
            const std::size_t n = number<std::size_t>("an element count", 0, 4096);
            std::vector<Type> elements;
            elements.reserve(n);
            for (std::size_t i = 0; i < n; ++i) elements.push_back(type(depth + 1));
            return Type::tuple(std::move(elements));
        }
        if (kind == "void") return Type::void_type();
        if (kind == "string") return Type::string();
        bad("unknown type kind '" + std::string(kind.substr(0, 32)) + "'");
    }

    /// The line ended here (its last token's separator was a newline).
    void end_of_line(const char *what) {
        if (at_ == 0 || text_[at_ - 1] != '\n') bad(std::string("trailing tokens after ") + what);
    }
    bool at_end() const { return at_ == text_.size(); }

private:
    Scalar scalar() {
        const std::optional<Scalar> s = parse_scalar(word("a scalar type"));
        if (!s) bad("unknown scalar type");
        return *s;
    }
    void separator(const char *what) {
        if (at_ == text_.size()) bad(std::string("the record ends after ") + what);
        if (text_[at_] != ' ' && text_[at_] != '\n') bad(std::string("no separator after ") + what);
        ++at_;
    }

    std::string_view text_;
    std::size_t at_ = 0;
};

} // namespace

std::string WarmRecord::serialize() const {
    // The distinct parameter types, by code (equal codes are equal types).
    std::vector<const Type *> types;
    std::unordered_map<std::string, std::size_t> type_index;
    for (const Compiled &c : modules)
        for (const codegen::KernelEntry &k : c.kernels)
            for (const auto &param : k.params)
                if (type_index.emplace(param.type.code(), types.size()).second) types.push_back(&param.type);

    std::string out;
    out.reserve(1024);
    out += std::string(record_magic) + ' ' + std::to_string(record_format) + '\n';
    out += "module ";
    put_string(out, module);
    out += "\ntarget " + target.str() + "\noptions ";
    put_string(out, options_digest);
    out += "\nplugins " + std::to_string(plugins.size());
    for (const std::string &p : plugins) {
        out += ' ';
        put_string(out, p);
    }
    out += "\ntypes " + std::to_string(types.size()) + '\n';
    for (const Type *t : types) {
        out += "type ";
        put_string(out, t->code());
        out += ' ' + std::to_string(t->size()) + ' ';
        put_type(out, *t);
        out += '\n';
    }
    for (const Compiled &c : modules) {
        out += "compiled ";
        put_string(out, c.module);
        out += ' ' + c.hash + ' ' + std::to_string(c.kernels.size()) + '\n';
        for (const codegen::KernelEntry &k : c.kernels) {
            out += "kernel ";
            put_string(out, k.name);
            out += ' ';
            put_string(out, k.key);
            out += ' ';
            put_string(out, k.symbol);
            out += ' ' + std::to_string(k.tid_dims) + ' ' + std::to_string(k.strided_section) + ' ' +
                   (k.abi == kernel::ir::EntryPointAbi::ExternalConstantParams ? "1" : "0") + ' ' + (k.loops ? "1" : "0") +
                   ' ' + (k.tiled ? "1" : "0") + ' ' + (k.serial ? "1" : "0") + ' ';
            put_string(out, k.no_backward);
            out += ' ' + std::to_string(k.private_gradients.size());
            for (int p : k.private_gradients) out += ' ' + std::to_string(p);
            out += ' ' + std::to_string(k.params.size()) + '\n';
            for (const auto &[name, type] : k.params) {
                out += "param ";
                put_string(out, name);
                out += ' ' + std::to_string(type_index.at(type.code())) + '\n';
            }
        }
    }
    out += "end\n";
    return out;
}

WarmRecord WarmRecord::parse(const std::string &text) {
    Reader in(text);
    if (in.word("the record's first line") != record_magic) bad("not a warm record (or one of an older format)");
    if (in.number("the format", 0, std::numeric_limits<int>::max()) != record_format) bad("another format");
    in.end_of_line("the format");

    WarmRecord r;
    in.keyword("module");
    r.module = in.string("the module name");
    in.end_of_line("the module");
    in.keyword("target");
    r.target = Target::parse(std::string(in.word("the target")));
    in.end_of_line("the target");
    in.keyword("options");
    r.options_digest = in.string("the options digest");
    in.end_of_line("the options digest");
    in.keyword("plugins");
    const std::size_t plugin_count = in.number<std::size_t>("the plugin count", 0, max_count);
    for (std::size_t i = 0; i < plugin_count; ++i) r.plugins.emplace_back(in.string("a plugin name"));
    in.end_of_line("the plugins");

    // Each type is rebuilt once, and must be the one recorded, layout included.
    in.keyword("types");
    const std::size_t type_count = in.number<std::size_t>("the type count", 0, max_count);
    std::vector<Type> types;
    types.reserve(type_count);
    for (std::size_t i = 0; i < type_count; ++i) {
        in.keyword("type");
        const std::string_view code = in.string("a type code");
        const auto size = in.number<std::uint64_t>("a type size", 0, std::numeric_limits<std::uint64_t>::max());
        Type t = in.type();
        in.end_of_line("a type");
        if (t.code() != code || t.size() != size)
            bad("type " + std::to_string(i) + " does not rebuild to its recorded code and size");
        types.push_back(std::move(t));
    }

    for (std::string_view line = in.word("'compiled' or 'end'"); line != "end"; line = in.word("'compiled' or 'end'")) {
        if (line != "compiled") bad("expected 'compiled' or 'end'");
        Compiled m;
        m.module = in.string("a compiled module's name");
        m.hash = in.word("a module hash");
        if (m.hash.size() != 64 || m.hash.find_first_not_of("0123456789abcdef") != std::string::npos)
            bad("the module hash is not a full-width digest");
        const std::size_t kernel_count = in.number<std::size_t>("the kernel count", 0, max_count);
        in.end_of_line("a compiled module");
        m.kernels.reserve(kernel_count);
        for (std::size_t k = 0; k < kernel_count; ++k) {
            in.keyword("kernel");
            codegen::KernelEntry e;
            e.name = in.string("a kernel name");
            e.key = in.string("a kernel key");
            e.symbol = in.string("a kernel symbol");
            e.tid_dims = in.number("tid_dims", 0, 4);
            e.strided_section = in.number("strided_section", 0, 1 << 20);
            e.abi = in.number("external", 0, 1) == 1 ? kernel::ir::EntryPointAbi::ExternalConstantParams
                                                    : kernel::ir::EntryPointAbi::Warp;
            e.loops = in.number("loops", 0, 1) == 1;
            e.tiled = in.number("tiled", 0, 1) == 1;
            e.serial = in.number("serial", 0, 1) == 1;
            e.no_backward = in.string("a kernel's reason for no backward pass");
            const std::size_t private_count = in.number<std::size_t>("the private gradient count", 0, 4096);
            for (std::size_t i = 0; i < private_count; ++i) e.private_gradients.push_back(in.number("a private gradient", 0, 8191));
            const std::size_t param_count = in.number<std::size_t>("the parameter count", 0, 4096);
            in.end_of_line("a kernel");
            e.params.reserve(param_count);
            for (std::size_t p = 0; p < param_count; ++p) {
                in.keyword("param");
                std::string name(in.string("a parameter name"));
                const std::size_t type = in.number<std::size_t>("a parameter's type", 0, max_count);
                in.end_of_line("a parameter");
                if (type >= types.size()) bad("parameter '" + name + "' names type " + std::to_string(type) + " of " +
                                              std::to_string(types.size()));
                e.params.push_back({std::move(name), types[type]});
            }
            for (int g : e.private_gradients)
                if (static_cast<std::size_t>(g) >= e.params.size() ||
                    e.params[static_cast<std::size_t>(g)].type.kind() != Type::Kind::Array)
                    bad("kernel '" + e.name + "': private gradient " + std::to_string(g) + " is not an array parameter");
            m.kernels.push_back(std::move(e));
        }
        r.modules.push_back(std::move(m));
    }
    in.end_of_line("'end'");
    if (!in.at_end()) bad("bytes after 'end'");
    if (r.modules.empty()) bad("no compiled module");
    return r;
}

} // namespace weft::pipeline
