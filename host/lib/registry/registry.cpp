#include "weft/registry/registry.hpp"

#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"

#include <algorithm>
#include <array>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace weft {

namespace {

constexpr std::string_view core_owner = "core";

// Names that cannot be builtin or parameter names: kernels are Python syntax.
constexpr std::array<std::string_view, 35> python_keywords{
    "False", "None",   "True",    "and",      "as",       "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",      "elif",     "else",   "except", "finally",  "for",
    "from",  "global", "if",      "import",   "in",       "is",     "lambda", "nonlocal", "not",
    "or",    "pass",   "raise",   "return",   "try",      "while",  "with",   "yield"};

bool is_python_keyword(std::string_view s) {
    // Keywords are 2 to 8 letters: most names are told apart by length alone.
    if (s.size() < 2 || s.size() > 8) return false;
    return std::find(python_keywords.begin(), python_keywords.end(), s) != python_keywords.end();
}

std::string owner_label(const std::string &owner) {
    return owner == core_owner ? std::string(core_owner) : "plugin '" + owner + "'";
}

std::string owners_label(const std::vector<std::string> &owners) {
    std::string out;
    for (std::size_t i = 0; i < owners.size(); ++i) {
        if (i) out += i + 1 == owners.size() ? " and " : ", ";
        out += owner_label(owners[i]);
    }
    return out;
}

std::string join(const std::vector<std::string> &items, std::string_view sep = ", ") {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += sep;
        out += items[i];
    }
    return out;
}

// Appended piece by piece: a scalar's code fits std::string's inline buffer,
// so a key of a few scalars is built without allocating.
std::string types_key(const std::vector<Type> &types) {
    std::string key;
    for (const Type &t : types) {
        key += t.code();
        key += ',';
    }
    return key;
}

std::string types_key(const BuiltinOverload &o) {
    std::string key;
    for (const Parameter &p : o.params) {
        key += p.type.code();
        key += ',';
    }
    return key;
}

/// What makes two overloads of one name the same overload: the parameter types
/// (a generic one is typed by the checker, so all of a name's generics are one).
std::string overload_key(const BuiltinOverload &o) { return o.generic() ? "<generic>" : types_key(o); }

/// The staged-overload index key of a name and its types key (see Pending::new_overload_at).
std::size_t overload_hash(std::string_view name, std::string_view key) {
    const std::size_t h = std::hash<std::string_view>{}(name);
    return h ^ (std::hash<std::string_view>{}(key) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

std::string result_name(const BuiltinOverload &o) { return o.result ? o.result->name() : "void"; }

/// What distinguishes two overloads with the same parameter types, for a conflict message.
std::string difference(const BuiltinOverload &had, const BuiltinOverload &now) {
    std::vector<std::string> parts;
    if (result_name(had) != result_name(now))
        parts.push_back("result type " + result_name(had) + " vs " + result_name(now));
    if (had.native_name != now.native_name) parts.push_back("native target " + had.native_name + " vs " + now.native_name);
    for (std::size_t i = 0; i < had.params.size(); ++i)
        if (had.params[i].name != now.params[i].name)
            parts.push_back("parameter " + std::to_string(i + 1) + " named '" + had.params[i].name + "' vs '" +
                            now.params[i].name + "'");
    return join(parts, "; ");
}

std::string schema_digest(const NativeTypeInfo &t) {
    Sha256 h;
    h.field("weft.native-type.v1");
    h.field(t.native_name);
    h.field(std::to_string(t.size));
    h.field(std::to_string(t.alignment));
    h.field(t.initializer == Initializer::Aggregate ? "aggregate" : "none");
    h.field(std::to_string(t.exposed.size()));
    for (const ExposedField &f : t.exposed) {
        h.field(f.name);
        h.field(f.type.code());
        h.field(std::to_string(f.offset));
    }
    return h.hex();
}

bool starts_with_any(std::string_view s, const std::vector<std::string> &prefixes) {
    return std::any_of(prefixes.begin(), prefixes.end(),
                       [&](const std::string &p) { return !p.empty() && s.substr(0, p.size()) == p; });
}

std::string prefixes_label(const std::vector<std::string> &prefixes) {
    if (prefixes.empty()) return "none declared";
    std::vector<std::string> quoted;
    for (const std::string &p : prefixes) quoted.push_back("'" + p + "'");
    return join(quoted);
}

RegistrationError invalid(const std::string &message) {
    return RegistrationError(RegistrationError::Kind::Invalid, message);
}

/// An array type name with its dtype resolved by `resolve` (a native type is a
/// valid dtype, so this cannot live in parse_builtin_type); nullopt for other names.
template <class Resolve> std::optional<Type> array_type(std::string_view name, Resolve &&resolve) {
    const std::optional<ArrayTypeName> a = parse_array_type_name(name);
    if (!a) return std::nullopt;
    // Decided before resolving: resolving an array dtype recursed once per
    // "array(" and a plugin's 30,000-deep name ran the host out of stack.
    auto nested = [&] {
        return RegistrationError(RegistrationError::Kind::UnknownType,
                                 "unknown kernel type '" + std::string(name) + "': an array's dtype cannot be an array");
    };
    if (parse_array_type_name(a->dtype)) throw nested();
    const Type dtype = resolve(a->dtype);
    if (dtype.kind() == Type::Kind::Array) throw nested();
    return Type::array(dtype, a->ndim);
}

/// The C++ type a plugin states for a parameter or result must have the kernel
/// type's size: the bytes generated code passes are the kernel type's.
/// `what()` names the parameter; it is built only for the error.
template <class What> void check_cpp_size(What &&what, std::uint64_t cpp_size, const Type &type) {
    if (cpp_size != 0 && cpp_size != type.size())
        throw invalid(what() + ": the C++ type is " + std::to_string(cpp_size) + " bytes but kernel type " +
                      type.name() + " is " + std::to_string(type.size()) + " bytes");
}

} // namespace

// ---------------------------------------------------------------------------

// Hand-written rather than std::regex: these run for every registration, and
// libstdc++'s regex costs microseconds per match.
bool is_identifier(std::string_view s) {
    auto head = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; };
    auto tail = [&](char c) { return head(c) || (c >= '0' && c <= '9'); };
    if (s.empty() || !head(s[0])) return false;
    return std::all_of(s.begin() + 1, s.end(), tail);
}

bool is_qualified_name(std::string_view s) {
    // The seed's rule: ^(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*$
    if (s.substr(0, 2) == "::") s.remove_prefix(2);
    for (;;) {
        const auto sep = s.find("::");
        if (!is_identifier(s.substr(0, sep))) return false;
        if (sep == std::string_view::npos) return true;
        s.remove_prefix(sep + 2);
    }
}

std::pair<std::string, std::string> split_native_name(std::string_view qualified) {
    const auto pos = qualified.rfind("::");
    if (pos == std::string_view::npos) return {"", std::string(qualified)};
    return {std::string(qualified.substr(0, pos + 2)), std::string(qualified.substr(pos + 2))};
}

std::string BuiltinOverload::signature() const {
    if (generic()) return generic_signature;
    std::vector<std::string> ps;
    for (const Parameter &p : params) ps.push_back(p.name + ": " + p.type.name());
    return name + "(" + join(ps) + ") -> " + result_name(*this);
}

std::string BuiltinOverload::identity() const {
    if (generic()) return name + "<generic>" + generic_signature + "@" + native_namespace + native_function;
    std::string out = name + "(";
    for (const Parameter &p : params) out += p.name + ":" + p.type.code() + ",";
    out += ")->" + (result ? result->code() : std::string("void"));
    out += "@" + native_namespace + native_function;
    if (!adjoint_native.empty()) out += "/adjoint@" + adjoint_native;
    return out;
}

std::string NativeTypeInfo::describe() const {
    std::string out = "size " + std::to_string(size) + ", align " + std::to_string(alignment) + ", " +
                      (initializer == Initializer::Aggregate ? "aggregate" : "no initializer");
    if (exposed.empty()) return out + ", opaque";
    std::vector<std::string> fs;
    for (const ExposedField &f : exposed) fs.push_back(f.name + ": " + f.type.name() + " @" + std::to_string(f.offset));
    return out + ", fields " + join(fs);
}

// ---------------------------------------------------------------------------

namespace {
/// Lets the builtin table be searched with a string_view (C++20 heterogeneous lookup).
struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
} // namespace

struct Registry::State {
    // Hashed, not ordered: the checker looks a name up for every call it
    // resolves and plugins add names by the thousand (bench/plugin_load);
    // builtin_names() sorts when asked. Nodes are stable, so references
    // returned by overloads() survive later insertions of other names.
    std::unordered_map<std::string, std::vector<BuiltinOverload>, NameHash, std::equal_to<>> builtins;
    std::size_t builtin_count = 0; // overloads in all
    std::map<std::string, NativeTypeInfo, std::less<>> native_types;
    // contract_digest(), computed on first use after a change.
    std::mutex digest_mutex;
    std::string digest;
};

Registry::Registry() : state_(std::make_unique<State>()) {}
Registry::~Registry() = default;

Registry::Transaction Registry::begin(std::string owner, std::optional<NamespacePolicy> policy) {
    if (transaction_open_) throw InternalError("Registry: a transaction is already open");
    return Transaction(*this, std::move(owner), std::move(policy));
}

const std::vector<BuiltinOverload> &Registry::overloads(std::string_view name) const {
    static const std::vector<BuiltinOverload> none;
    auto it = state_->builtins.find(name);
    return it == state_->builtins.end() ? none : it->second;
}

bool Registry::has_builtin(std::string_view name) const { return state_->builtins.count(name) != 0; }

const BuiltinOverload *Registry::find_overload(std::string_view name, const std::vector<Type> &types) const {
    const std::string key = types_key(types);
    for (const BuiltinOverload &o : overloads(name))
        if (!o.generic() && types_key(o) == key) return &o;
    return nullptr;
}

std::vector<std::string> Registry::builtin_names() const {
    std::vector<std::string> out;
    out.reserve(state_->builtins.size());
    for (const auto &[name, _] : state_->builtins) out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
}

const NativeTypeInfo *Registry::native_type(std::string_view name) const {
    auto it = state_->native_types.find(normalize_native_name(name));
    return it == state_->native_types.end() ? nullptr : &it->second;
}

std::vector<std::string> Registry::native_type_names() const {
    std::vector<std::string> out;
    for (const auto &[name, _] : state_->native_types) out.push_back(name);
    return out;
}

Type Registry::parse_type(std::string_view name) const {
    if (auto t = parse_builtin_type(name)) return std::move(*t);
    if (auto t = array_type(name, [this](std::string_view d) { return parse_type(d); })) return *t;
    if (const NativeTypeInfo *n = native_type(name)) return n->type();
    throw RegistrationError(RegistrationError::Kind::UnknownType, "unknown kernel type '" + std::string(name) + "'");
}

std::size_t Registry::builtin_count() const { return state_->builtin_count; }

std::size_t Registry::native_type_count() const { return state_->native_types.size(); }

void Registry::clear() {
    state_->builtins.clear();
    state_->builtin_count = 0;
    state_->native_types.clear();
    std::lock_guard<std::mutex> lock(state_->digest_mutex);
    state_->digest.clear();
}

std::string Registry::contract_digest() const {
    std::lock_guard<std::mutex> lock(state_->digest_mutex);
    if (!state_->digest.empty()) return state_->digest;
    const auto core_only = [](const std::vector<std::string> &owners) {
        return owners.size() == 1 && owners.front() == "core";
    };
    // Core registrations are compiled into weft (build_identity() stands for
    // them) and are most of the registry: they are counted, not hashed, so the
    // digest costs what the plugins' registrations cost.
    Sha256 h;
    h.field("weft.registry-contracts.v1");
    std::size_t core = 0;
    for (const auto &[name, overloads] : state_->builtins) {
        h.field(name).field(std::to_string(overloads.size())); // registration order within a name
        for (const BuiltinOverload &o : overloads) {
            if (core_only(o.owners)) {
                ++core;
                h.field("core");
                continue;
            }
            h.field(o.identity()).field(std::to_string(o.owners.size()));
            for (const std::string &owner : o.owners) h.field(owner);
        }
    }
    h.field("core builtins").field(std::to_string(core));
    h.field("native types").field(std::to_string(state_->native_types.size()));
    for (const auto &[name, t] : state_->native_types) {
        h.field(name).field(t.digest).field(std::to_string(t.owners.size()));
        for (const std::string &owner : t.owners) h.field(owner);
    }
    state_->digest = h.hex();
    return state_->digest;
}

// ---------------------------------------------------------------------------

struct Registry::Transaction::Pending {
    // Overloads new to the registry, as indexes into staged_builtins_: each is
    // stored once until commit copies it into the registry.
    std::vector<std::size_t> new_overloads;
    std::vector<std::pair<std::string, std::string>> shared_overloads; // {name, types key}
    std::vector<NativeTypeInfo> new_types;
    std::vector<std::string> shared_types;
    // Indexes over the above, so that each registration costs the same however
    // many came before it (a linear scan made 100,000 builtins take 42 s).
    // new_overload_at is keyed by overload_hash(name, types key), not by a
    // string, so staging an overload allocates no key; a hit is confirmed by
    // comparing the name and the types.
    std::unordered_multimap<std::size_t, std::size_t> new_overload_at; // -> staged_builtins_ index
    std::unordered_map<std::string, std::size_t> shared_identities; // identity() of a shared overload -> staged_builtins_ index
    std::unordered_set<std::string> staged_type_names;
};

Registry::Transaction::Transaction(Registry &registry, std::string owner, std::optional<NamespacePolicy> policy)
    : registry_(&registry), owner_(std::move(owner)), policy_(std::move(policy)),
      pending_(std::make_unique<Pending>()) {
    registry_->transaction_open_ = true;
}

Registry::Transaction::Transaction(Transaction &&other) noexcept
    : registry_(other.registry_), owner_(std::move(other.owner_)), policy_(std::move(other.policy_)),
      pending_(std::move(other.pending_)), staged_builtins_(std::move(other.staged_builtins_)),
      staged_types_(std::move(other.staged_types_)), overloads_compared_(other.overloads_compared_) {
    other.registry_ = nullptr;
}

Registry::Transaction::~Transaction() {
    if (registry_) registry_->transaction_open_ = false;
}

Type Registry::Transaction::parse_type(std::string_view name) const {
    if (auto t = parse_builtin_type(name)) return std::move(*t);
    if (auto t = array_type(name, [this](std::string_view d) { return parse_type(d); })) return *t;
    const std::string normalized = normalize_native_name(name);
    for (const NativeTypeInfo &n : pending_->new_types)
        if (n.native_name == normalized) return n.type();
    return registry_->parse_type(name);
}

const BuiltinOverload &Registry::Transaction::add_builtin(const BuiltinSpec &spec) {
    if (!registry_) throw InternalError("Registry::Transaction used after commit or move");
    // Built only when a message needs it: every plugin builtin passes here, and
    // the common path allocates little more than the record it stages.
    auto what = [&] { return "builtin '" + spec.name + "'"; };
    if (!is_identifier(spec.name)) throw invalid("builtin name '" + spec.name + "' is not a valid identifier");
    if (is_python_keyword(spec.name)) throw invalid("builtin name '" + spec.name + "' is a reserved keyword");

    BuiltinOverload o;
    o.name = spec.name;
    o.params.reserve(spec.params.size());
    // Duplicate parameter names: a scan of the few earlier ones, or a set once
    // a (hostile) list is long enough for the scan to be quadratic.
    constexpr std::size_t scan_limit = 16;
    std::set<std::string_view> seen; // used past scan_limit parameters only
    for (std::size_t i = 0; i < spec.params.size(); ++i) {
        const ParameterSpec &p = spec.params[i];
        if (!is_identifier(p.name) || is_python_keyword(p.name))
            throw invalid(what() + ": parameter " + std::to_string(i + 1) + " name '" + p.name +
                          "' is not a valid identifier");
        const bool twice = spec.params.size() <= scan_limit
                               ? std::any_of(spec.params.begin(), spec.params.begin() + static_cast<std::ptrdiff_t>(i),
                                             [&](const ParameterSpec &q) { return q.name == p.name; })
                               : !seen.insert(p.name).second;
        if (twice) throw invalid(what() + ": parameter name '" + p.name + "' appears twice");
        try {
            o.params.push_back({p.name, parse_type(p.type)});
        } catch (const RegistrationError &e) {
            throw RegistrationError(e.kind(), what() + ": parameter '" + p.name + "': " + e.what());
        }
        check_cpp_size([&] { return what() + ": parameter '" + p.name + "'"; }, p.cpp_size, o.params.back().type);
    }
    if (!spec.result.empty()) {
        try {
            o.result = parse_type(spec.result);
        } catch (const RegistrationError &e) {
            throw RegistrationError(e.kind(), what() + ": result: " + e.what());
        }
        check_cpp_size([&] { return what() + ": result"; }, spec.result_cpp_size, *o.result);
    } else if (spec.result_cpp_size != 0) {
        throw invalid(what() + ": the result is void but its C++ type is stated as " +
                      std::to_string(spec.result_cpp_size) + " bytes");
    }
    o.native_name = spec.native_name.empty() ? "weft::" + spec.name : spec.native_name;
    if (!is_qualified_name(o.native_name))
        throw invalid(what() + ": native name '" + o.native_name + "' is not a valid qualified C++ identifier");
    std::tie(o.native_namespace, o.native_function) = split_native_name(o.native_name);
    o.doc = spec.doc;
    const bool core = owner_ == core_owner;
    if (!spec.generic_signature.empty()) {
        if (!core) throw invalid(what() + ": only core builtins can be generic");
        o.generic_signature = spec.generic_signature;
        o.params.clear();
        o.result.reset();
    }
    o.external = !core;
    o.hidden = !core;
    o.differentiable = core || !spec.adjoint_native.empty();
    if (!spec.adjoint_native.empty()) {
        if (core) throw invalid(what() + ": core builtins have runtime adjoints, not adjoint_native");
        if (!o.result) throw invalid(what() + ": a builtin without a result has nothing to differentiate (adjoint_native)");
        if (!is_qualified_name(spec.adjoint_native))
            throw invalid(what() + ": adjoint_native '" + spec.adjoint_native + "' is not a valid qualified C++ identifier");
        o.adjoint_native = spec.adjoint_native;
    }
    o.owners = {owner_};

    const std::vector<BuiltinOverload> &committed = registry_->overloads(spec.name);
    if (policy_) {
        const bool core_name =
            std::any_of(committed.begin(), committed.end(), [](const BuiltinOverload &e) {
                            return std::find(e.owners.begin(), e.owners.end(), core_owner) != e.owners.end();
                        });
        if (!core_name && !starts_with_any(spec.name, policy_->builtin_prefixes))
            throw RegistrationError(RegistrationError::Kind::Namespace,
                                    what() + ": name is outside the builtin prefixes " + owner_label(owner_) +
                                        " owns (" + prefixes_label(policy_->builtin_prefixes) + ")");
        if (!o.adjoint_native.empty() && !starts_with_any(o.adjoint_native, policy_->native_prefixes))
            throw RegistrationError(RegistrationError::Kind::Namespace,
                                    what() + ": adjoint_native '" + o.adjoint_native + "' is outside the native prefixes " +
                                        owner_label(owner_) + " owns (" + prefixes_label(policy_->native_prefixes) +
                                        ")");
        if (!starts_with_any(o.native_name, policy_->native_prefixes))
            throw RegistrationError(RegistrationError::Kind::Namespace,
                                    what() + ": native name '" + o.native_name + "' is outside the native prefixes " +
                                        owner_label(owner_) + " owns (" + prefixes_label(policy_->native_prefixes) +
                                        ")");
    }

    const std::string key = overload_key(o);
    auto same_types = [&](const BuiltinOverload &e) {
        ++overloads_compared_;
        return e.name == o.name && e.generic() == o.generic() && (o.generic() || types_key(e) == key);
    };

    const std::size_t hash = overload_hash(o.name, key);
    for (auto [at, end] = pending_->new_overload_at.equal_range(hash); at != end; ++at) {
        const BuiltinOverload &e = staged_builtins_[at->second];
        if (e.name != o.name || overload_key(e) != key) continue; // another overload with the same hash
        ++overloads_compared_;
        if (e.identity() == o.identity()) return e; // already staged by this init: nothing new
        throw RegistrationError(RegistrationError::Kind::Conflict,
                                "conflicting builtin overload " + o.signature() + ": " + owner_label(owner_) +
                                    " already registered " + e.signature() + " [native " + e.native_name +
                                    "] in the same init (" + difference(e, o) + ")");
    }
    for (const BuiltinOverload &e : committed) {
        if (!same_types(e)) continue;
        const std::string identity = o.identity();
        if (e.identity() == identity) {
            // Identical contract: the existing function is returned, ownership is shared.
            if (auto at = pending_->shared_identities.find(identity); at != pending_->shared_identities.end())
                return staged_builtins_[at->second]; // shared earlier in this init
            const bool owned = std::find(e.owners.begin(), e.owners.end(), owner_) != e.owners.end();
            BuiltinOverload shared = e;
            if (!owned) {
                shared.owners.push_back(owner_);
                pending_->shared_overloads.emplace_back(o.name, key);
            }
            pending_->shared_identities.emplace(identity, staged_builtins_.size());
            staged_builtins_.push_back(std::move(shared));
            return staged_builtins_.back();
        }
        throw RegistrationError(RegistrationError::Kind::Conflict,
                                "conflicting builtin overload " + o.signature() + " [native " + o.native_name +
                                    "] from " + owner_label(owner_) + ": " + owners_label(e.owners) +
                                    " registered " + e.signature() + " [native " + e.native_name + "] (" +
                                    difference(e, o) + ")");
    }
    pending_->new_overload_at.emplace(hash, staged_builtins_.size());
    pending_->new_overloads.push_back(staged_builtins_.size());
    // Records are large: growing from one moved each of them about twice.
    if (staged_builtins_.empty()) staged_builtins_.reserve(32);
    staged_builtins_.push_back(std::move(o));
    return staged_builtins_.back();
}

NativeTypeInfo Registry::Transaction::add_native_type(const NativeTypeSpec &spec) {
    if (!registry_) throw InternalError("Registry::Transaction used after commit or move");
    const std::string what = "native type '" + spec.native_name + "'";
    if (!is_qualified_name(spec.native_name))
        throw invalid("native type name '" + spec.native_name + "' is not a valid qualified C++ identifier");
    if (parse_builtin_type(spec.native_name))
        throw invalid(what + ": the name is a built-in kernel type");
    if (policy_ && !starts_with_any(spec.native_name, policy_->native_prefixes))
        throw RegistrationError(RegistrationError::Kind::Namespace,
                                what + ": name is outside the native prefixes " + owner_label(owner_) + " owns (" +
                                    prefixes_label(policy_->native_prefixes) + ")");
    if (spec.size == 0) throw invalid(what + ": size is 0");
    if (spec.alignment == 0 || (spec.alignment & (spec.alignment - 1)) != 0)
        throw invalid(what + ": alignment " + std::to_string(spec.alignment) + " is not a power of two");
    if (spec.size % spec.alignment != 0)
        throw invalid(what + ": size " + std::to_string(spec.size) + " is not a multiple of its alignment " +
                      std::to_string(spec.alignment));

    NativeTypeInfo t;
    t.native_name = spec.native_name;
    t.size = spec.size;
    t.alignment = spec.alignment;
    t.initializer = spec.initializer;
    t.doc = spec.doc;
    t.owners = {owner_};

    std::set<std::string> declared_names;
    for (const DeclaredField &f : spec.fields) {
        const std::string field = what + ": field '" + f.name + "'";
        if (!is_identifier(f.name)) throw invalid(what + ": field name '" + f.name + "' is not a valid identifier");
        if (!declared_names.insert(f.name).second) throw invalid(field + " is declared twice");
        if (f.bit_width != 0)
            throw invalid(field + " is a bit-field (" + std::to_string(f.bit_width) +
                          " bits); bit-field layouts are not supported");
        if (f.size == 0) throw invalid(field + " has size 0");
        if (f.offset + f.size > spec.size)
            throw invalid(field + " at offset " + std::to_string(f.offset) + " with size " + std::to_string(f.size) +
                          " extends past the type's size " + std::to_string(spec.size));
        t.fields.push_back(f);
    }

    std::set<std::string> exposed_names;
    for (const ParameterSpec &e : spec.exposed) {
        const std::string field = what + ": exposed field '" + e.name + "'";
        auto decl = std::find_if(spec.fields.begin(), spec.fields.end(),
                                 [&](const DeclaredField &f) { return f.name == e.name; });
        if (decl == spec.fields.end()) throw invalid(field + " is not a declared field");
        if (!exposed_names.insert(e.name).second) throw invalid(field + " is exposed twice");
        Type type = [&] {
            try {
                return parse_type(e.type);
            } catch (const RegistrationError &err) {
                throw RegistrationError(err.kind(), field + ": " + err.what());
            }
        }();
        if (type.size() != decl->size)
            throw invalid(field + ": its storage is " + std::to_string(decl->size) + " bytes but kernel type " +
                          type.name() + " is " + std::to_string(type.size()) + " bytes");
        t.exposed.push_back({e.name, type, decl->offset, decl->size});
    }

    if (spec.initializer == Initializer::Aggregate) {
        // C++ aggregate initialization is positional: anything but every declared
        // field, in order, would silently initialize the wrong members.
        const std::string rule = what + ": initializer=aggregate requires every declared field exposed in declaration order";
        for (std::size_t i = 0; i < spec.fields.size(); ++i) {
            if (i >= spec.exposed.size()) throw invalid(rule + "; field '" + spec.fields[i].name + "' is not exposed");
            if (spec.exposed[i].name != spec.fields[i].name)
                throw invalid(rule + "; exposed field " + std::to_string(i + 1) + " is '" + spec.exposed[i].name +
                              "', declared field " + std::to_string(i + 1) + " is '" + spec.fields[i].name + "'");
        }
        if (spec.fields.empty()) throw invalid(rule + "; no fields are declared");
    }

    t.digest = schema_digest(t);
    t.code = "nt" + t.digest.substr(0, 16);

    auto settle = [&](const NativeTypeInfo &e, bool committed) {
        if (e.digest != t.digest)
            throw RegistrationError(RegistrationError::Kind::Conflict,
                                    what + " has a different definition: " + owners_label(e.owners) +
                                        " registered " + e.describe() + "; " + owner_label(owner_) + " registers " +
                                        t.describe());
        const bool owned = std::find(e.owners.begin(), e.owners.end(), owner_) != e.owners.end();
        NativeTypeInfo shared = e;
        if (!committed) return shared; // staged earlier in this init: nothing new
        const bool staged = pending_->staged_type_names.count(e.native_name) != 0;
        if (!owned) {
            shared.owners.push_back(owner_);
            if (!staged) pending_->shared_types.push_back(e.native_name);
        }
        if (!staged) {
            staged_types_.push_back(shared);
            pending_->staged_type_names.insert(e.native_name);
        }
        return shared;
    };
    if (pending_->staged_type_names.count(t.native_name))
        for (const NativeTypeInfo &e : pending_->new_types)
            if (e.native_name == t.native_name) return settle(e, false);
    if (const NativeTypeInfo *e = registry_->native_type(t.native_name)) return settle(*e, true);

    pending_->new_types.push_back(t);
    pending_->staged_type_names.insert(t.native_name);
    staged_types_.push_back(t);
    return t;
}

void Registry::Transaction::commit() {
    if (!registry_) throw InternalError("Registry::Transaction committed twice");
    State &s = *registry_->state_;
    for (NativeTypeInfo &t : pending_->new_types) {
        const std::string name = t.native_name;
        s.native_types.emplace(name, std::move(t));
    }
    for (const std::string &name : pending_->shared_types) s.native_types.at(name).owners.push_back(owner_);
    // Copied, not moved: staged_builtins_ stays the owner's record of what it registered.
    for (std::size_t i : pending_->new_overloads) {
        const BuiltinOverload &o = staged_builtins_[i];
        s.builtins[o.name].push_back(o);
        ++s.builtin_count;
    }
    for (const auto &[name, key] : pending_->shared_overloads)
        for (BuiltinOverload &o : s.builtins.at(name))
            if (types_key(o) == key) o.owners.push_back(owner_);
    {
        std::lock_guard<std::mutex> lock(s.digest_mutex);
        s.digest.clear();
    }
    pending_ = std::make_unique<Pending>();
    registry_->transaction_open_ = false;
    registry_ = nullptr;
}

void Registry::Transaction::rollback() {
    pending_ = std::make_unique<Pending>();
    staged_builtins_.clear();
    staged_types_.clear();
}

} // namespace weft
