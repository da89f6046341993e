// The C++ emitter's class, shared by the forward code (cpp_emitter.cpp and
// emitter*.cpp) and the reverse-mode code (adjoint_emitter.cpp). Internal to codegen.
#pragma once

#include "weft/codegen/cpp_emitter.hpp"

#include "deferred_atomics.hpp"
#include "disjoint_rows.hpp"
#include "row_guard.hpp"

#include "weft/support/error.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
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

class Emitter {
public:
    Emitter(const ir::Module &m, const ResolvedBuildOptions &options, Backend backend, const CodegenOptions &codegen)
        : m_(m), options_(options), backend_(backend), codegen_(codegen) {}

    GeneratedSource run();

    /// Generated text grows with the module, never without bound: a module
    /// that still produced gigabytes (20,000 nested conditions once wrote
    /// 3.2 GB) is an error naming it rather than a compile that runs out of memory.
    static constexpr std::size_t max_generated_bytes = std::size_t(256) << 20;
    void check_size(std::size_t bytes) const;

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
    bool replay_ = false; // emitting a replay: array stores, atomics and prints are skipped
    std::vector<int> deferred_; // the kernel being emitted: parameters whose atomic adds are deferred (deferred_atomics.hpp)
    std::vector<bool> varying_;  // ... its locals that may change along a row (detail::varying_locals)
    std::vector<int> scattered_; // ... the deferred parameters with a scattered atomic (detail::scattered)
    std::vector<int> private_gradients_; // the backward kernel being emitted: KernelEntry::private_gradients, by parameter
    std::map<const Expr *, int> fixed_ids_; // the function being emitted: its zeros() arrays' storage, by node

    /// Whether `f`, or a function it calls, has a loop (KernelEntry::loops).
    bool has_loop(const ir::Function &f, std::vector<bool> &seen) const;
    bool has_loop(const ir::Function &f) const;

public:
    struct AdNode; // a statement of the adjoint's structured form

private:
    struct AdState;
    struct Checkpoint;
    AdState *ad_ = nullptr;
    std::optional<Checkpoint> checkpoint(const Stmt &loop) const; // analyze_checkpoint, once per loop
    /// Whether the backward pass replays this loop's body per iteration (checkpoint()).
    bool checkpointed(const Stmt &loop) const;
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

    std::string type(const Type &t);

    // --- declarations -----------------------------------------------------

    std::string native_contracts();

    /// Each external builtin's native function against its registered type:
    /// the same parameter and result types, where integers of one size and
    /// signedness count as one (uint64_t may be unsigned long, weft::uint64
    /// unsigned long long: the same ABI).
    std::string native_signature_checks();

    std::string structs();

    /// `dst = src` for a store into memory, field by field and component by
    /// component: an aggregate copy becomes a memcpy whose wide accesses keep
    /// the loop vectorizer from the launch loop ("unsafe dependent memory
    /// operations").
    static std::string element_store(const std::string &dst, const std::string &src, const Type &t);

    std::string tuples();

    std::string constant_value(const ir::ConstantValue &c);

    /// The module's constants, or those of `names` (a compile unit's).
    std::string constants(const std::set<std::string> *names = nullptr);

    // --- functions --------------------------------------------------------

    std::string local(int index) const;

    std::string param(int index) const { return "p_" + f_->params[static_cast<std::size_t>(index)].name; }

    /// "before" WEFT_PY_FILE "after": one string literal once concatenated.

    std::string line_marker(const kernel::SourceLocation &at) const;

    /// Literals and constants of an integer type that are >= 0.
    static bool nonneg_literal(const Expr &e);

    /// Which locals of `f` are never negative: every assignment gives a tid()
    /// value, a non-negative literal, a sum of never-negative values, x - k for
    /// a local x known to be >= k (`minimums`: a row guard's body), or the
    /// counter of a range that starts at a non-negative literal and steps up by
    /// one. Their array indices skip Warp's negative-index wrap, which would
    /// stand between an element access and the vectorizer (the address is no
    /// longer affine in the counter). Sums assume no int32 overflow: an index
    /// that overflowed is outside the array with or without the wrap.
    void find_nonneg_locals(const ir::Function &f, const std::vector<std::pair<int, long long>> &minimums = {});

    /// " + " / " - " when `s` assigns a never-negative int32/int64 local (an
    /// index: find_nonneg_locals) the sum or difference of two values: C++'s
    /// own operator, whose overflow is undefined, instead of weft's wrapping
    /// add. The analysis already assumes such sums do not overflow; with
    /// that, j + 1 stays affine in the loop counter (no sign extension of a
    /// wrapped 32-bit value per element), which keeps stencils vectorized
    /// with their indices in registers.
    const char *index_arithmetic(const Stmt &s) const;

    /// Whether an index is known not to be negative (find_nonneg_locals).
    bool nonneg_index(const Expr &x) const;

    void function(std::ostringstream &o, const ir::Function &f);

    /// `auto &x = p_x;` for each parameter of a @wp.func_native (and `adj_x`, `adj_ret` in its adjoint).
    void native_aliases(std::ostringstream &o, const ir::Function &f, bool adjoint);

    /// "template <bool weft_contig_> WEFT_FN R name(const weft::tid_t &weft_t_, T p_x, ...)"
    std::string signature(const ir::Function &f, const std::string &name);

    /// One function's code in the three places a module's text holds it:
    /// its declarations (backward pass), its definitions (function and
    /// replay), its adjoint. The module's text is every function's
    /// declarations, then definitions, then adjoints, in function order; a
    /// compile unit's text is the same for the functions its kernels reach.
    struct FunctionCode {
        std::string declarations, definitions, adjoint;
    };
    /// A kernel's code: its forward entry, or in the backward pass its adjoint entry.
    struct KernelCode {
        std::size_t function = 0; // index in the module's functions
        std::string text;
    };

    /// Forward mode: functions and kernel entries. Adjoint mode: user functions
    /// and their replays (no side effects), then the adjoints and each
    /// differentiable kernel's adjoint body and backward entry. Declarations
    /// first: a @wp.func_grad or @wp.func_replay instance follows what it serves.
    /// Functions into `functions` (by function index), kernels into `kernels`
    /// in source order: kernels are what a module's compile units divide.
    void emit_functions(std::vector<FunctionCode> &functions, std::vector<KernelCode> &kernels);

    /// CPU: the module's kernels as compile units (GeneratedSource::units).
    /// `prefix` is what every unit starts with, `tail` what the first ends with.
    void make_units(const std::string &prefix, const std::vector<FunctionCode> &functions,
                    const std::vector<KernelCode> &kernels, const std::string &tail);

    /// Whether a view may leave its array's innermost dimension strided
    /// (a[:, j], a[::2], a run-time step): code specialized on dense arrays
    /// (weft_contig_) assumes every array it indexes is dense where the
    /// parameters are, so a module with such a view never specializes.
    static bool strided_view(const Expr &e);
    static bool strided_views(const std::vector<ir::StmtPtr> &body);
    bool module_strided_views() const;

    /// Whether a type holds an array inside a struct or tuple (such arrays are
    /// not checked for density, so their kernel gets no dense specialization).
    static bool nests_array(const Type &t);

    std::string where(const ir::Function &f) const;

    /// entry_point_abi='external_constant_params': an entry with no parameters
    /// that reads its one struct parameter from the module's __constant__ `params`,
    /// for runtimes such as OptiX that launch it themselves.
    void external_entry(std::ostringstream &o, const ir::Function &f);

    /// The entry's parameters: the kernel's, then (backward entries) one adjoint
    /// per parameter, of the same type ("adj_<name>": a gradient array, or a value).
    std::vector<KernelParam> entry_params(const ir::Function &f) const;

    /// "_body" / "_run" / entry symbol suffix of forward or backward code.
    std::string entry_suffix() const { return codegen_.adjoint ? "_adj" : ""; }

    /// The components of a CUDA thread's index, unrolled for the kernel's
    /// tid() dimensionality: a loop over the launch's runtime ndim indexes
    /// weft_t_.c dynamically, which puts the array in local memory. With
    /// tid_dims >= 2 the launch has exactly that many dimensions (checked at
    /// launch); one component is the outermost index; none is unused.
    static std::string cuda_tid_components(int tid_dims);

    void cuda_entry(std::ostringstream &o, const ir::Function &f);

    void entry(std::ostringstream &o, const ir::Function &f);

    /// NAME_row_disjoint: one guarded row of an N-D launch over dense arrays,
    /// [weft_lo_, weft_hi_) of its last component, each array read and written
    /// through a `__restrict` copy of its data pointer (disjoint_rows.hpp).
    void disjoint_row_function(std::ostringstream &o, const ir::Function &f,
                               const std::vector<KernelParam> &params, const std::string &each);

    /// A row-guarded kernel's two helpers: NAME_body_rows, the body without its
    /// test (for j inside the passing range, where the test's literal lower
    /// bounds hold: `i > 0` makes i - 1 an index that needs no wrap), and NAME_rows, the test once per
    /// row: false when no element of the row passes, else [weft_lo_, weft_hi_)
    /// (values of j) narrowed to the elements that do.
    void row_guard_functions(std::ostringstream &o, const ir::Function &f, const RowGuard &g);

    /// The C++ function of a module constant: c_NAME, or for a class member
    /// (Color.RED) c5_Color_RED: the class name's length after the "c" keeps
    /// it apart from every c_NAME and from other classes' members.
    static std::string constant_function(const std::string &name);

    std::string indent(int depth) const { return std::string(static_cast<std::size_t>(depth) * 4, ' '); }

    /// Each line of `text` indented by `depth` more levels.
    std::string indented(const std::string &text, int depth) const;

    void block(std::ostringstream &o, const std::vector<ir::StmtPtr> &body, int depth);

    void statement(std::ostringstream &o, const Stmt &s, int depth);

    /// Whether an lvalue path goes through an array element.
    static bool writes_array(const Expr &path);

    /// The element an atomic intrinsic applies to: weft::index(arr, i...)
    /// (checked in debug mode, as the atomic itself is).
    std::string atomic_element(const Expr &atomic);

    /// atomic_add(arr, i..., value); in debug mode atomic_add_checked(value,
    /// arr, kernel, file, line, i...): an index outside the array is a
    /// reported failure, like a[i], instead of a write outside it.
    std::string atomic_call(const char *name, const Expr &e, const std::string &where);

    /// The parameter whose deferred table takes atomic `e`, if its adds are deferred.
    std::optional<int> deferred_param(const Expr &e) const;
    static std::string deferred_type(const ir::Function &f) { return f.mangled_name + "_deferred"; }

    std::string args(const Expr &e, std::size_t from = 0);

    std::string component(const Expr &e);

    /// v[i] on a vector, quaternion, matrix row or transform (whose components live in p and q).
    std::string subscript(const Expr &e);

    /// a[i, ...]: unchecked, or in debug mode checked against the shape with the access's position.
    std::string array_element(const Expr &e);

    /// The value local `index` is first given in `body`, if any.
    static const Expr *declared_value(const std::vector<ir::StmtPtr> &body, int index);

    /// The array as the kernel's source names it, for bounds failures'
    /// messages: a parameter or local ("x"), a struct field ("p.weights").
    std::string array_name(const Expr &e) const;

    /// weft::view(base, positions...) for a View whose array is `base`
    /// (the forward array, or its gradient's twin in reverse mode).
    std::string view(const Expr &e, const std::string &base);

    /// The source component of a Gather's k-th result component: ".c[i]" or ".c[r].c[c]".
    std::string gather_source(const Expr &e, std::size_t k);
    static std::size_t gather_count(const Expr &e);
    /// The k-th component of a Gather's result type (vector or matrix).
    static std::string result_component(const Type &t, std::size_t k);
    std::string gather(const Expr &e);

    std::string lvalue(const Expr &e);

    /// A core integer division or remainder (a scalar integer divisor): debug
    /// code checks it for zero (weft::div_checked and friends, rt/checked.h).
    static bool checked_division(const Expr &e);
    std::string expr(const Expr &e);

    std::string intrinsic(const Expr &e);

    // --- tiles (emitter_tiles.cpp) -----------------------------------------

    /// A tile local's declaration type: shared by the block on CUDA.
    std::string tile_declaration(const Type &t) const;
    /// CUDA forward code: the declarations of `f`'s tile locals, in one shared arena ("" for none).
    std::string tile_locals(const ir::Function &f) const;
    /// dst = value for a tile: an operation, a copy of a variable, or a function's result.
    void tile_assignment(std::ostringstream &o, const std::string &dst, const Expr &value, int depth);
    /// Whether a function has tiles (parameters, locals, result): no adjoint or replay of it is made.
    static bool has_tiles(const ir::Function &f);
    /// f makes zeros() arrays, or calls a function that does (no backward pass through them yet).
    bool reaches_fixed_arrays(const ir::Function &f) const;
    /// Declares the storage of each zeros() array f makes (fixed_ids_ numbers them).
    void fixed_storage(std::ostringstream &o, const ir::Function &f);
    /// A lowered tile operation into tile `dst` ("" for a statement without one).
    void tile_statement(std::ostringstream &o, const std::string &dst, const Expr &e, int depth);
    /// tile_map / tile_reduce's per-element call (args[0]) over `operands`:
    /// the C++ text of each tile operand's element (tile_reduce: the two folded values).
    std::string tile_callback(const Expr &e, const std::vector<std::string> &operands);
    /// What placeholder k (a Local of index -1 - k) of the callback being emitted reads.
    std::vector<std::string> placeholders_;
    /// ... and its adjoint, in a backward pass ("" for none).
    std::vector<std::string> adj_placeholders_;

    // --- tile adjoints (adjoint_tiles.cpp) ---------------------------------

    /// Refuses (UserError at the statement) what the tile adjoints would get
    /// wrong: a tile's value that the backward pass needs but the kernel
    /// overwrites (tiles are recomputed, never saved), tile operations inside
    /// loops the backward pass does not replay per iteration, and the
    /// operations that have no adjoint yet.
    void check_tile_gradients(const ir::Function &f);
    /// check_tile_gradients' refusal of kernel `f` ("" for none, or when `f` has no backward pass anyway):
    /// the forward entry says it (KernelEntry::no_backward), and the backward pass leaves the kernel out.
    std::string gradient_refusal(const ir::Function &f);
    /// The reverse of one tile statement: the result's adjoint to its operands'.
    void tile_reverse(std::ostringstream &o, const Stmt &s, int depth);
    /// Adds the adjoint `g` (a tile) of tile-valued `v` to its operands' adjoints.
    void tile_value_adjoint(std::ostringstream &o, const Expr &v, const std::string &g, int depth);
};

} // namespace weft::codegen::detail
