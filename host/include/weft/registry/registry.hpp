// The builtin and native-type registry of one weft::Host.
//
// Core builtins and plugin builtins go through the same path: a Transaction
// stages registrations for one owner, validating each against the committed
// registry and everything staged before it, and commit() applies them all at
// once. Dropping a Transaction without commit leaves the registry untouched,
// which is what makes plugin loading all-or-nothing.
#pragma once

#include "weft/registry/types.hpp"
#include "weft/support/small_vector.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

// --------------------------------------------------------------------------
// Inputs: what a registrant describes. Types are kernel type names.

struct ParameterSpec {
    std::string name;
    std::string type;
    /// Builtin parameters: sizeof the C++ type the native function takes, as
    /// the plugin states it; must equal the kernel type's size. 0: not checked.
    std::uint64_t cpp_size = 0;
    /// Builtin parameters: taken as T & and written (WEFT_PARAM_INOUT).
    bool inout = false;
};

struct BuiltinSpec {
    std::string name;
    std::vector<ParameterSpec> params;
    std::string result; // "" = void
    std::string native_name; // "" = "weft::<name>"
    std::string doc;
    /// Core only: a builtin whose types the checker computes (tid, len,
    /// atomic_add over any array, ...). Params and result are then unused and
    /// this is the signature shown in docs, e.g. "atomic_add(arr: array(T), i: int32..., value: T) -> T".
    std::string generic_signature;
    /// sizeof the C++ type the native function returns; 0: not checked.
    std::uint64_t result_cpp_size = 0;
    /// External builtins: the qualified C++ name of the adjoint (the gradient
    /// contract, weft_builtin_desc::adjoint_native); "" = not differentiable.
    std::string adjoint_native{};
};

struct DeclaredField {
    std::string name;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
    std::uint32_t bit_width = 0;
};

enum class Initializer { None, Aggregate };

struct NativeTypeSpec {
    std::string native_name;
    std::uint64_t size = 0;
    std::uint64_t alignment = 0;
    std::vector<DeclaredField> fields;
    std::vector<ParameterSpec> exposed; // {field name, kernel type}
    Initializer initializer = Initializer::None;
    std::string doc;
    /// Values carry a gradient (weft_native_type_desc::differentiable).
    bool differentiable = false;
    /// Qualified name of void(T &adjoint, const T &value), or "": field by field.
    std::string adjoint_accumulate;
};

// --------------------------------------------------------------------------
// Records: what the registry holds.

struct Parameter {
    std::string name;
    Type type;
    /// The native function takes it as T & and may write it: a kernel passes a
    /// local variable of exactly this type (weft_param_desc WEFT_PARAM_INOUT).
    bool inout = false;
};

/// A builtin's parameters: most have one or two, kept inside the record.
using ParameterList = SmallVector<Parameter, 2>;
/// Who registered a builtin: almost always one owner, kept inside the record.
using OwnerList = SmallVector<std::string, 1>;

struct BuiltinOverload {
    std::string name;
    ParameterList params;
    std::optional<Type> result; // nullopt = void
    std::string native_name;
    std::string native_namespace; // "external::", "::" or ""
    std::string native_function;  // "square"
    std::string doc;
    bool external = true;       // registered by a plugin
    bool differentiable = false; // core builtins with a runtime adjoint; external ones through adjoint_native
    /// An external builtin's adjoint, qualified like native_name ("external::adj_square"):
    /// called as adj(inputs..., adj_inputs&..., adj_result). Empty: not differentiable.
    std::string adjoint_native{};
    bool hidden = true;         // external builtins stay out of generated docs
    std::string generic_signature; // non-empty: typed by a checker rule (core only)
    OwnerList owners; // "core" or plugin names, in registration order

    bool generic() const { return !generic_signature.empty(); }

    /// "name(a: float32, b: vec3) -> float32"
    std::string signature() const;
    /// Canonical identity for the module hash: parameter names and type codes,
    /// result code or "void", namespace, native function.
    std::string identity() const;
};

struct ExposedField {
    std::string name;
    Type type;
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

struct NativeTypeInfo {
    std::string native_name;
    std::uint64_t size = 0;
    std::uint64_t alignment = 0;
    std::vector<DeclaredField> fields;
    std::vector<ExposedField> exposed;
    Initializer initializer = Initializer::None;
    std::string doc;
    /// Differentiable: values carry a gradient, an adjoint of the same C type
    /// whose exposed (float) fields hold the fields' gradients.
    bool differentiable = false;
    std::string adjoint_accumulate; // void(T &, const T &), or "": field by field
    std::string digest; // full SHA-256 of the schema, hex
    std::string code;   // short type code: "nt" (or "nd": differentiable) + first 16 hex digits of the digest
    std::vector<std::string> owners;

    bool opaque() const { return exposed.empty(); }
    Type type() const { return Type::native(native_name, code, size, alignment); }
    /// "size 12, align 4, aggregate, fields r: float32 @0, g: float32 @4, ..."
    std::string describe() const;
};

// --------------------------------------------------------------------------

/// The prefixes an owner may register new names under. An owner without a
/// policy (core) may register anything.
struct NamespacePolicy {
    std::vector<std::string> builtin_prefixes; // e.g. "_test_"
    std::vector<std::string> native_prefixes;  // e.g. "warp_test::"
};

/// Native-name helpers, exposed for tests and tools.
bool is_identifier(std::string_view s);
bool is_qualified_name(std::string_view s);
/// "external::square" -> {"external::", "square"}; "::g" -> {"::", "g"}; "f" -> {"", "f"}.
std::pair<std::string, std::string> split_native_name(std::string_view qualified);

class Registry;

/// Where a registry keeps one overload: its name's entry and its place among
/// that name's overloads. Overloads are only ever appended, so a position
/// stays valid until Registry::clear().
struct OverloadRef {
    std::uint32_t name = 0;
    std::uint32_t index = 0;
};

/// Overloads a registry holds, in an order of their own (what one owner
/// registered, in call order): positions in the registry, not copies, so that
/// committing a plugin moves each record once instead of keeping a second
/// copy for the plugin (bench/plugin_load). An element is the registry's
/// record as it is now (its owners include those who shared it later). Read
/// after Registry::clear() it throws InternalError; it must not outlive the
/// registry.
class OverloadList {
public:
    class iterator {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = BuiltinOverload;
        using difference_type = std::ptrdiff_t;
        using pointer = const BuiltinOverload *;
        using reference = const BuiltinOverload &;

        iterator() = default;
        reference operator*() const { return (*list_)[i_]; }
        pointer operator->() const { return &(*list_)[i_]; }
        iterator &operator++() {
            ++i_;
            return *this;
        }
        iterator operator++(int) {
            iterator before = *this;
            ++i_;
            return before;
        }
        friend bool operator==(const iterator &a, const iterator &b) { return a.list_ == b.list_ && a.i_ == b.i_; }
        friend bool operator!=(const iterator &a, const iterator &b) { return !(a == b); }

    private:
        friend class OverloadList;
        iterator(const OverloadList *list, std::size_t i) : list_(list), i_(i) {}
        const OverloadList *list_ = nullptr;
        std::size_t i_ = 0;
    };

    OverloadList() = default;
    std::size_t size() const { return refs_.size(); }
    bool empty() const { return refs_.empty(); }
    /// Throws std::out_of_range past the end, InternalError once the registry was cleared.
    const BuiltinOverload &operator[](std::size_t i) const;
    iterator begin() const { return {this, 0}; }
    iterator end() const { return {this, refs_.size()}; }

private:
    friend class Registry;
    OverloadList(const Registry &registry, std::uint64_t generation, std::vector<OverloadRef> refs)
        : registry_(&registry), generation_(generation), refs_(std::move(refs)) {}
    const Registry *registry_ = nullptr;
    std::uint64_t generation_ = 0; // the registry's clear() count when made
    std::vector<OverloadRef> refs_;
};

class Registry {
public:
    Registry();
    ~Registry();
    Registry(const Registry &) = delete;
    Registry &operator=(const Registry &) = delete;

    class Transaction;

    /// Starts staging registrations for `owner`. Only one transaction may be
    /// open at a time per registry.
    Transaction begin(std::string owner, std::optional<NamespacePolicy> policy = std::nullopt);

    /// Overloads of a builtin name, in registration order; empty when unknown.
    const std::vector<BuiltinOverload> &overloads(std::string_view name) const;
    bool has_builtin(std::string_view name) const;
    /// The overload whose parameter types match exactly, if any.
    const BuiltinOverload *find_overload(std::string_view name, const std::vector<Type> &types) const;
    std::vector<std::string> builtin_names() const; // sorted

    /// A native type by qualified name ("warp_test::Color" or "warp_test.Color").
    const NativeTypeInfo *native_type(std::string_view name) const;

    /// Resolves a kernel type name: built-in names and registered native types.
    /// Throws RegistrationError(UnknownType) naming the type.
    Type parse_type(std::string_view name) const;

    std::size_t builtin_count() const; // overloads in all
    std::size_t native_type_count() const;

    /// Drops every registration (a Host does this before unloading plugins).
    void clear();

    /// Registers the core builtins (register_core_builtins) on first use
    /// instead of now: when a transaction begins or a builtin is looked up,
    /// listed or counted. A warm load in a new process reads none of them,
    /// and registering them was two thirds of its time (bench/cpu_compile).
    /// Call it on an empty registry; lookups from several threads are safe.
    void defer_core_builtins();
    /// Whether deferred core builtins are still waiting for their first use.
    bool core_builtins_pending() const;

    /// SHA-256 (hex) of every contract a kernel could resolve against: each
    /// builtin overload's identity and owners in registration order, each
    /// native type's schema digest and owners. Overloads owned by core alone
    /// are left out, and only whether the core builtins are there is hashed
    /// (they are compiled into weft; see build_identity()), so deferred core
    /// builtins are not registered for it. Computed on first use after a
    /// change; part of the warm-load content key.
    std::string contract_digest() const;

private:
    struct State;
    std::unique_ptr<State> state_;
    bool transaction_open_ = false;
    friend class Transaction;
    friend class OverloadList;
    const BuiltinOverload &overload_at(OverloadRef ref, std::uint64_t generation) const;
    void ensure_core() const; // registers deferred core builtins
};

class Registry::Transaction {
public:
    Transaction(Transaction &&other) noexcept;
    Transaction &operator=(Transaction &&) = delete;
    ~Transaction();

    /// Validates and stages a builtin overload. Returns the overload as it will
    /// be after commit (an identical existing one, with this owner added); the
    /// reference is valid until commit or rollback.
    /// Throws RegistrationError; a rejected call stages nothing.
    const BuiltinOverload &add_builtin(const BuiltinSpec &spec);
    /// The same for a native type; an identical schema under the same name is shared.
    NativeTypeInfo add_native_type(const NativeTypeSpec &spec);

    /// Resolves a type name against the registry and what this transaction staged.
    Type parse_type(std::string_view name) const;

    /// Applies everything staged and returns what this owner registered (new
    /// or shared), in call order, as the registry now holds it. Cannot fail:
    /// every staged item was validated against the registry, which no one
    /// else changes while this is open. The staged builtins are moved into
    /// the registry: staged_builtin_count() is 0 afterwards.
    OverloadList commit();
    /// Drops everything staged (also what the destructor does without commit).
    void rollback();

    const std::string &owner() const { return owner_; }
    /// The prefixes this owner's names must start with (none: core, embedders).
    const std::optional<NamespacePolicy> &policy() const { return policy_; }
    /// How many builtins this owner registered through the transaction (new or
    /// shared; a repeated call counts once), until commit.
    std::size_t staged_builtin_count() const { return staged_builtins_.size(); }
    const std::vector<NativeTypeInfo> &staged_native_types() const { return staged_types_; }
    /// How many existing overloads registrations were compared with: it grows
    /// with the overloads of each name, not with all overloads (tests and benches).
    std::size_t overloads_compared() const { return overloads_compared_; }

private:
    friend class Registry;
    Transaction(Registry &registry, std::string owner, std::optional<NamespacePolicy> policy);
    Type resolve_type(std::string_view name) const; // parse_type without its cache

    struct Pending;
    Registry *registry_;
    std::string owner_;
    std::optional<NamespacePolicy> policy_;
    std::unique_ptr<Pending> pending_;
    // Each staged overload in a vector of its own, in call order: commit hands
    // a new name that vector instead of moving the record into a new one.
    std::vector<std::vector<BuiltinOverload>> staged_builtins_;
    std::vector<NativeTypeInfo> staged_types_;
    std::size_t overloads_compared_ = 0;
};

/// Registers weft's core builtins (owner "core") through the public path.
void register_core_builtins(Registry &registry);

} // namespace weft
