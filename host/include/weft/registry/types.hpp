// Kernel types as the registry sees them: scalars, vectors, matrices,
// quaternions, rigid transforms and plugin-registered native types. Value types; a native type
// is referred to by its qualified name and its schema type code.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

enum class Scalar : std::uint8_t {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Float16,
    BFloat16,
    Float32,
    Float64,
};

std::string_view scalar_name(Scalar s);
std::uint64_t scalar_size(Scalar s);
std::optional<Scalar> parse_scalar(std::string_view name);
/// float16 and bfloat16: 16-bit storage whose arithmetic runs in float32 and
/// rounds back, as in Warp; neither mixes with other scalars in comparisons.
bool is_half_precision(Scalar s);

/// Fields of a user struct (@wp.struct), shared by every Type that names it.
struct StructLayout;

class Type {
public:
    enum class Kind : std::uint8_t { Scalar, Vector, Matrix, Quaternion, Transform, Native, Array, Struct, Tuple, Void, String, Tile };

    static Type scalar(Scalar s);
    static Type vector(Scalar s, int length);
    static Type matrix(Scalar s, int rows, int cols);
    static Type quaternion(Scalar s);
    /// Warp's transform_t: a translation p (vec3) then a rotation q (quat), 7 components.
    static Type transform(Scalar s);
    /// A native type; `code` is its schema type code, `size`/`alignment` its layout.
    static Type native(std::string native_name, std::string code, std::uint64_t size, std::uint64_t alignment);
    /// A kernel array of `dtype` with `ndim` dimensions (1 to 4).
    static Type array(const Type &dtype, int ndim);
    /// Warp's indexedarray: an array of `dtype` and `ndim` dimensions read
    /// through an optional int32 index array per dimension (IndexedArrayLayout).
    /// Kind Array, so everything that indexes arrays indexes it; it is a type
    /// of its own (never == the plain array type).
    static Type indexed_array(const Type &dtype, int ndim);
    /// A user struct; `layout` describes its fields.
    static Type structure(std::shared_ptr<const StructLayout> layout);
    /// Several values returned by one function.
    static Type tuple(std::vector<Type> elements);
    /// A tile (Warp's cooperative tile model): a block's array of `dtype`
    /// elements (a scalar, vector or matrix) of a compile-time shape, 1-D
    /// (`cols` 0) or 2-D. Kernel and function locals and parameters only: no
    /// value type (no kernel parameter, array element or argument is one).
    static Type tile(const Type &dtype, int rows, int cols = 0);
    static Type tile(Scalar dtype, int rows, int cols = 0) { return tile(Type::scalar(dtype), rows, cols); }
    /// The result of a call that returns nothing.
    static Type void_type();
    /// A string literal (print() arguments only).
    static Type string();

    Kind kind() const { return kind_; }
    Scalar scalar_type() const { return scalar_; }
    int rows() const { return rows_; }
    int cols() const { return cols_; }
    /// A native type's name; "" for every other kind.
    const std::string &native_name() const;
    bool is_scalar() const { return kind_ == Kind::Scalar; }
    bool is_float() const;   // a float scalar
    bool is_integer() const; // an integer scalar (bool excluded)
    bool is_bool() const { return kind_ == Kind::Scalar && scalar_ == Scalar::Bool; }
    bool is_void() const { return kind_ == Kind::Void; }
    bool is_indexed_array() const { return kind_ == Kind::Array && indexed_; }
    /// A native type whose plugin declared it differentiable: its values carry
    /// a gradient (its schema code, "nd..." rather than "nt...", says so).
    bool is_differentiable_native() const;
    /// Array and tile dtype; tuple elements. InternalError for another kind.
    const Type &element() const { return elements().front(); }
    const std::vector<Type> &elements() const {
        return *static_cast<const std::vector<Type> *>(
            detail(kind_ == Kind::Array || kind_ == Kind::Tuple || kind_ == Kind::Tile));
    }
    int ndim() const { return rows_; } // arrays
    bool is_tile() const { return kind_ == Kind::Tile; }
    /// A tile's dimensions (1 or 2) and extents; its element count.
    int tile_ndim() const { return cols_ == 0 ? 1 : 2; }
    int tile_rows() const { return rows_; }
    int tile_cols() const { return cols_ == 0 ? 1 : cols_; }
    int tile_count() const { return rows_ * tile_cols(); }
    /// A struct's layout. InternalError for another kind.
    const StructLayout &layout() const { return *static_cast<const StructLayout *>(detail(kind_ == Kind::Struct)); }
    std::shared_ptr<const StructLayout> layout_ptr() const { return {detail_, &layout()}; }

    /// Canonical kernel name: "float32", "vec3", "vec3d", "mat33", "quat", "warp_test::Color".
    std::string name() const;
    /// Identity for hashing and comparison: native types by schema code, so a
    /// reloaded plugin's identical type is the same type.
    std::string code() const;
    /// The layout every consumer uses (codegen, argument packing, static_asserts):
    /// C rules for structs and tuples; an array is weft's 64-byte array view
    /// (see ArrayViewLayout); void and string literals have none (0).
    std::uint64_t size() const;
    std::uint64_t alignment() const;

    /// Equal exactly when the codes are, compared field by field: overload
    /// resolution compares types by the thousand, and building two code
    /// strings per comparison was 40% of the front end (bench/frontend).
    friend bool operator==(const Type &a, const Type &b);
    friend bool operator!=(const Type &a, const Type &b) { return !(a == b); }

private:
    /// What only a native type has, shared by its copies: kept inline it
    /// made every Type 128 bytes, and a scalar's copy paid for two empty
    /// strings. A builtin's record holds three Types (bench/plugin_load).
    struct NativeInfo {
        std::string name;
        std::string code;
        std::uint64_t size = 0;
        std::uint64_t alignment = 0;
    };

    const void *detail(bool right_kind) const {
        if (!right_kind) wrong_kind();
        return detail_.get();
    }
    [[noreturn]] void wrong_kind() const;
    const NativeInfo &native_info() const { return *static_cast<const NativeInfo *>(detail(kind_ == Kind::Native)); }

    Kind kind_ = Kind::Scalar;
    Scalar scalar_ = Scalar::Float32;
    bool indexed_ = false; // arrays: an indexedarray
    int rows_ = 1;
    int cols_ = 1;
    // What only some kinds have, one pointer for all (the kind says which):
    // Native a NativeInfo, Array a one-element std::vector<Type> (the
    // dtype), Tuple a std::vector<Type>, Struct a StructLayout.
    std::shared_ptr<const void> detail_;
};

/// A user struct's fields with their C layout (offsets in declaration order,
/// each aligned to its type; the size rounded up to the largest alignment).
struct StructLayout {
    struct Field {
        std::string name;
        Type type;
        std::uint64_t offset = 0;
    };
    std::string name;
    std::vector<Field> fields;
    std::uint64_t size = 0;
    std::uint64_t alignment = 1;

    /// Lays out `fields` (their offsets are computed here) by C rules.
    static std::shared_ptr<const StructLayout> make(std::string name, std::vector<Field> fields);

    const Field *field(std::string_view n) const {
        for (const Field &f : fields)
            if (f.name == n) return &f;
        return nullptr;
    }
};

/// weft's array view as generated code sees it (weft::array_t<T> in the
/// runtime headers): { T *data; int32 shape[4]; int64 strides[4] (bytes); int32 ndim; }.
struct ArrayViewLayout {
    static constexpr std::uint64_t data_offset = 0;
    static constexpr std::uint64_t shape_offset = 8;
    static constexpr std::uint64_t strides_offset = 24;
    static constexpr std::uint64_t ndim_offset = 56;
    static constexpr std::uint64_t size = 64;
    static constexpr std::uint64_t alignment = 8;
    static constexpr int max_dims = 4;
};

/// weft's indexed array as generated code sees it (weft::indexedarray_t<T>,
/// Warp's layout): { array_t<T> arr; int32 *indices[4]; int32 shape[4]; }:
/// the base array's view, per dimension the index array's elements or null
/// (that dimension is not indexed), and the indexed shape.
struct IndexedArrayLayout {
    static constexpr std::uint64_t arr_offset = 0;
    static constexpr std::uint64_t indices_offset = 64;
    static constexpr std::uint64_t shape_offset = 96;
    static constexpr std::uint64_t size = 112;
    static constexpr std::uint64_t alignment = 8;
};

/// Whether `t` is a value: what a kernel parameter passed by value, an array
/// element or a KernelArg value can be (scalars, vectors, matrices,
/// quaternions, transforms, native types and user structs, of known size).
bool is_value_type(const Type &t);

/// Element offsets of a tuple laid out as a C struct of its elements.
std::vector<std::uint64_t> tuple_offsets(const Type &tuple);

/// Parses a built-in kernel type name ("float32", "float", "wp.vec3", "mat44d", "quat").
/// Returns nullopt for anything else, native names included (the registry resolves those).
std::optional<Type> parse_builtin_type(std::string_view name);

/// An array kernel type name split into its parts, before the dtype is resolved.
struct ArrayTypeName {
    std::string dtype; // as written: "float32", "vec3", "colors::Color"
    int ndim = 1;
};

/// Splits an array type name as builtin descriptors write it: "array(float32)",
/// "array(dtype=float32, ndim=2)", "array(vec3, ndim=3)", "array2d(dtype=int32)",
/// each optionally with a "wp." or "warp." prefix. nullopt when `name` is not an
/// array type name; throws RegistrationError(UnknownType) when it is one, but
/// malformed (a missing dtype, ndim outside 1 to 4, an unknown keyword).
std::optional<ArrayTypeName> parse_array_type_name(std::string_view name);

/// Normalizes a native type reference: "warp_test.Color" -> "warp_test::Color".
std::string normalize_native_name(std::string_view name);

/// One kernel parameter: its name and type (Type::array(dtype, ndim) for
/// arrays). The code generator describes entries with it and launches check
/// arguments against it: one description of a kernel's signature.
struct KernelParam {
    std::string name;
    Type type;
};

} // namespace weft
