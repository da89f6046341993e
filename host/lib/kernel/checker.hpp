// The type checker: binds an ast::Module to a Registry and produces the typed
// IR. Internal to the front end; the public entry points are in frontend.hpp.
#pragma once

#include "kernel/call_arguments.hpp"
#include "weft/kernel/ast.hpp"
#include "weft/kernel/diagnostics.hpp"
#include "weft/kernel/ir.hpp"
#include "weft/registry/registry.hpp"

#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace weft::kernel::detail {

/// An expression being checked: its IR, plus what the IR's type cannot say.
struct Value {
    ir::ExprPtr expr; // null after an error already reported (poison: no cascades)
    enum class Literal { None, Int, Float } literal = Literal::None;
    /// A function named as an argument (rk2(decay, x)): for a wp.Function parameter; expr is null.
    std::string function = {};
    bool ok() const { return expr != nullptr; }
    const Type &type() const { return expr->type; }
};

/// A parameter annotation: a concrete type, or one of the generic markers.
struct Annotation {
    enum class Kind { Concrete, Any, Scalar, Float, Int, ArrayAny, Function } kind = Kind::Concrete;
    Type type = Type::scalar(Scalar::Int32);
    int ndim = 0; // ArrayAny: wp.array(dtype=Any, ndim=k)
    bool reference = false; // wp.ref[T]: a @wp.func parameter the callee writes through
    /// Whether a value of type `t` may be passed for this parameter.
    bool accepts(const Type &t) const;
    /// What the annotation admits, for messages: "float32", "any type", "an array with ndim=2".
    std::string describe() const;
};

/// The function being checked: its scopes and what it has seen.
struct FunctionScope {
    ir::Function *function = nullptr;
    std::map<std::string, int> params;
    std::map<std::string, int> locals;
    int loop_depth = 0;
    int block_depth = 0; // ifs and loops around the statement being checked
    bool return_inferred = false; // return type taken from the first return
    bool declared_void = false;   // `-> None`
    int tid_dims_line = 0;
    std::set<std::string> poisoned; // names whose first assignment failed: uses stay silent
    std::map<std::string, int> adjoint_params; // @wp.func_grad: wp.adjoint[name] -> parameter index
    /// `f = wp.sin` in the body: f(x) calls sin (name -> function, and the line it was bound at).
    std::map<std::string, std::pair<std::string, int>> function_aliases;
};

struct ModuleConstant {
    ir::ConstantValue value;
    bool implicit = false; // a plain literal (N = 16): converts like a literal
    Value::Literal literal = Value::Literal::None;
    SourceLocation location;
};

class Checker {
public:
    Checker(const ast::Module &module, const Registry &registry, DiagnosticEngine &diags, ir::Module &out);
    /// Checks the whole module into `out`, in the phases below (check_module.cpp).
    void run();

private:
    // --- run()'s phases, in order (check_module.cpp) ---
    /// The aliases of warp, warp.types' vector and matrix, typing and typing.Any; wp and warp always.
    void read_imports();
    /// wp.pi, wp.inf, ...: float literals reached only with the warp prefix.
    void define_warp_constants();
    /// Dicts at module level (module options by name), then every wp.set_module_options(...) call.
    void collect_option_dicts();
    /// Constants, aliases, structs, classes and function declarations, in source order; false
    /// when stopped at the error limit (run() then checks nothing more).
    bool declare_in_source_order();
    /// NAME = value at module level: wp.constant(...) unwrapped, then an alias, type or constant.
    void module_assignment(const ast::TopLevelAssign &a);
    /// A module-level assignment that is no constant (snippet string, type or function alias, user
    /// vector type, dict or list): recorded or reported, and true; false for a constant.
    bool non_constant_assignment(const ast::TopLevelAssign &a, const ast::Expr *value, bool explicit_constant);
    /// A module constant: its value evaluated now (and its annotation's scalar type applied).
    void module_constant(const ast::TopLevelAssign &a, const ast::Expr *value, bool explicit_constant);
    /// A @wp.struct class: its annotated fields, laid out as one struct type.
    void struct_definition(const ast::ClassDef &c);
    /// A def's decorators: a @wp.overload stub, @wp.func / @wp.kernel / @wp.func_native, custom gradients.
    void function_declaration(const ast::FunctionDef &f);
    /// @wp.func(name=, module=, inline=): checked, without effect.
    void func_options(const ast::Decorator &d);
    /// @wp.func overloads with the same parameter types: the last definition replaces the others.
    void replace_redefined_funcs();
    /// Kernels with the same key: the last definition replaces the others.
    void replace_redefined_kernels();
    /// Every kernel, and every function with concrete parameter types, checked in source order.
    void check_definitions();
    /// A @wp.func's default parameter values: after the parameters without one, and constants.
    void check_param_defaults(const ast::FunctionDef &f);
    /// A @wp.func (or @wp.func_native) with concrete parameter types: its one instance, checked now.
    void instantiate_concrete(const ast::FunctionDef &f, bool native);

public:
    // --- types (check_types.cpp) ---
    std::optional<Annotation> annotation(const ast::Expr &e, bool allow_generic);
    std::optional<Type> concrete_type(const ast::Expr &e);
    std::optional<Type> user_vector_type(const ast::Expr &call, bool matrix);
    /// A return annotation `tuple[T1, T2, ...]` (also `typing.Tuple[...]`,
    /// `Tuple[...]`): nullopt when `e` is not one; an empty type when it is
    /// one that does not check (reported).
    std::optional<std::optional<Type>> tuple_annotation(const ast::Expr &e);
    /// strip_warp(), and "types.vector" / "types.matrix" for names imported from warp.types.
    std::string warp_types_name(const std::string &dotted) const;
    std::map<std::string, std::string> warp_types_imports_; // from warp.types import vector as v: v -> types.vector
    /// wp.vector(x, y, z, length=3, dtype=float), wp.matrix(..., shape=(2, 2), dtype=float) in a body.
    Value sized_constructor(const ast::Expr &call, bool matrix);
    /// wp.zeros(shape, dtype) in a function: Warp's fixed-size array (Intrinsic::FixedArray).
    Value fixed_array(const ast::Expr &call);
    /// Adds to `type_call` the size and dtype `call` leaves out, from its values as Warp infers
    /// them; false when they cannot be (reported).
    bool infer_sized_type(const ast::Expr &call, bool matrix, ast::Expr &type_call);
    /// The type a dotted name denotes (scalar, vector, struct, native), if any.
    std::optional<Type> type_named(const std::string &dotted) const;
    /// "wp.vec3" -> "vec3" when wp is the warp alias; other names unchanged.
    std::string strip_warp(const std::string &dotted) const;
    static std::optional<std::string> dotted(const ast::Expr &e);
    void note_type(const Type &t); // records native types and structs in References
    /// A module-level constant expression's value; its integer result must fit its type.
    std::optional<ir::ConstantValue> evaluate_constant(const ast::Expr &e, Value::Literal &literal);
    std::optional<ir::ConstantValue> fold_constant(const ast::Expr &e, Value::Literal &literal);
    std::optional<std::pair<SourceLocation, std::string>> pending_overflow_; // why a literal left int64
    /// Types an integer result of constant folding, reporting overflow of that type.
    std::optional<ir::ConstantValue> fold_int_result(const ast::Expr &e, const ir::ConstantValue &a,
                                                     const std::optional<ir::ConstantValue> &b, Value::Literal la,
                                                     Value::Literal lb, ir::IntValue r, const std::string &shown_op,
                                                     Value::Literal &literal);
    /// The type an integer literal of this value has by default: int32, int64, else uint64.
    static Scalar literal_int_type(ir::IntValue v);

    // --- expressions (check_exprs.cpp) ---
    /// An expression's value: dispatches on the node kind to the expr_* cases below.
    Value expr(const ast::Expr &e);

private:
    // expr()'s cases: literals and operators (check_exprs.cpp)
    /// Int, Float and Bool literals (an int too large for int32 takes int64, then uint64).
    Value expr_literal(const ast::Expr &e);
    /// Strings, tuples, slices, dicts, lists, `...` and *v where no value of them can be: reports where they belong.
    Value expr_misplaced(const ast::Expr &e);
    /// a op b: both operands, then binary().
    Value expr_binary(const ast::Expr &e);
    /// not x, -x, +x, ~x.
    Value expr_unary(const ast::Expr &e);
    /// -literal and +literal: still a literal (converting like one), at the sign's location.
    Value signed_literal(const ast::Expr &e, Value a);
    /// a < b < c: one Compare node, an overload per adjacent pair.
    Value expr_compare(const ast::Expr &e);
    /// a and b, a or b: bool or scalar operands.
    Value expr_bool_op(const ast::Expr &e);
    /// body if cond else orelse: both branches of one type.
    Value expr_if(const ast::Expr &e);
    // expr()'s cases: names, attributes and subscripts (check_access.cpp)
    /// A name: a local, a parameter or a module constant; else unbound_name().
    Value expr_name(const ast::Expr &e);
    /// A name that is no value: silent when its definition was reported, else says what it is.
    Value unbound_name(const ast::Expr &e);
    /// x.attr: a qualified module-level name (qualified_name()), else a member of x's value.
    Value expr_attribute(const ast::Expr &e);
    /// wp.X, Class.NAME, or a dotted type named as a value: the value or poison; nullopt when `e` reads a member.
    std::optional<Value> qualified_name(const ast::Expr &e);
    /// A field of a struct or native type, a transform's p / q, a vector's or quaternion's x, y, z, w.
    Value member(const ast::Expr &e, Value base);
    /// x[...]: wp.adjoint[...], a.shape[k], slices and views, else one element.
    Value expr_subscript(const ast::Expr &e);
    /// wp.adjoint[x] in a @wp.func_grad: the hidden parameter holding input x's adjoint.
    Value adjoint_subscript(const ast::Expr &e);
    /// a.shape[k] on an array: k must be an integer literal below its ndim.
    Value shape_subscript(const ast::Expr &e, Value arr);
    /// An element of an array, vector, quaternion, transform or matrix: one integer index per dimension.
    Value element_subscript(const ast::Expr &e, Value base);
    /// A subscript's indices, each settled and integer; nullopt after an error (every index is checked).
    std::optional<std::vector<Value>> integer_indices(const ast::Expr &e);
    /// Whether literal indices into a fixed-size value are in range (reports the first that is not).
    bool constant_indices_in_range(const Type &t, const std::vector<Value> &indices);

public:
    Value call(const ast::Expr &e);
    /// f(*v): the call with v's components as arguments (v[0], v[1], ...).
    ast::ExprPtr expand_starred(const ast::Expr &e);
    std::deque<ast::ExprPtr> synthesized_; // rewritten calls: diagnostics and IR point into them
    /// The arguments of `e` in parameter order, for the one ordering its keywords
    /// give against `signatures` (parameter names); reports and returns nullopt otherwise.
    std::optional<std::vector<const ast::Expr *>> keyword_order(const std::string &name, const ast::Expr &e,
                                                                const std::vector<std::vector<std::string>> &signatures);
    /// A registered builtin's arguments given with keywords, checked, in parameter
    /// order: keyword_order(), and Warp's defaults for parameters a keyword skips
    /// (check_builtin_keywords.cpp); nullopt after an error.
    std::optional<std::vector<Value>> builtin_keyword_args(const std::string &name, const ast::Expr &e,
                                                           const std::vector<std::vector<std::string>> &signatures);
    Value construct(const Type &type, const ast::Expr &call, SourceLocation at);
    /// wp.transform(...) and wp.transformation(...) (`generic`: dtype= allowed, the type inferred by the caller).
    Value construct_transform(const Type &type, const ast::Expr &call, SourceLocation at, std::vector<Value> args,
                              bool generic);
    /// wp.transformation(...): a transform of the dtype= given, else of its first argument's scalar type.
    Value transformation_call(const ast::Expr &call);
    Value generic_builtin(const std::string &name, const ast::Expr &call);
    Value user_call(const std::string &name, const ast::Expr &call, std::vector<Value> args);
    /// A call's arguments bound to a @wp.func with default parameter values
    /// (positions, then keywords by name, then the defaults of what is left);
    /// nullopt after an error.
    std::optional<std::vector<Value>> bind_with_defaults(const std::string &name, const ast::Expr &call,
                                                         const ast::FunctionDef &def,
                                                         const std::function<Value(const ast::Expr &, std::size_t)> &argument);
    /// A parameter's default, evaluated where the function is defined (module
    /// scope), not where it is called: a caller's local never shadows it.
    Value default_argument(const ast::Param &param);
    /// Whether a default value is one Python and Warp evaluate once, at
    /// definition: literals, module constants, and type constructors of them.
    bool constant_default(const ast::Expr &value) const;
    Value builtin_call(const std::string &name, std::vector<Value> args, SourceLocation at,
                       const std::string &what);
    /// Overload resolution (exact match, then literal conversion); on success the
    /// arguments are converted to the chosen parameter types. Reports and returns null on failure.
    const BuiltinOverload *resolve_builtin(const std::string &name, std::vector<Value *> &args, SourceLocation at,
                                           const std::string &what);
    /// The one literal conversion rule (see check_exprs.cpp).
    static bool literal_converts(const Value &v, const Type &target);
    Value static_value(const ast::Expr &call); // wp.static(expr)
    // --- tiles (check_tiles.cpp) ---
    /// tile, untile and tile_*: the names tile_call() answers for.
    static bool is_tile_builtin(const std::string &name);
    /// A tile builtin's call: its arguments checked, its result typed (shapes and dtypes compile-time).
    Value tile_call(const std::string &name, const ast::Expr &e);
    /// An operator (add, sub, mul, div, neg) with a tile operand: tile_map of the scalar operator.
    Value tile_operator(const std::string &op, std::vector<Value> args, SourceLocation at, const std::string &what);
    /// t[i] / t[i, j]: one element of a tile.
    Value tile_element(const ast::Expr &e, Value base);
    /// wp.tile[dtype, M, N] or wp.tile(dtype=T, shape=(M, N)) as an annotation.
    std::optional<Type> tile_annotation(const ast::Expr &e);
    /// A tile dimension's largest extent, and a tile's largest storage (Warp's CPU shared memory: 256 KiB).
    static constexpr int max_tile_extent = 1 << 16;
    static constexpr std::uint64_t max_tile_bytes = 256 * 1024;

private:
    std::optional<std::map<std::string, const ast::Expr *>> tile_arguments(const std::string &name, const ast::Expr &e,
                                                                           const std::vector<std::string> &params,
                                                                           std::size_t required);
    std::optional<std::vector<int>> tile_shape(const std::string &name, const ast::Expr &shape);
    std::optional<Type> tile_type(const std::string &name, const Type &dtype, const std::vector<int> &shape, SourceLocation at);
    std::optional<Type> tile_dtype(const std::string &name, const ast::Expr *dtype, const Type &fallback);
    bool tile_storage(const std::string &name, const ast::Expr *storage);
    Value tile_operand(const std::string &name, const ast::Expr &e, const char *what);
    /// An offset or index: an integer, as int32.
    Value tile_index_value(const ast::Expr &e);
    std::optional<std::vector<Value>> tile_offsets(const std::string &name, const ast::Expr *offset, int ndim,
                                                   SourceLocation at);
    Value tile_node(const std::string &name, const Type &type, SourceLocation at, std::vector<Value> args);
    /// An operand of a per-element operation beside tiles shaped like `shape`: a tile's
    /// dtype (nullopt for another shape), or another value's type (a literal takes the dtype).
    std::optional<Type> map_operand(Value &v, const Type &shape);
    /// Placeholder operands of these types (locals -1 - k) for a per-element call (ir::tile_callback).
    std::vector<Value> tile_placeholders(const std::vector<Type> &types, SourceLocation at);
    /// tile_map / tile_reduce's operation applied to placeholder operands of `operand_types`.
    Value tile_callback(const std::string &name, const ast::Expr &op, const std::vector<Type> &operand_types,
                        SourceLocation at);

public:
    // --- slices and views (check_slices.cpp) ---
    /// A subscript with a slice, or an array given fewer indices than dimensions.
    Value sliced_subscript(const ast::Expr &subscript, Value base);
    Value array_view(const ast::Expr &subscript, Value base);
    /// x[i], x[i, j] on an indexed array of more dimensions: an indexed array of the rest.
    Value indexed_view(const ast::Expr &subscript, Value base);
    Value composite_slice(const ast::Expr &subscript, Value base);
    /// An integer index or slice bound, as int32 (what Warp's view() takes).
    Value int32_index(const ast::Expr &e);
    /// v[0:2] = value, m[1, :] += value: the value once, then a store per selected component.
    void slice_store(ir::ExprPtr gather, Value value, SourceLocation at, std::vector<ir::StmtPtr> &out);
    /// m[f(), 0:2] = ...: a run-time index with effects evaluated once, into a hidden local.
    void hoist_slice_index(ir::Expr &gather, SourceLocation at, std::vector<ir::StmtPtr> &out);
    /// The function (builtin, intrinsic or @wp.func) an expression names, or nullopt.
    std::optional<std::string> function_named(const ast::Expr &e) const;
    /// `x < n` with x float32 and n int32 (one comparison, no literals): both
    /// operands converted as C++ and Warp do.
    void mixed_comparison(Value &a, Value &b);
    /// Core vector and matrix builtins for shapes the registry does not list (check_shapes.cpp).
    const BuiltinOverload *shape_overload(const std::string &name, std::vector<Value *> &args);
    std::deque<BuiltinOverload> shape_overloads_; // stable addresses
    /// Literal operands next to each other or to a typed value take one type.
    void unify_literals(Value &a, Value &b);
    Value binary(const std::string &op, Value a, Value b, SourceLocation at);
    /// Converts a literal to `target`; true when the value already has that type.
    bool coerce(Value &v, const Type &target);
    /// Gives a literal its default type (int32 / float32).
    void settle(Value &v);
    Value poison() { return Value{}; }
    ir::ExprPtr make(ir::Expr::Kind kind, const Type &type, SourceLocation at);
    /// Records the overload as referenced; returns the module's one shared copy of it.
    /// `o` outlives the checker's run, at one address (the registry's overloads,
    /// shape_overloads_): it is remembered by address.
    std::shared_ptr<const BuiltinOverload> note_builtin(const BuiltinOverload &o);

    // --- statements and functions (check_stmts.cpp) ---
    void statements(const std::vector<ast::StmtPtr> &body, std::vector<ir::StmtPtr> &out);
    /// One statement's IR, appended to `out`: dispatches on the node kind to the stmt_* cases below.
    void statement(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);

private:
    // statement()'s cases (check_stmts.cpp)
    /// An expression statement (a docstring is skipped; one without effect is warned about).
    void stmt_expr(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// target = value: unpacking (stmt_unpack()), a local function alias, else assign().
    void stmt_assign(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// `f = wp.sin` in a body: `name` names the function `fn` from here on (one function per name).
    void bind_function_alias(const ast::Stmt &s, const std::string &name, const std::string &fn);
    /// a, b = value: tid(), a tuple-returning call, or a tuple of values, into names.
    void stmt_unpack(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// The right side of `a, b = ...`: a tuple (its elements typed like the names they go to) or one value.
    Value unpacked_value(const ast::Stmt &s);
    /// The types `v` unpacks into `n` names (tid(): int32 each, checked against other uses); nullopt after an error.
    std::optional<std::vector<Type>> unpacked_types(const ast::Stmt &s, Value &v, std::size_t n);
    /// name: type = value: a new local of that type.
    void stmt_ann_assign(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// target op= value: the target evaluated once; atomic for += and -= on array elements.
    void stmt_aug_assign(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// An if or while condition: bool or a scalar, settled; poison after an error.
    Value condition(const ast::Expr &test);
    /// if cond: body, else orelse (an elif is an if alone in orelse).
    void stmt_if(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// while cond: body (a loop for break and continue), then its else branch.
    void stmt_while(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// for i in range(...): the loop variable is a local of the bounds' type.
    void stmt_for(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    void stmt_for_query(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    void query_loop(ir::ExprPtr call, const std::vector<ast::StmtPtr> &body, const std::vector<ast::StmtPtr> &orelse,
                    SourceLocation at, std::vector<ir::StmtPtr> &out);
    /// range(...)'s bounds, converted to one integer type (set in `itype`); nullopt after an error.
    std::optional<std::vector<Value>> range_bounds(const ast::Expr &iter, Type &itype);
    /// break and continue, inside a loop only.
    void stmt_break_continue(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);
    /// return [value]: a kernel returns nothing; a function's first return fixes an undeclared return type.
    void stmt_return(const ast::Stmt &s, std::vector<ir::StmtPtr> &out);

public:
    void assign(const ast::Expr &target, Value value, SourceLocation at, std::vector<ir::StmtPtr> &out);
    int declare_local(const std::string &name, const Type &type, SourceLocation at);
    /// The name a user wrote for the callee of a call node.
    std::string callee_name(const ir::Expr &call) const;
    /// A tuple of values, each evaluated in order (a literal takes its hint's type).
    Value tuple(const ast::Expr &e, const std::vector<std::optional<Type>> &hints);
    /// `adjoint_of`: instantiate a @wp.func_grad for that function instance.
    /// `functions`: wp.Function parameters bound to the function each names (the
    /// instance calls it; such parameters take no C++ argument).
    int instantiate(const ast::FunctionDef &def, const std::vector<Type> &arg_types, SourceLocation call_site,
                    const ir::Function *adjoint_of = nullptr,
                    const std::map<std::string, std::string> &functions = {});
    /// A kernel with these parameter types: its own, or an instance's
    /// (`instance`: a wp.overload of a generic kernel, named by its types).
    void check_kernel(const ast::FunctionDef &def, const std::vector<Type> &param_types, bool instance);

    // --- generic kernels and wp.overload (check_overloads.cpp) ---
    /// Checks a kernel's parameter annotations; a generic kernel is kept for
    /// its wp.overload instances, a concrete one is checked now.
    void kernel_definition(const ast::FunctionDef &def);
    void note_factory_instance(const ast::FunctionDef &def, std::size_t errors_before);
    /// Every wp.overload(...) call and @wp.overload stub, in source order.
    void kernel_overloads();
    void overload_call(const ast::Expr &call);
    void overload_stub(const ast::FunctionDef &stub);
    void instantiate_kernel(const ast::FunctionDef &def, const std::vector<Type> &types, SourceLocation at);
    struct GenericKernel {
        const ast::FunctionDef *def = nullptr;
        std::vector<Annotation> params;
        std::set<std::string> instances; // parameter type codes of each instance made
    };
    std::map<std::string, GenericKernel> generic_kernels_;

    // --- @wp.func_native (check_native.cpp) ---
    struct NativeSnippets {
        ir::Function::Snippet forward, adjoint, replay;
    };
    /// Reads @wp.func_native(snippet, adj_snippet, replay_snippet=...); false when reported.
    bool native_decorator(const ast::FunctionDef &f, const ast::Decorator &d);
    /// A @wp.overload or @wp.func_native body: only `...`, pass or docstrings (reports the first other statement).
    bool stub_body(const ast::FunctionDef &f, const std::string &what, const std::string &why);
    /// wp.ref[T]'s T, or null when `e` is not a wp.ref annotation.
    const ast::Expr *ref_target(const ast::Expr &e) const;
    std::optional<ir::Function::Snippet> snippet_text(const ast::Expr &e, const std::string &what);
    std::map<const ast::FunctionDef *, NativeSnippets> native_funcs_;
    std::map<std::string, const ast::Expr *> string_constants_; // SNIPPET = """...""" at module level
    std::vector<const ast::FunctionDef *> overload_stubs_;

    /// An enum (IntEnum, IntFlag) or a class holding constants: its members
    /// are module constants reached as Class.NAME (check_module.cpp).
    void class_constants(const ast::ClassDef &c);

    // --- module options and launch hints (check_options.cpp) ---
    void module_options(const ast::Expr &dict, ir::Function *unique_kernel);
    void set_module_options_call(const ast::Expr &call);
    void launch_bounds(const ast::Expr &value, ir::Function &f);
    bool launch_hint(const ast::Keyword &k);
    bool option_set_later(const std::string &key, SourceLocation at);
    std::map<std::string, SourceLocation> option_set_at_; // where each module option was last set
    std::map<std::string, const ast::Expr *> dict_constants_; // OPTIONS = {...} at module level
    /// T = (1.0, 2.5, 4.0) at module level: read inside wp.static (wp.static(T[1]), wp.static(len(T))), as Warp.
    std::map<std::string, const ast::Expr *> tuple_constants_;
    std::map<std::string, int> enum_sizes_; // enum class -> its members (len(Color) in wp.static)
    /// "Color.RED" for "Color.RED.value" when Color is an enum of the module (Python's accessor); "" otherwise.
    std::string enum_value_member(const std::string &dotted) const;
    void shadow_rebound_params(const ast::FunctionDef &def, std::vector<ir::StmtPtr> &out);
    static bool always_returns(const std::vector<ir::StmtPtr> &body);
    static bool breaks(const std::vector<ir::StmtPtr> &body);

    const ast::Module &ast_;
    const Registry &registry_;
    DiagnosticEngine &diags_;
    ir::Module &out_;

    std::set<std::string> warp_aliases_;   // "wp", "warp"
    std::set<std::string> typing_aliases_; // "typing"
    std::set<std::string> any_names_;      // "Any" when imported from typing
    std::map<std::string, Type> structs_;
    // Module-level aliases, as Warp code writes them: `dtype = wp.float32`
    // (a type) and `f = wp.sin` (a builtin, resolved to it at every call).
    std::map<std::string, Type> type_aliases_;
    std::set<const ast::FunctionDef *> replaced_funcs_; // @wp.func redefined later with the same parameter types, and kernels redefined
    std::map<std::string, std::string> function_aliases_;
    std::map<std::string, ModuleConstant> constants_;
    std::map<std::string, ModuleConstant> warp_constants_; // wp.pi, wp.inf, ...: only with the prefix
    std::map<std::string, std::vector<const ast::FunctionDef *>> funcs_;
    std::map<std::string, const ast::FunctionDef *> func_grads_;   // @wp.func_grad(target): by target name
    std::map<std::string, const ast::FunctionDef *> func_replays_; // @wp.func_replay(target)
    void attach_custom_gradients();
    std::set<std::string> invalid_functions_;
    std::set<std::string> failed_constants_; // module constants whose value was rejected // defined but rejected (no decorator): calls stay silent
    std::map<std::string, int> instances_; // def address + arg codes -> function index
    std::vector<const ast::FunctionDef *> instantiating_;
    static constexpr std::size_t max_call_depth = 64; // sanitizer builds have big frames
    /// Functions in one call chain from a kernel, the kernel included: the C++
    /// compilers' template depth (1,024) less the entry's own instantiations.
    static constexpr std::size_t max_call_chain = 1001;
    void check_call_depth();
    FunctionScope *scope_ = nullptr;
    std::map<std::string, std::shared_ptr<const BuiltinOverload>> noted_builtins_; // by identity
    // The same, by registry address: the registry does not change during a
    // check, and an identity string per builtin call was a tenth of checking
    // (bench/frontend).
    std::unordered_map<const BuiltinOverload *, std::shared_ptr<const BuiltinOverload>> noted_builtin_at_;
    std::set<std::string> noted_types_, noted_structs_, noted_constants_;
};

std::string join(const std::vector<std::string> &items, const std::string &sep = ", ");
using ir::fits;
std::string type_list(const std::vector<Value> &args);
/// For arguments that mix float16 or bfloat16 with another scalar type (literals
/// aside): " (... how to convert)", since neither converts implicitly; else "".
std::string half_precision_hint(const std::vector<Value> &args);
/// " (the literal ... does not fit int32; warp-lang wraps it to ...)" when an
/// int literal is too wide for the integer it meets, else "".
std::string wide_literal_hint(const std::vector<Value> &args);
/// The message for an array subscript with more indices than dimensions.
std::string too_many_indices(const Type &array, std::size_t given);
/// How a value reads in a message: "integer literal -1", "float literal", or its type's name.
std::string shown(const Value &v);

} // namespace weft::kernel::detail
