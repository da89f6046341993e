// The IR of a kernel module, in two forms that share these types:
//
//  - typed: what the checker produces. Every expression has a type, every
//    call is bound to one overload, every node keeps its source location.
//    Expressions nest; chained comparisons, and/or, conditional expressions
//    and augmented assignments keep their source structure.
//  - lowered (lower.hpp): what codegen consumes. Every subexpression is
//    evaluated once, in Python's order, into a named temporary; operands are
//    atoms (locals, parameters, literals, constants); short-circuit and
//    conditional evaluation are explicit control flow; `arr[i] += v` on an
//    array element is an atomic add. verify_lowered() checks these rules.
//
// The module hash's contract set comes from `references`.
#pragma once

#include "weft/kernel/source.hpp"
#include "weft/registry/registry.hpp"
#include "weft/registry/types.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::kernel::ir {

/// Exact integer constants: every int64 and uint64 value, and room to detect
/// overflow while folding (Python ints do not wrap; weft reports instead).
__extension__ typedef __int128 IntValue;
std::string to_string(IntValue v);
/// Whether `v` is representable in the integer (or bool) scalar `s`.
bool fits(IntValue v, Scalar s);

/// A compile-time value: a scalar, or the components of a vector, matrix,
/// quaternion or aggregate native type (flattened, in field order). Float
/// components are in `components`; integer and bool ones are exact in
/// `int_components` (`components` holds them as doubles for convenience).
struct ConstantValue {
    Type type;
    std::vector<double> components;
    std::vector<IntValue> int_components;
};

/// The core builtins whose typing no finite overload list covers; the
/// checker types them and codegen emits each its own way.
enum class Intrinsic : std::uint8_t {
    Tid,
    Len,
    Select, // select(cond, a, b): a when cond is false (Warp's order)
    Where,  // where(cond, a, b): a when cond is true
    AtomicAdd,
    AtomicSub,
    AtomicMin,
    AtomicMax,
    Print,
    ExpectEq,
    ExpectNeq,
    ExpectNear,
    Identity,
    TransformIdentity,
    QuatIdentity,
    Assert, // assert test[, message]: checked in debug builds, nothing in release builds (as Warp)
    // Atomics without a gradient (Warp's too): bitwise on integers, and exchange.
    AtomicAnd,
    AtomicOr,
    AtomicXor,
    AtomicExch,
    BlockDim, // block_dim(): a tiled launch's threads per block (1 in other CPU launches, as Warp)
    AtomicCas, // atomic_cas(arr, i..., compare, value): two values after the indices
    QuatToAxisAngle, // quat_to_axis_angle(q) -> (axis, angle): a tuple
    FixedArray, // zeros(shape, dtype) in a function: a zeroed array in the function's frame; args: the dims (int32 literals)
};
std::string_view intrinsic_name(Intrinsic i);
std::optional<Intrinsic> parse_intrinsic(std::string_view name);
bool is_atomic(Intrinsic i);

struct Expr;
/// Where an atomic's indices end in its arguments (the array is argument 0,
/// the indices follow, then its value, or atomic_cas's compare and value).
std::size_t atomic_indices_end(const Expr &atomic);
struct Stmt;
/// The values a View's omitted slice bounds take (Warp's SLICE_BEGIN / SLICE_END).
constexpr std::int32_t slice_begin = 2147483647;
constexpr std::int32_t slice_end = -2147483647 - 1;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

struct Expr {
    enum class Kind : std::uint8_t {
        Literal,   // constant: value
        String,    // string literal (print arguments): text in `name`, type str
        Local,     // index = local slot in the function
        Param,     // index = parameter position
        Constant,  // module constant; name, value
        Builtin,   // call of `overload` with args (operators included)
        Intrinsic, // call of the core intrinsic `intrinsic` with args
        Call,      // call of a user function instance; index = Module::functions index
        Construct, // type constructor: `type` with args (empty: default construction)
        Cast,      // conversion of args[0] to `type` (scalars; vectors/matrices component-wise)
        Field,     // args[0].name (struct, native type or vector component x/y/z/w); index = field index
        Index,     // args[0][args[1..]]: array element, vector component, matrix row/element
        Shape,     // args[0].shape[index]
        View,      // a view of the array args[0] (Warp's view()): one index position per dimension given, in order;
                   // bit k of `index` set: position k is a slice, 3 int32 args (start, stop, step; an omitted
                   // start is slice_begin, an omitted stop slice_end); else one int32 index
        Gather,    // components of the vector/matrix/quaternion args[0] (a constant slice): `value` lists them;
                   // vectors: one position each; matrices: (row, col) pairs, -1 standing for args[1],
                   // a run-time index (wrapped when negative)
        Tile,      // a tile operation (tiles.hpp): `name` the Warp builtin, `type` its result;
                   // tile_map / tile_reduce: args[0] is the scalar call applied per element,
                   // over placeholder locals (index -1 - k: the k-th element operand)
        // Typed form only (lowering turns them into control flow):
        Select,    // args[1] if args[0] else args[2]   (from `b if c else a`)
        And,       // short-circuit over args, bool
        Or,
        Compare,   // chained comparison: args are the n+1 operands, `chain` the n comparison overloads
        Not,
    };

    Kind kind;
    Type type = Type::void_type();
    SourceLocation location;
    std::string name;
    int index = -1;
    Intrinsic intrinsic = Intrinsic::Tid;
    std::optional<ConstantValue> value;
    std::shared_ptr<const BuiltinOverload> overload; // Builtin: one copy per distinct overload in the module
    std::vector<std::shared_ptr<const BuiltinOverload>> chain; // Compare
    std::vector<ExprPtr> args;

    Expr(Kind k, SourceLocation at) : kind(k), location(at) {}
    /// A deep copy (lowering copies atoms and lvalue paths, never calls).
    ExprPtr clone() const;
    /// Locals, parameters, literals, strings and constants: nothing to evaluate.
    bool is_atom() const;
};

struct Stmt {
    enum class Kind : std::uint8_t {
        Declare,   // local `index` = value (first assignment)
        Assign,    // local `index` = value
        Store,     // target = value; target is an lvalue path (Local/Param, then Field/Index)
        Unpack,    // locals `targets` = elements of a tuple value
        Eval,      // value evaluated for effect
        If,        // cond; body; orelse
        For,       // local `index` over range(start, stop, step): args = {start, stop, step}
        While,     // cond; body
        Break,
        Continue,
        Return,    // value may be null
        // Typed form only:
        AugAssign, // target op= value: `overload` is the operator; `atomic` set for array elements
    };

    Kind kind;
    SourceLocation location;
    int index = -1;
    std::vector<int> targets;
    ExprPtr target;
    ExprPtr value;
    ExprPtr cond;
    std::vector<ExprPtr> args;
    std::vector<StmtPtr> body;
    std::vector<StmtPtr> orelse;
    std::shared_ptr<const BuiltinOverload> overload; // AugAssign
    std::optional<Intrinsic> atomic;                 // AugAssign on an array element: AtomicAdd/AtomicSub

    Stmt(Kind k, SourceLocation at) : kind(k), location(at) {}
    /// A deep copy.
    StmtPtr clone() const;
};

struct Variable {
    std::string name;
    Type type;
    SourceLocation location; // first assignment or parameter
    bool temporary = false;  // introduced by lowering; named "_t<N>"
    bool reference = false;  // a wp.ref[T] parameter: the caller's variable or element, written through
    int version = 0;         // > 0: a later variable of the same name (a tile assigned again), named apart in C++
};

enum class EntryPointAbi { Warp, ExternalConstantParams };

/// Warp's module options as the source sets them: wp.set_module_options({...})
/// for the file's module (in source order, the last value of a key winning),
/// @wp.kernel(module="unique", module_options={...}) for that kernel's own
/// module. Unset keys keep what the loader was given: the pipeline applies
/// them over ModuleLoadOptions.
struct ModuleOptions {
    std::optional<bool> enable_backward;
    std::optional<bool> debug;             // mode="debug" / "release"
    std::optional<bool> fast_math;
    std::optional<bool> fuse_fp;           // CUDA: mul + add contraction into fma
    std::optional<bool> lineinfo;          // CUDA: line info in the PTX
    std::optional<int> optimization_level; // 0..3
    /// Warp's wp.DeterministicMode: 0 NOT_GUARANTEED, 1 RUN_TO_RUN, 2 GPU_TO_GPU.
    /// Above 0, CPU launches run the grid on one thread in index order (Warp's
    /// CPU order); CUDA code is refused (weft does not replay atomics in order).
    std::optional<int> deterministic;
};

struct Function {
    std::string name;         // as written
    std::string mangled_name; // unique in the module by construction (see mangle())
    bool is_kernel = false;
    std::vector<Variable> params;
    std::optional<Type> return_type; // nullopt: void
    std::vector<Variable> locals;
    std::vector<StmtPtr> body;
    SourceLocation location;
    bool uses_tid = false; // calls tid(), directly or through a function it calls
    bool uses_tiles = false; // a kernel with tile operations: launched tiled (its grid counts blocks)
    bool uses_fixed_arrays = false; // makes wp.zeros(...) arrays (Intrinsic::FixedArray) in its own frame

    // User functions and automatic differentiation (Warp's @wp.func_grad / @wp.func_replay):
    std::string custom_adjoint; // mangled name of the @wp.func_grad instance its adjoint calls, or ""
    std::string custom_replay;  // mangled name of the @wp.func_replay instance backward replays call, or ""
    /// A @wp.func_grad instance: its parameters from this index on are the adjoints
    /// of the function's inputs (wp.adjoint[x]), passed by reference; -1 otherwise.
    int reference_params_from = -1;
    /// @wp.func_native: C++ bodies given as strings, where each string starts
    /// in the source (#line provenance). Empty text: none given.
    struct Snippet {
        std::string text;
        SourceLocation location;
    };
    bool is_native = false;
    /// Calls a function with wp.ref parameters, directly or through others: no
    /// adjoint exists for those (as in Warp), so its kernel has no backward pass.
    bool writes_through_refs = false;
    Snippet native, native_adjoint, native_replay;

    // Kernels only.
    bool enable_backward = true;
    bool enable_backward_explicit = false;
    EntryPointAbi abi = EntryPointAbi::Warp;
    std::string entry_name; // name= override, else ""
    int tid_dims = 0; // values tid() is unpacked into; 0 when not used
    int launch_bounds = 0; // CUDA: launch_bounds= (max threads per block), 0: none
    /// module="unique": compiled as a module of its own (split_unique_kernels),
    /// with `own_options` (its module_options=) instead of the file's options.
    bool unique = false;
    ModuleOptions own_options;

    /// A deep copy: the body's statements are cloned.
    Function clone() const;
};

/// C++ names for user functions and kernels, unique by construction: the
/// name and each argument type code are length-prefixed, so no two
/// (name, argument types) pairs mangle alike, whatever the names.
std::string mangle_function(std::string_view name, const std::vector<Type> &arg_types);
std::string mangle_kernel(std::string_view name);
/// `text` as part of a C++ identifier: letters and digits kept, anything else (and '_') as _XX.
std::string identifier_safe_name(std::string_view text);
/// An instance of a generic kernel (wp.overload): the name and its parameter types.
std::string mangle_kernel(std::string_view name, const std::vector<Type> &param_types);

struct Struct {
    std::string name;
    Type type; // Kind::Struct; its layout carries the offsets
    SourceLocation location;
};

struct Constant {
    std::string name;
    ConstantValue value;
    SourceLocation location;
};

/// What the module references: feeds the module hash and codegen's includes.
struct References {
    std::vector<BuiltinOverload> builtins;      // bound overloads, each once (core and external)
    std::vector<NativeTypeInfo> native_types;   // each once
    std::vector<std::string> structs;           // names
    std::vector<std::string> constants;         // names
    std::vector<std::string> functions;         // mangled names of user functions
};


struct Module {
    std::string name;
    std::string source_path; // the .py file as given (for #line); "" for API strings without one
    std::string warp_alias;  // "wp" when `import warp as wp`
    ModuleOptions options;
    bool lowered = false;    // set by lower()
    std::vector<Struct> structs;
    std::vector<Constant> constants;
    std::vector<Function> functions; // user function instances, then kernels, in dependency order
    References references;

    const Function *kernel(std::string_view kernel_name) const {
        for (const Function &f : functions)
            if (f.is_kernel && f.name == kernel_name) return &f;
        return nullptr;
    }
};

/// A tile operation whose args[0] is a per-element call (tile_map, tile_reduce).
inline bool tile_callback(const Expr &e) {
    return e.kind == Expr::Kind::Tile && (e.name == "tile_map" || e.name == "tile_reduce");
}

/// Calls f(expr) on `e` and every expression nested in it, outermost first.
template <class F> void for_each_expr(const Expr &e, F &&f) {
    f(e);
    for (const ExprPtr &a : e.args) for_each_expr(*a, f);
}

/// Calls f(expr) on every expression of `s` (target, value, condition,
/// arguments) and of the statements nested in it.
template <class F> void for_each_expr(const Stmt &s, F &&f) {
    for (const Expr *e : {s.target.get(), s.value.get(), s.cond.get()})
        if (e) for_each_expr(*e, f);
    for (const ExprPtr &a : s.args) for_each_expr(*a, f);
    for (const StmtPtr &b : s.body) for_each_expr(*b, f);
    for (const StmtPtr &b : s.orelse) for_each_expr(*b, f);
}

/// Calls f(stmt) on every statement of `body` and those nested in them.
template <class F> void for_each_stmt(const std::vector<StmtPtr> &body, F &&f) {
    for (const StmtPtr &s : body) {
        f(*s);
        for_each_stmt(s->body, f);
        for_each_stmt(s->orelse, f);
    }
}

/// `roots` (indexes into m.functions) and every function they reach through
/// calls, custom adjoints and replays, in m's order (dependencies first).
std::vector<std::size_t> reached_functions(const Module &m, const std::vector<std::size_t> &roots);

} // namespace weft::kernel::ir
