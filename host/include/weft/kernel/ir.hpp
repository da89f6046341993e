// The typed IR of a checked kernel module: every expression has a type, every
// call is bound to one overload, every node keeps its source location. This
// is what codegen consumes and what the module hash's contract set comes from.
#pragma once

#include "weft/kernel/source.hpp"
#include "weft/registry/registry.hpp"
#include "weft/registry/types.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

namespace weft::kernel::ir {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

/// A compile-time value: a scalar, or the components of a vector, matrix,
/// quaternion or aggregate native type (flattened, in field order).
struct ConstantValue {
    Type type;
    std::vector<double> components; // ints are exact up to 2^53
    std::vector<std::int64_t> int_components; // exact integers, same length, for integer scalars
};

struct Expr {
    enum class Kind {
        Literal,     // constant: value
        Local,       // index = local slot in the function
        Param,       // index = parameter position
        Constant,    // module constant; name
        Builtin,     // call of `overload` with args (operators included)
        Generic,     // call of a generic core builtin (tid, len, atomic_add, ...): name, args
        Call,        // call of a user function instance; index = Module::functions index
        Construct,   // type constructor: `type` with args (empty: default construction)
        Cast,        // scalar conversion of args[0] to `type`
        Field,       // args[0].name (struct, native type or vector component x/y/z/w); index = field index
        Index,       // args[0][args[1..]]: array element, vector component, matrix row/element
        Shape,       // args[0].shape[index]
        Select,      // args[0] ? args[1] : args[2]   (from `b if c else a`)
        And,         // short-circuit, bool
        Or,
        Not,
        TupleGet,    // element `index` of args[0] (a tuple-returning call)
    };

    Kind kind;
    Type type = Type::scalar(Scalar::Int32);
    bool is_void = false; // a call with no result
    SourceLocation location;
    std::string name;
    int index = -1;
    std::optional<ConstantValue> value;
    std::shared_ptr<const BuiltinOverload> overload; // Builtin: one copy per distinct overload in the module
    std::vector<ExprPtr> args;

    Expr(Kind k, SourceLocation at) : kind(k), location(at) {}
};

struct Stmt {
    enum class Kind {
        Declare,   // local `index` = value (first assignment)
        Assign,    // local `index` = value
        Store,     // target = value; target is an Index/Field/Local lvalue expression
        Unpack,    // locals `targets` = elements of a tuple value
        Eval,      // value evaluated for effect
        If,        // cond; body; orelse
        For,       // local `index` over range(start, stop, step): args = {start, stop, step}
        While,     // cond; body
        Break,
        Continue,
        Return,    // value may be null
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

    Stmt(Kind k, SourceLocation at) : kind(k), location(at) {}
};

struct Variable {
    std::string name;
    Type type;
    SourceLocation location; // first assignment or parameter
};

enum class EntryPointAbi { Warp, ExternalConstantParams };

struct Function {
    std::string name;         // as written
    std::string mangled_name; // unique in the module: overloads and generic instances differ
    bool is_kernel = false;
    std::vector<Variable> params;
    std::optional<Type> return_type; // nullopt: void
    std::vector<Variable> locals;
    std::vector<StmtPtr> body;
    SourceLocation location;
    bool uses_tid = false; // calls tid(), directly or through a function it calls

    // Kernels only.
    bool enable_backward = true;
    bool enable_backward_explicit = false;
    EntryPointAbi abi = EntryPointAbi::Warp;
    std::string entry_name; // name= override, else ""
    int tid_dims = 0; // values tid() is unpacked into; 0 when not used
};

struct Struct {
    std::string name;
    Type type; // Kind::Struct
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
    std::string warp_alias; // "wp" when `import warp as wp`
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

} // namespace weft::kernel::ir
