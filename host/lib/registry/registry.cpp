#include "weft/registry/registry.hpp"

#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <limits>
#include <utility>
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

template <class Owners> std::string owners_label(const Owners &owners) {
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

/// A hash consistent with Type's operator== (which mirrors code()): only what
/// == compares for the type's kind is mixed in, so equal types hash alike.
/// Overloads are told apart by comparing Types, not code strings: building a
/// key string per registration was a tenth of add_builtin (bench/plugin_load).
std::size_t type_hash(const Type &t) {
    auto mix = [](std::size_t h, std::size_t v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); };
    std::size_t h = static_cast<std::size_t>(t.kind());
    switch (t.kind()) {
    case Type::Kind::Scalar:
    case Type::Kind::Quaternion:
    case Type::Kind::Transform: return mix(h, static_cast<std::size_t>(t.scalar_type()));
    case Type::Kind::Vector: return mix(mix(h, static_cast<std::size_t>(t.scalar_type())), static_cast<std::size_t>(t.rows()));
    case Type::Kind::Matrix:
        return mix(mix(mix(h, static_cast<std::size_t>(t.scalar_type())), static_cast<std::size_t>(t.rows())),
                   static_cast<std::size_t>(t.cols()));
    case Type::Kind::Array: return mix(mix(h, static_cast<std::size_t>(t.ndim())), type_hash(t.element()));
    default: return h; // native, struct, tuple: equal ones share the kind; == tells them apart
    }
}

/// Same parameter types, compared as Types (operator== is code() equality).
bool same_param_types(const BuiltinOverload &a, const BuiltinOverload &b) {
    if (a.params.size() != b.params.size()) return false;
    for (std::size_t i = 0; i < a.params.size(); ++i)
        if (a.params[i].type != b.params[i].type) return false;
    return true;
}

/// What makes two overloads of one name the same overload: the parameter types
/// (a generic one is typed by the checker, so all of a name's generics are one).
bool same_overload(const BuiltinOverload &a, const BuiltinOverload &b) {
    return a.generic() == b.generic() && (a.generic() || same_param_types(a, b));
}

/// The staged-overload index key of a name and its parameter types (see Pending::new_overload_at).
/// `name_hash` is NameTable::hash_of(o.name), computed once per registration.
std::size_t overload_hash(const BuiltinOverload &o, std::size_t name_hash) {
    std::size_t h = name_hash;
    auto mix = [&](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    if (o.generic()) {
        mix(1);
        return h;
    }
    for (const Parameter &p : o.params) mix(type_hash(p.type));
    return h;
}

/// A multimap from a hash to positions, in one flat array (open addressing,
/// at most half full): the staged-overload index. std::unordered_multimap
/// allocated a node per staged overload, one of the few allocations left per
/// registration (bench/plugin_load).
class HashIndex {
public:
    /// The first position stored under `hash` that `match(position)` accepts, or npos.
    template <class Match> std::size_t find(std::size_t hash, Match &&match) const {
        if (slots_.empty()) return npos;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = hash & mask; slots_[i].position != 0; i = (i + 1) & mask)
            if (slots_[i].hash == hash && match(slots_[i].position - 1)) return slots_[i].position - 1;
        return npos;
    }

    void add(std::size_t hash, std::size_t position) {
        if ((count_ + 1) * 2 > slots_.size()) {
            std::vector<Slot> old = std::move(slots_);
            slots_.assign(std::max<std::size_t>(64, old.size() * 2), Slot{});
            for (const Slot &s : old)
                if (s.position != 0) place(s);
        }
        place({hash, position + 1});
        ++count_;
    }

    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

private:
    struct Slot {
        std::size_t hash = 0;
        std::size_t position = 0; // + 1; 0: empty
    };
    void place(const Slot &s) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = s.hash & mask;
        while (slots_[i].position != 0) i = (i + 1) & mask;
        slots_[i] = s;
    }
    std::vector<Slot> slots_; // a power of two in size
    std::size_t count_ = 0;
};

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
    // Appended only for differentiable types: every other type keeps its digest.
    if (t.differentiable) h.field("differentiable").field(t.adjoint_accumulate);
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
// libstdc++'s regex costs microseconds per match. A table says what each
// byte may be, so a name costs a load and an AND per character: every plugin
// builtin checks three or more names (bench/plugin_load).
namespace {
constexpr std::uint8_t ident_head = 1, ident_tail = 2;
constexpr std::array<std::uint8_t, 256> identifier_bytes = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = ident_head | ident_tail;
    for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = ident_head | ident_tail;
    t['_'] = ident_head | ident_tail;
    for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = ident_tail;
    return t;
}();
std::uint8_t byte_class(char c) { return identifier_bytes[static_cast<unsigned char>(c)]; }
} // namespace

bool is_identifier(std::string_view s) {
    if (s.empty() || !(byte_class(s[0]) & ident_head)) return false;
    std::uint8_t all = ident_tail; // no early exit: the common name passes, and the loop stays branch-free
    for (std::size_t i = 1; i < s.size(); ++i) all &= byte_class(s[i]);
    return all != 0;
}

bool is_qualified_name(std::string_view s) {
    // The seed's rule: ^(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*$, in one pass:
    // every plugin builtin's native name passes here (bench/plugin_load).
    std::size_t i = s.substr(0, 2) == "::" ? 2 : 0;
    for (;;) {
        if (i == s.size() || !(byte_class(s[i]) & ident_head)) return false;
        for (++i; i < s.size() && (byte_class(s[i]) & ident_tail);) ++i;
        if (i == s.size()) return true;
        if (s.substr(i, 2) != "::") return false;
        i += 2;
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
    for (const Parameter &p : params) ps.push_back(p.name + ": " + p.type.name() + (p.inout ? " (inout)" : ""));
    return name + "(" + join(ps) + ") -> " + result_name(*this);
}

std::string BuiltinOverload::identity() const {
    if (generic()) return name + "<generic>" + generic_signature + "@" + native_namespace + native_function;
    std::string out = name + "(";
    for (const Parameter &p : params) out += p.name + ":" + p.type.code() + (p.inout ? "&," : ",");
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
    out += ", fields " + join(fs);
    if (differentiable)
        out += ", differentiable (" + (adjoint_accumulate.empty() ? std::string("adjoints added field by field")
                                                                  : "adjoints added by " + adjoint_accumulate) + ")";
    return out;
}

// ---------------------------------------------------------------------------

namespace {
/// The builtin table: each name's overloads, found by name.
///
/// Hashed, not ordered: the checker looks a name up for every call it resolves
/// and plugins add names by the thousand; builtin_names() sorts when asked.
/// Entries live in a deque, in first-registration order, so references
/// returned by overloads() survive later insertions. An open-addressing index
/// of {hash bits, position} finds them: a name that is not there, which is
/// what every new plugin builtin looks up (twice: staging and commit), costs a
/// probe or two into one compact array. std::unordered_map walked heap nodes
/// and divided by a prime, and those cache misses were a visible part of
/// loading 10,000 builtins (bench/plugin_load).
class NameTable {
public:
    struct Entry {
        std::string name;
        std::vector<BuiltinOverload> overloads;
        std::size_t hash = 0;
    };

    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    const Entry *find(std::string_view name) const {
        const std::size_t at = position(name, hash_of(name));
        return at == npos ? nullptr : &entries_[at];
    }
    static std::size_t hash_of(std::string_view s) { return std::hash<std::string_view>{}(s); }

    /// The entry's place in first-registration order (an OverloadRef's name),
    /// or npos; `h` is hash_of(name), which a registration computes once.
    std::size_t position(std::string_view name, std::size_t h) const {
        if (slots_.empty()) return npos;
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const Slot s = slots_[i];
            if (s.position == 0) return npos;
            if (s.tag == tag_of(h) && entries_[s.position - 1].name == name) return s.position - 1;
        }
    }
    /// The slot a lookup of `h` reads first, or null, for the caller to
    /// prefetch. The slots of 10,000 names are cold by the time a
    /// registration looks one up, and that one cache miss was a fifth of
    /// add_builtin (bench/plugin_load); issued early, it overlaps the
    /// validation before the lookup. The caller issues the prefetch itself:
    /// GCC 12 takes a function whose only effect is a prefetch for a pure
    /// one and deletes calls to it, so a prefetch() member here emitted no
    /// instruction at all.
    const void *first_slot(std::size_t h) const {
        return slots_.empty() ? nullptr : &slots_[h & (slots_.size() - 1)];
    }
    Entry &at(std::size_t position) { return entries_[position]; }
    const Entry &at(std::size_t position) const { return entries_[position]; }

    /// The position of the entry for `name` (whose hash_of() is `h`), added when there is none.
    std::size_t find_or_add(std::string_view name, std::size_t h) {
        if (const std::size_t at = position(name, h); at != npos) return at;
        // At most half full, so probes stay short.
        if ((entries_.size() + 1) * 2 > slots_.size()) grow();
        entries_.push_back({std::string(name), {}, h});
        place(h, entries_.size());
        return entries_.size() - 1;
    }

    std::size_t size() const { return entries_.size(); }
    const std::deque<Entry> &entries() const { return entries_; }
    void clear() {
        entries_.clear();
        slots_.clear();
    }

private:
    struct Slot {
        std::uint32_t tag = 0;      // high bits of the name's hash
        std::uint32_t position = 0; // index into entries_ + 1; 0: empty
    };

    static std::uint32_t tag_of(std::size_t h) { return static_cast<std::uint32_t>(std::uint64_t{h} >> 32); }

    void place(std::size_t h, std::size_t position) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t i = h & mask;
        while (slots_[i].position != 0) i = (i + 1) & mask;
        slots_[i] = {tag_of(h), static_cast<std::uint32_t>(position)};
    }

    void grow() {
        if (entries_.size() >= std::numeric_limits<std::uint32_t>::max() / 2)
            throw InternalError("Registry: too many builtin names");
        slots_.assign(std::max<std::size_t>(64, slots_.size() * 2), Slot{});
        for (std::size_t i = 0; i < entries_.size(); ++i) place(entries_[i].hash, i + 1);
    }

    std::deque<Entry> entries_;
    std::vector<Slot> slots_; // a power of two in size
};
} // namespace

struct Registry::State {
    NameTable builtins;
    std::size_t builtin_count = 0; // overloads in all
    std::uint64_t generation = 0;  // clear() calls: an OverloadList of an earlier one is stale
    std::map<std::string, NativeTypeInfo, std::less<>> native_types;
    // contract_digest(), computed on first use after a change.
    std::mutex digest_mutex;
    std::string digest;
    // The core builtins: registered (by a "core" transaction, or deferred and
    // so as good as registered) or not. The contract digest says which.
    bool has_core = false;
    // Deferred core builtins (defer_core_builtins): false until registered.
    // The mutex is recursive because registering them goes through begin()
    // and the other public functions, which must then let the registration
    // itself through (core_registering) while other threads wait.
    std::atomic<bool> core_ready{true};
    std::recursive_mutex core_mutex;
    bool core_registering = false;
};

Registry::Registry() : state_(std::make_unique<State>()) {}
Registry::~Registry() = default;

void Registry::defer_core_builtins() {
    if (state_->builtin_count != 0 || transaction_open_)
        throw InternalError("Registry: core builtins are deferred before anything is registered");
    const std::lock_guard<std::mutex> lock(state_->digest_mutex);
    state_->has_core = true;
    state_->digest.clear(); // it said "no core builtins"
    state_->core_ready.store(false, std::memory_order_release);
}

bool Registry::core_builtins_pending() const { return !state_->core_ready.load(std::memory_order_acquire); }

void Registry::ensure_core() const {
    if (state_->core_ready.load(std::memory_order_acquire)) return;
    const std::lock_guard<std::recursive_mutex> lock(state_->core_mutex);
    if (state_->core_ready.load(std::memory_order_relaxed) || state_->core_registering) return;
    state_->core_registering = true;
    struct Done {
        State &s;
        ~Done() { s.core_registering = false; }
    } done{*state_};
    // Deferring is an optimization of when, not of what: the registry was
    // made non-const by its owner, and reads see the same table they would
    // have seen had the core been registered up front.
    register_core_builtins(const_cast<Registry &>(*this));
    state_->core_ready.store(true, std::memory_order_release);
}

Registry::Transaction Registry::begin(std::string owner, std::optional<NamespacePolicy> policy) {
    ensure_core();
    if (transaction_open_) throw InternalError("Registry: a transaction is already open");
    return Transaction(*this, std::move(owner), std::move(policy));
}

const std::vector<BuiltinOverload> &Registry::overloads(std::string_view name) const {
    ensure_core();
    static const std::vector<BuiltinOverload> none;
    const NameTable::Entry *e = state_->builtins.find(name);
    return e ? e->overloads : none;
}

bool Registry::has_builtin(std::string_view name) const {
    ensure_core();
    return state_->builtins.find(name) != nullptr;
}

const BuiltinOverload *Registry::find_overload(std::string_view name, const std::vector<Type> &types) const {
    for (const BuiltinOverload &o : overloads(name)) {
        if (o.generic() || o.params.size() != types.size()) continue;
        if (std::equal(types.begin(), types.end(), o.params.begin(),
                       [](const Type &t, const Parameter &p) { return t == p.type; }))
            return &o;
    }
    return nullptr;
}

std::vector<std::string> Registry::builtin_names() const {
    ensure_core();
    std::vector<std::string> out;
    out.reserve(state_->builtins.size());
    for (const NameTable::Entry &e : state_->builtins.entries()) out.push_back(e.name);
    std::sort(out.begin(), out.end());
    return out;
}

const NativeTypeInfo *Registry::native_type(std::string_view name) const {
    auto it = state_->native_types.find(normalize_native_name(name));
    return it == state_->native_types.end() ? nullptr : &it->second;
}

Type Registry::parse_type(std::string_view name) const {
    if (auto t = parse_builtin_type(name)) return std::move(*t);
    if (auto t = array_type(name, [this](std::string_view d) { return parse_type(d); })) return *t;
    if (const NativeTypeInfo *n = native_type(name)) return n->type();
    throw RegistrationError(RegistrationError::Kind::UnknownType, "unknown kernel type '" + std::string(name) + "'");
}

const BuiltinOverload &Registry::overload_at(OverloadRef ref, std::uint64_t generation) const {
    if (generation != state_->generation)
        throw InternalError("a registry's overload list was read after Registry::clear() dropped its overloads");
    return state_->builtins.at(ref.name).overloads.at(ref.index);
}

const BuiltinOverload &OverloadList::operator[](std::size_t i) const {
    return registry_->overload_at(refs_.at(i), generation_);
}

std::size_t Registry::builtin_count() const {
    ensure_core();
    return state_->builtin_count;
}

std::size_t Registry::native_type_count() const { return state_->native_types.size(); }

void Registry::clear() {
    // Cleared means empty: deferred core builtins are not registered afterwards.
    state_->core_ready.store(true, std::memory_order_release);
    state_->has_core = false;
    ++state_->generation;
    state_->builtins.clear();
    state_->builtin_count = 0;
    state_->native_types.clear();
    std::lock_guard<std::mutex> lock(state_->digest_mutex);
    state_->digest.clear();
}

std::string Registry::contract_digest() const {
    // Not registering deferred core builtins, but not reading the tables
    // while another thread registers them either.
    std::unique_lock<std::recursive_mutex> core_lock;
    if (!state_->core_ready.load(std::memory_order_acquire))
        core_lock = std::unique_lock<std::recursive_mutex>(state_->core_mutex);
    std::lock_guard<std::mutex> lock(state_->digest_mutex);
    if (!state_->digest.empty()) return state_->digest;
    const auto core_only = [](const OwnerList &owners) {
        return owners.size() == 1 && owners.front() == "core";
    };
    // Core registrations are compiled into weft (build_identity() stands for
    // them) and are most of the registry: whether they are there is hashed,
    // not what they are, so the digest costs what the plugins' registrations
    // cost. It does not register deferred core builtins either: the names a
    // plugin shares with core are there whenever a plugin registered, and
    // the others do not take part, so the digest is the same before and after.
    Sha256 h;
    h.field("weft.registry-contracts.v2");
    // By name, so that the same plugins loaded in another order give the same digest.
    std::vector<const NameTable::Entry *> by_name;
    by_name.reserve(state_->builtins.entries().size());
    // Names only core registered are counted without being sorted or hashed:
    // sorting and hashing the core's two thousand names was two fifths of a
    // warm load in a new process (callgrind, bench_vs_warp), where the digest
    // is part of the content key.
    for (const NameTable::Entry &entry : state_->builtins.entries()) {
        if (std::all_of(entry.overloads.begin(), entry.overloads.end(),
                        [&](const BuiltinOverload &o) { return core_only(o.owners); })) {
            continue;
        }
        by_name.push_back(&entry);
    }
    std::sort(by_name.begin(), by_name.end(),
              [](const NameTable::Entry *a, const NameTable::Entry *b) { return a->name < b->name; });
    for (const NameTable::Entry *entry : by_name) {
        const auto &[name, overloads, hash] = *entry;
        h.field(name).field(std::to_string(overloads.size())); // registration order within a name
        for (const BuiltinOverload &o : overloads) {
            if (core_only(o.owners)) {
                h.field("core");
                continue;
            }
            h.field(o.identity()).field(std::to_string(o.owners.size()));
            for (const std::string &owner : o.owners) h.field(owner);
        }
    }
    h.field("core builtins").field(state_->has_core ? "yes" : "no");
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
    // stored once, and commit hands it to the registry.
    struct New {
        std::size_t staged;    // index into staged_builtins_
        std::size_t name_hash; // NameTable::hash_of(name)
    };
    std::vector<New> new_overloads;
    // Committed overloads this owner registers again: the registry does not
    // change while the transaction is open, so the position stays valid until commit.
    struct Shared {
        std::size_t staged;  // index into staged_builtins_
        OverloadRef at;      // the committed overload
        bool add_owner;      // false: this owner owns it already
    };
    std::vector<Shared> shared_overloads;
    std::vector<NativeTypeInfo> new_types;
    std::vector<std::string> shared_types;
    // Indexes over the above, so that each registration costs the same however
    // many came before it (a linear scan made 100,000 builtins take 42 s).
    // new_overload_at is keyed by overload_hash(), not by a string, so staging
    // an overload allocates no key; a hit is confirmed by comparing the name
    // and the types.
    HashIndex new_overload_at; // -> staged_builtins_ index
    std::unordered_map<std::string, std::size_t> shared_identities; // identity() of a shared overload -> staged_builtins_ index
    std::unordered_set<std::string> staged_type_names;
    // Type names this transaction resolved, as written: a plugin spells the same
    // few ("float32", "vec3") in every registration, and parsing each again was
    // a fifth of add_builtin. Valid for the transaction: the registry does not
    // change under it and a name it stages never changes meaning. Capped, so a
    // plugin of many distinct names pays a short scan, not a growing one.
    static constexpr std::size_t type_cache_limit = 16;
    std::vector<std::pair<std::string, Type>> type_cache;
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
    for (const auto &[written, type] : pending_->type_cache)
        if (written == name) return type;
    Type t = resolve_type(name);
    if (pending_->type_cache.size() < Pending::type_cache_limit) pending_->type_cache.emplace_back(name, t);
    return t;
}

Type Registry::Transaction::resolve_type(std::string_view name) const {
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
    const std::size_t name_hash = NameTable::hash_of(spec.name);
    if (const void *slot = registry_->state_->builtins.first_slot(name_hash)) __builtin_prefetch(slot);

    // The record is built where it is kept: in a vector of its own, which a
    // new name's registry entry takes over at commit. Building it aside and
    // moving it in was a fifth of this function, and moving it again into
    // the registry at commit a third of commit (bench/plugin_load). Until
    // `kept` is set, `unstage` drops the slot: a rejected call, or one that
    // returns an overload staged before, leaves staged_builtins_ as it was.
    if (staged_builtins_.size() == staged_builtins_.capacity())
        staged_builtins_.reserve(std::max<std::size_t>(64, 2 * staged_builtins_.size()));
    std::vector<BuiltinOverload> &slot = staged_builtins_.emplace_back();
    bool kept = false;
    struct Unstage {
        std::vector<std::vector<BuiltinOverload>> &staged;
        const bool &kept;
        ~Unstage() {
            if (!kept) staged.pop_back();
        }
    } unstage{staged_builtins_, kept};
    BuiltinOverload &o = slot.emplace_back();
    o.name = spec.name;
    // Types by reference into the transaction's cache, copied once into the
    // record: parse_type() returns a copy, and a Type is large (names, codes,
    // shared pointers).
    Type uncached;
    auto type_of = [&](const std::string &name) -> const Type & {
        for (const auto &[written, type] : pending_->type_cache)
            if (written == name) return type;
        uncached = parse_type(name); // resolves it, and caches it while there is room
        return uncached;
    };
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
            o.params.emplace_back(p.name, type_of(p.type), p.inout);
        } catch (const RegistrationError &e) {
            throw RegistrationError(e.kind(), what() + ": parameter '" + p.name + "': " + e.what());
        }
        check_cpp_size([&] { return what() + ": parameter '" + p.name + "'"; }, p.cpp_size, o.params.back().type);
    }
    if (!spec.result.empty()) {
        try {
            o.result = type_of(spec.result);
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
    // split_native_name's rule, written into the record's strings without temporaries.
    if (const auto sep = std::string_view(o.native_name).rfind("::"); sep == std::string_view::npos) {
        o.native_function = o.native_name;
    } else {
        o.native_namespace.assign(o.native_name, 0, sep + 2);
        o.native_function.assign(o.native_name, sep + 2);
    }
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
    if (!spec.adjoint_native.empty())
        for (const ParameterSpec &p : spec.params)
            if (p.inout)
                throw invalid(what() + ": parameter '" + p.name +
                              "' is inout, and a builtin that writes its arguments has no adjoint");
    if (!spec.adjoint_native.empty()) {
        if (core) throw invalid(what() + ": core builtins have runtime adjoints, not adjoint_native");
        if (!o.result) throw invalid(what() + ": a builtin without a result has nothing to differentiate (adjoint_native)");
        if (!is_qualified_name(spec.adjoint_native))
            throw invalid(what() + ": adjoint_native '" + spec.adjoint_native + "' is not a valid qualified C++ identifier");
        o.adjoint_native = spec.adjoint_native;
    }
    o.owners.assign(1, owner_);

    // The name's committed overloads, and where they are for an OverloadRef.
    const std::size_t name_at = registry_->state_->builtins.position(spec.name, name_hash);
    static const std::vector<BuiltinOverload> none;
    const std::vector<BuiltinOverload> &committed =
        name_at == NameTable::npos ? none : registry_->state_->builtins.at(name_at).overloads;
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

    const std::size_t hash = overload_hash(o, name_hash);
    // Another overload can share the hash: a hit is one with the same name and types.
    if (const std::size_t at = pending_->new_overload_at.find(hash, [&](std::size_t i) {
            const BuiltinOverload &e = staged_builtins_[i].front();
            return e.name == o.name && same_overload(e, o);
        });
        at != HashIndex::npos) {
        const BuiltinOverload &e = staged_builtins_[at].front();
        ++overloads_compared_;
        if (e.identity() == o.identity()) return e; // already staged by this init: nothing new
        throw RegistrationError(RegistrationError::Kind::Conflict,
                                "conflicting builtin overload " + o.signature() + ": " + owner_label(owner_) +
                                    " already registered " + e.signature() + " [native " + e.native_name +
                                    "] in the same init (" + difference(e, o) + ")");
    }
    for (const BuiltinOverload &e : committed) {
        ++overloads_compared_;
        if (!same_overload(e, o)) continue;
        const std::string identity = o.identity();
        if (e.identity() == identity) {
            // Identical contract: the existing function is returned, ownership is shared.
            if (auto at = pending_->shared_identities.find(identity); at != pending_->shared_identities.end())
                return staged_builtins_[at->second].front(); // shared earlier in this init
            const bool owned = std::find(e.owners.begin(), e.owners.end(), owner_) != e.owners.end();
            o = e; // the staged record is the existing one, as it will be after commit
            if (!owned) o.owners.push_back(owner_);
            // Either both indexes name the staged record or neither does: a
            // failed allocation here leaves nothing that points at a slot
            // Unstage is about to drop.
            const auto shared_at = pending_->shared_identities.emplace(identity, staged_builtins_.size() - 1).first;
            try {
                // Positions fit 32 bits: NameTable caps its entries so, and a
                // name's overloads would need terabytes to pass it.
                pending_->shared_overloads.push_back(
                    {staged_builtins_.size() - 1,
                     {static_cast<std::uint32_t>(name_at), static_cast<std::uint32_t>(&e - committed.data())},
                     !owned});
            } catch (...) {
                pending_->shared_identities.erase(shared_at);
                throw;
            }
            kept = true;
            return o;
        }
        throw RegistrationError(RegistrationError::Kind::Conflict,
                                "conflicting builtin overload " + o.signature() + " [native " + o.native_name +
                                    "] from " + owner_label(owner_) + ": " + owners_label(e.owners) +
                                    " registered " + e.signature() + " [native " + e.native_name + "] (" +
                                    difference(e, o) + ")");
    }
    // Reserved first, so that after the index names the staged record
    // nothing can fail before it is kept. Geometrically: reserve(size() + 1)
    // reallocated the list on every call, which made one init's registrations
    // quadratic again (bench/registry).
    std::vector<Pending::New> &fresh = pending_->new_overloads;
    if (fresh.size() == fresh.capacity()) fresh.reserve(std::max<std::size_t>(64, 2 * fresh.size()));
    pending_->new_overload_at.add(hash, staged_builtins_.size() - 1);
    pending_->new_overloads.push_back({staged_builtins_.size() - 1, name_hash});
    kept = true;
    return o;
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

    if (spec.differentiable) {
        // The adjoint is a T whose exposed fields hold gradients: each must be
        // a float value the backward pass can add (and add atomically).
        if (spec.exposed.empty())
            throw invalid(what + ": a differentiable native type needs exposed fields (its gradient's parts); it is opaque");
        for (const ExposedField &f : t.exposed) {
            const Type &ft = f.type;
            const bool floats = (ft.kind() == Type::Kind::Scalar || ft.kind() == Type::Kind::Vector ||
                                 ft.kind() == Type::Kind::Matrix || ft.kind() == Type::Kind::Quaternion ||
                                 ft.kind() == Type::Kind::Transform) &&
                                Type::scalar(ft.scalar_type()).is_float();
            if (!floats)
                throw invalid(what + ": differentiable, but exposed field '" + f.name + "' is " + ft.name() +
                              "; every exposed field of a differentiable native type is a float scalar, vector, "
                              "matrix, quaternion or transform");
        }
        if (!spec.adjoint_accumulate.empty()) {
            if (!is_qualified_name(spec.adjoint_accumulate))
                throw invalid(what + ": adjoint_accumulate '" + spec.adjoint_accumulate +
                              "' is not a valid qualified C++ identifier");
            if (policy_ && !starts_with_any(spec.adjoint_accumulate, policy_->native_prefixes))
                throw RegistrationError(RegistrationError::Kind::Namespace,
                                        what + ": adjoint_accumulate '" + spec.adjoint_accumulate +
                                            "' is outside the native prefixes " + owner_label(owner_) + " owns (" +
                                            prefixes_label(policy_->native_prefixes) + ")");
        }
    } else if (!spec.adjoint_accumulate.empty()) {
        throw invalid(what + ": adjoint_accumulate is given but the type is not differentiable");
    }
    t.differentiable = spec.differentiable;
    t.adjoint_accumulate = spec.adjoint_accumulate;

    t.digest = schema_digest(t);
    t.code = (t.differentiable ? "nd" : "nt") + t.digest.substr(0, 16);

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

OverloadList Registry::Transaction::commit() {
    if (!registry_) throw InternalError("Registry::Transaction committed twice");
    State &s = *registry_->state_;
    // Allocated before the registry changes: what is left can only fail for
    // memory the registry's own tables need.
    std::vector<OverloadRef> refs(staged_builtins_.size());
    for (NativeTypeInfo &t : pending_->new_types) {
        const std::string name = t.native_name;
        s.native_types.emplace(name, std::move(t));
    }
    for (const std::string &name : pending_->shared_types) s.native_types.at(name).owners.push_back(owner_);
    // Handed over, not copied: the owner's record of what it registered is
    // refs, positions of these records in the registry.
    const std::vector<Pending::New> &fresh_overloads = pending_->new_overloads;
    // Each name's slot is prefetched a few names ahead: the next name's alone
    // arrived too late. (A table that grows meanwhile wastes a few.)
    constexpr std::size_t ahead = 8;
    for (std::size_t i = 0; i < std::min(ahead, fresh_overloads.size()); ++i)
        if (const void *slot = s.builtins.first_slot(fresh_overloads[i].name_hash)) __builtin_prefetch(slot);
    for (std::size_t i = 0; i < fresh_overloads.size(); ++i) {
        const Pending::New &fresh = fresh_overloads[i];
        if (i + ahead < fresh_overloads.size())
            if (const void *slot = s.builtins.first_slot(fresh_overloads[i + ahead].name_hash)) __builtin_prefetch(slot);
        std::vector<BuiltinOverload> &record = staged_builtins_[fresh.staged];
        const std::size_t name_at = s.builtins.find_or_add(record.front().name, fresh.name_hash);
        std::vector<BuiltinOverload> &overloads = s.builtins.at(name_at).overloads;
        refs[fresh.staged] = {static_cast<std::uint32_t>(name_at), static_cast<std::uint32_t>(overloads.size())};
        // A new name (most of a plugin's) takes the record's vector as it is.
        if (overloads.empty())
            overloads = std::move(record);
        else
            overloads.push_back(std::move(record.front()));
        ++s.builtin_count;
    }
    for (const Pending::Shared &shared : pending_->shared_overloads) {
        refs[shared.staged] = shared.at;
        if (shared.add_owner) s.builtins.at(shared.at.name).overloads[shared.at.index].owners.push_back(owner_);
    }
    {
        std::lock_guard<std::mutex> lock(s.digest_mutex);
        s.digest.clear();
        if (owner_ == core_owner) s.has_core = true;
    }
    OverloadList committed(*registry_, s.generation, std::move(refs));
    staged_builtins_.clear();
    pending_ = std::make_unique<Pending>();
    registry_->transaction_open_ = false;
    registry_ = nullptr;
    return committed;
}

void Registry::Transaction::rollback() {
    pending_ = std::make_unique<Pending>();
    staged_builtins_.clear();
    staged_types_.clear();
}

} // namespace weft
