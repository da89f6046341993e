#include "weft/registry/types.hpp"

#include "weft/support/error.hpp"

#include <array>

namespace weft {

namespace {
struct ScalarRow {
    Scalar scalar;
    std::string_view name;
    std::uint64_t size;
    std::string_view code;
};
constexpr std::array<ScalarRow, 13> scalar_rows{{
    {Scalar::Bool, "bool", 1, "b1"},
    {Scalar::Int8, "int8", 1, "i1"},
    {Scalar::Int16, "int16", 2, "i2"},
    {Scalar::Int32, "int32", 4, "i4"},
    {Scalar::Int64, "int64", 8, "i8"},
    {Scalar::UInt8, "uint8", 1, "u1"},
    {Scalar::UInt16, "uint16", 2, "u2"},
    {Scalar::UInt32, "uint32", 4, "u4"},
    {Scalar::UInt64, "uint64", 8, "u8"},
    {Scalar::Float16, "float16", 2, "f2"},
    {Scalar::BFloat16, "bfloat16", 2, "bf2"},
    {Scalar::Float32, "float32", 4, "f4"},
    {Scalar::Float64, "float64", 8, "f8"},
}};

const ScalarRow &row(Scalar s) { return scalar_rows.at(static_cast<std::size_t>(s)); }

std::string_view strip_module_prefix(std::string_view name) {
    if (name.empty() || name[0] != 'w') return name; // the common case, without comparing
    for (std::string_view prefix : {"wp.", "warp."})
        if (name.substr(0, prefix.size()) == prefix) return name.substr(prefix.size());
    return name;
}

/// Suffix letter of a vector/matrix/quaternion name -> its scalar ("" = float32).
std::optional<Scalar> suffix_scalar(std::string_view suffix) {
    if (suffix.empty() || suffix == "f") return Scalar::Float32;
    if (suffix == "d") return Scalar::Float64;
    if (suffix == "h") return Scalar::Float16;
    if (suffix == "i") return Scalar::Int32;
    return std::nullopt;
}

/// Warp's vector suffixes for the other integers (vec3ui, vec2l, vec4ub, ...):
/// vectors only, as in Warp.
std::optional<Scalar> vector_suffix_scalar(std::string_view suffix) {
    if (auto s = suffix_scalar(suffix)) return s;
    static constexpr std::pair<std::string_view, Scalar> more[] = {
        {"b", Scalar::Int8},   {"ub", Scalar::UInt8}, {"s", Scalar::Int16},  {"us", Scalar::UInt16},
        {"ui", Scalar::UInt32}, {"l", Scalar::Int64},  {"ul", Scalar::UInt64},
    };
    for (const auto &[text, scalar] : more)
        if (suffix == text) return scalar;
    return std::nullopt;
}
} // namespace

std::string_view scalar_name(Scalar s) { return row(s).name; }
std::uint64_t scalar_size(Scalar s) { return row(s).size; }
bool is_half_precision(Scalar s) { return s == Scalar::Float16 || s == Scalar::BFloat16; }

std::optional<Scalar> parse_scalar(std::string_view name) {
    name = strip_module_prefix(name);
    // Python's builtin names mean what they mean in Warp kernels.
    if (name == "int") return Scalar::Int32;
    if (name == "float") return Scalar::Float32;
    if (name == "half") return Scalar::Float16;
    for (const ScalarRow &r : scalar_rows)
        if (r.name == name) return r.scalar;
    return std::nullopt;
}

Type Type::scalar(Scalar s) {
    Type t;
    t.kind_ = Kind::Scalar;
    t.scalar_ = s;
    return t;
}

Type Type::vector(Scalar s, int length) {
    Type t = scalar(s);
    t.kind_ = Kind::Vector;
    t.rows_ = length;
    return t;
}

Type Type::matrix(Scalar s, int rows, int cols) {
    Type t = scalar(s);
    t.kind_ = Kind::Matrix;
    t.rows_ = rows;
    t.cols_ = cols;
    return t;
}

Type Type::quaternion(Scalar s) {
    Type t = scalar(s);
    t.kind_ = Kind::Quaternion;
    t.rows_ = 4;
    return t;
}

Type Type::transform(Scalar s) {
    Type t = scalar(s);
    t.kind_ = Kind::Transform;
    t.rows_ = 7;
    return t;
}

Type Type::native(std::string native_name, std::string code, std::uint64_t size, std::uint64_t alignment) {
    Type t;
    t.kind_ = Kind::Native;
    t.detail_ = std::make_shared<const NativeInfo>(NativeInfo{std::move(native_name), std::move(code), size, alignment});
    return t;
}

// Types are copied by the million (every expression the checker types, every
// parameter of every builtin): one word of header and one shared pointer.
static_assert(sizeof(void *) != 8 || sizeof(Type) == 32, "Type grew: see the comment on Type::detail_");

bool Type::is_differentiable_native() const {
    if (kind_ != Kind::Native) return false;
    const std::string &c = static_cast<const NativeInfo *>(detail_.get())->code;
    return c.size() > 2 && c[0] == 'n' && c[1] == 'd';
}

const std::string &Type::native_name() const {
    static const std::string none;
    return kind_ == Kind::Native ? native_info().name : none;
}

void Type::wrong_kind() const {
    throw InternalError("Type: a " + name() + " has no elements, layout or native record of that kind");
}

Type Type::array(const Type &dtype, int ndim) {
    Type t;
    t.kind_ = Kind::Array;
    t.rows_ = ndim;
    t.detail_ = std::make_shared<const std::vector<Type>>(std::vector<Type>{dtype});
    return t;
}

Type Type::indexed_array(const Type &dtype, int ndim) {
    Type t = array(dtype, ndim);
    t.indexed_ = true;
    return t;
}

Type Type::structure(std::shared_ptr<const StructLayout> layout) {
    Type t;
    t.kind_ = Kind::Struct;
    t.detail_ = std::move(layout);
    return t;
}

Type Type::tuple(std::vector<Type> elements) {
    Type t;
    t.kind_ = Kind::Tuple;
    t.detail_ = std::make_shared<const std::vector<Type>>(std::move(elements));
    return t;
}

Type Type::tile(const Type &dtype, int rows, int cols) {
    Type t;
    t.kind_ = Kind::Tile;
    t.scalar_ = dtype.kind() == Kind::Scalar || dtype.kind() == Kind::Vector || dtype.kind() == Kind::Matrix
                    ? dtype.scalar_type()
                    : Scalar::Float32;
    t.rows_ = rows;
    t.cols_ = cols;
    t.detail_ = std::make_shared<const std::vector<Type>>(std::vector<Type>{dtype});
    return t;
}

Type Type::void_type() {
    Type t;
    t.kind_ = Kind::Void;
    return t;
}

Type Type::string() {
    Type t;
    t.kind_ = Kind::String;
    return t;
}

bool Type::is_float() const {
    return kind_ == Kind::Scalar && (is_half_precision(scalar_) || scalar_ == Scalar::Float32 || scalar_ == Scalar::Float64);
}

bool Type::is_integer() const { return kind_ == Kind::Scalar && !is_float() && scalar_ != Scalar::Bool; }

namespace {
std::string suffix_for(Scalar s) {
    switch (s) {
    case Scalar::Float32: return "";
    case Scalar::Float64: return "d";
    case Scalar::Float16: return "h";
    case Scalar::Int32: return "i";
    default: return std::string("_") + std::string(scalar_name(s));
    }
}
/// Vectors of the other integers go by Warp's names (vec3ui, vec2l, ...).
std::string vector_suffix_for(Scalar s) {
    switch (s) {
    case Scalar::Int8: return "b";
    case Scalar::UInt8: return "ub";
    case Scalar::Int16: return "s";
    case Scalar::UInt16: return "us";
    case Scalar::UInt32: return "ui";
    case Scalar::Int64: return "l";
    case Scalar::UInt64: return "ul";
    default: return suffix_for(s);
    }
}
} // namespace

std::string Type::name() const {
    switch (kind_) {
    case Kind::Scalar: return std::string(scalar_name(scalar_));
    case Kind::Vector: return "vec" + std::to_string(rows_) + vector_suffix_for(scalar_);
    case Kind::Matrix:
        // Ten or more rows or columns (user matrix types) need a separator.
        return "mat" + std::to_string(rows_) + (rows_ >= 10 || cols_ >= 10 ? "x" : "") + std::to_string(cols_) +
               suffix_for(scalar_);
    case Kind::Quaternion: return "quat" + suffix_for(scalar_);
    case Kind::Transform: return "transform" + suffix_for(scalar_);
    case Kind::Native: return native_info().name;
    case Kind::Array:
        return std::string(indexed_ ? "indexedarray" : "array") + "(dtype=" + element().name() +
               (rows_ == 1 ? "" : ", ndim=" + std::to_string(rows_)) + ")";
    case Kind::Struct: return layout().name;
    case Kind::Tuple: {
        std::string out = "tuple(";
        for (std::size_t i = 0; i < elements().size(); ++i) out += (i ? ", " : "") + elements()[i].name();
        return out + ")";
    }
    case Kind::Void: return "void";
    case Kind::String: return "str";
    case Kind::Tile:
        return "tile(dtype=" + element().name() + ", shape=(" + std::to_string(rows_) +
               (cols_ ? ", " + std::to_string(cols_) : std::string(",")) + "))";
    }
    throw InternalError("Type::name: unknown kind");
}

std::string Type::code() const {
    const std::string s(row(scalar_).code);
    switch (kind_) {
    case Kind::Scalar: return s;
    case Kind::Vector: return "v" + std::to_string(rows_) + s;
    case Kind::Matrix:
        return "m" + std::to_string(rows_) + (rows_ >= 10 || cols_ >= 10 ? "x" : "") + std::to_string(cols_) + s;
    case Kind::Quaternion: return "q" + s;
    case Kind::Transform: return "T" + s;
    case Kind::Native: return native_info().code;
    case Kind::Array: return (indexed_ ? "x" : "a") + std::to_string(rows_) + element().code();
    case Kind::Struct: {
        // Structurally: a struct is its name and its fields' names and codes.
        std::string out = "s" + std::to_string(layout().name.size()) + layout().name + "{";
        for (const StructLayout::Field &f : layout().fields) out += f.name + ":" + f.type.code() + ";";
        return out + "}";
    }
    case Kind::Tuple: {
        std::string out = "t(";
        for (const Type &e : elements()) out += e.code() + ",";
        return out + ")";
    }
    case Kind::Void: return "V";
    case Kind::String: return "S";
    case Kind::Tile: return "L" + std::to_string(rows_) + "_" + std::to_string(cols_) + element().code();
    }
    throw InternalError("Type::code: unknown kind");
}

bool operator==(const Type &a, const Type &b) {
    // Mirrors code(): what code() leaves out (a native type's name and layout,
    // a struct's offsets) is left out here too.
    if (a.kind_ != b.kind_) return false;
    switch (a.kind_) {
    case Type::Kind::Scalar:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return a.scalar_ == b.scalar_;
    case Type::Kind::Vector: return a.scalar_ == b.scalar_ && a.rows_ == b.rows_;
    case Type::Kind::Matrix: return a.scalar_ == b.scalar_ && a.rows_ == b.rows_ && a.cols_ == b.cols_;
    case Type::Kind::Native: return a.detail_ == b.detail_ || a.native_info().code == b.native_info().code;
    case Type::Kind::Array: return a.rows_ == b.rows_ && a.indexed_ == b.indexed_ && a.element() == b.element();
    case Type::Kind::Struct: {
        if (a.detail_ == b.detail_) return true;
        const StructLayout &x = a.layout(), &y = b.layout();
        if (x.name != y.name || x.fields.size() != y.fields.size()) return false;
        for (std::size_t i = 0; i < x.fields.size(); ++i)
            if (x.fields[i].name != y.fields[i].name || x.fields[i].type != y.fields[i].type) return false;
        return true;
    }
    case Type::Kind::Tuple: return a.detail_ == b.detail_ || a.elements() == b.elements();
    case Type::Kind::Void:
    case Type::Kind::String: return true;
    case Type::Kind::Tile: return a.rows_ == b.rows_ && a.cols_ == b.cols_ && a.element() == b.element();
    }
    throw InternalError("Type::operator==: unknown kind");
}

std::optional<Type> parse_builtin_type(std::string_view name) {
    name = strip_module_prefix(name);
    if (auto s = parse_scalar(name)) return Type::scalar(*s);

    auto digit = [](char c) { return c >= '2' && c <= '4'; };
    if (name.size() >= 4 && name.substr(0, 3) == "vec" && digit(name[3])) {
        if (auto s = vector_suffix_scalar(name.substr(4))) return Type::vector(*s, name[3] - '0');
        return std::nullopt;
    }
    if (name.size() >= 5 && name.substr(0, 3) == "mat" && digit(name[3]) && digit(name[4])) {
        if (auto s = suffix_scalar(name.substr(5)); s && *s != Scalar::Int32)
            return Type::matrix(*s, name[3] - '0', name[4] - '0');
        return std::nullopt;
    }
    if (name.substr(0, 4) == "quat") {
        if (auto s = suffix_scalar(name.substr(4)); s && *s != Scalar::Int32) return Type::quaternion(*s);
        return std::nullopt;
    }
    if (name.substr(0, 9) == "transform") {
        if (auto s = suffix_scalar(name.substr(9)); s && *s != Scalar::Int32) return Type::transform(*s);
        return std::nullopt;
    }
    // Warp's spatial types are its 6-vectors and 6x6 matrices under other names.
    if (name.substr(0, 14) == "spatial_vector") {
        if (auto s = suffix_scalar(name.substr(14)); s && *s != Scalar::Int32) return Type::vector(*s, 6);
        return std::nullopt;
    }
    if (name.substr(0, 14) == "spatial_matrix") {
        if (auto s = suffix_scalar(name.substr(14)); s && *s != Scalar::Int32) return Type::matrix(*s, 6, 6);
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<ArrayTypeName> parse_array_type_name(std::string_view name) {
    const std::string written(name);
    name = strip_module_prefix(name);
    if (name.substr(0, 5) != "array") return std::nullopt;
    std::string_view rest = name.substr(5);
    ArrayTypeName out;
    // Warp's array1d ... array4d fix the dimension in the name.
    bool have_ndim = false;
    if (rest.size() >= 2 && rest[0] >= '1' && rest[0] <= '4' && rest[1] == 'd') {
        out.ndim = rest[0] - '0';
        have_ndim = true;
        rest.remove_prefix(2);
    }
    auto bad = [&](const std::string &why) {
        return RegistrationError(RegistrationError::Kind::UnknownType,
                                 "unknown kernel type '" + written + "': " + why);
    };
    if (rest.empty() || rest.front() != '(' || rest.back() != ')') {
        if (rest.empty() || rest.front() != '(') return std::nullopt; // "arrayish", a native name
        throw bad("expected array(dtype=T, ndim=N)");
    }
    rest = rest.substr(1, rest.size() - 2);
    auto trim = [](std::string_view s) {
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
        while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
        return s;
    };
    bool have_dtype = false;
    int position = 0;
    while (!rest.empty() || position == 0) {
        const auto comma = rest.find(',');
        std::string_view arg = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        const auto eq = arg.find('=');
        std::string_view key = eq == std::string_view::npos ? std::string_view() : trim(arg.substr(0, eq));
        std::string_view value = eq == std::string_view::npos ? arg : trim(arg.substr(eq + 1));
        if (key.empty()) key = position == 0 ? "dtype" : position == 1 ? "ndim" : "";
        if (key == "dtype" && !have_dtype && !value.empty()) {
            out.dtype = std::string(value);
            have_dtype = true;
        } else if (key == "ndim" && !have_ndim && value.size() == 1 && value[0] >= '1' && value[0] <= '4') {
            out.ndim = value[0] - '0';
            have_ndim = true;
        } else if (key == "ndim") {
            throw bad(have_ndim ? "ndim given twice" : "ndim must be 1 to 4");
        } else {
            throw bad("expected array(dtype=T, ndim=N)");
        }
        ++position;
        if (comma == std::string_view::npos) break;
    }
    if (!have_dtype) throw bad("no dtype");
    return out;
}

std::string normalize_native_name(std::string_view name) {
    std::string out;
    out.reserve(name.size() + 4);
    for (char c : name) {
        if (c == '.')
            out += "::";
        else
            out += c;
    }
    return out;
}

bool is_value_type(const Type &t) {
    switch (t.kind()) {
    case Type::Kind::Scalar:
    case Type::Kind::Vector:
    case Type::Kind::Matrix:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform:
    case Type::Kind::Native:
    case Type::Kind::Struct: return t.size() != 0;
    default: return false;
    }
}

} // namespace weft
