// Warm loads without the front end: the content key, the record stored under
// it, and the artifact it names. The record is a shortcut to the full module
// hash, never an identity of its own: the artifact is found by that hash and
// verified as on every cache hit, and any doubt about the record (damaged,
// another module's, options that resolve differently now) sends the load
// through the front end, which writes a fresh record.
#include "weft/pipeline/pipeline.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/support/build_identity.hpp"
#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/version.hpp"
#include "compile_options.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <tuple>

namespace weft::pipeline {

namespace {

using nlohmann::json;

constexpr int record_format = 3; // 2: the modules of unique kernels; 3: strided copies

json type_json(const Type &t) {
    const std::string s(scalar_name(t.scalar_type()));
    switch (t.kind()) {
    case Type::Kind::Scalar: return {{"kind", "scalar"}, {"scalar", s}};
    case Type::Kind::Vector: return {{"kind", "vector"}, {"scalar", s}, {"length", t.rows()}};
    case Type::Kind::Matrix: return {{"kind", "matrix"}, {"scalar", s}, {"rows", t.rows()}, {"cols", t.cols()}};
    case Type::Kind::Quaternion: return {{"kind", "quaternion"}, {"scalar", s}};
    case Type::Kind::Transform: return {{"kind", "transform"}, {"scalar", s}};
    case Type::Kind::Native:
        return {{"kind", "native"}, {"name", t.native_name()}, {"code", t.code()}, {"size", t.size()},
                {"alignment", t.alignment()}};
    case Type::Kind::Array:
        return {{"kind", t.is_indexed_array() ? "indexedarray" : "array"}, {"ndim", t.ndim()}, {"dtype", type_json(t.element())}};
    case Type::Kind::Struct: {
        json fields = json::array();
        for (const StructLayout::Field &f : t.layout().fields) fields.push_back({{"name", f.name}, {"type", type_json(f.type)}});
        return {{"kind", "struct"}, {"name", t.layout().name}, {"fields", std::move(fields)}};
    }
    case Type::Kind::Tuple: {
        json elements = json::array();
        for (const Type &e : t.elements()) elements.push_back(type_json(e));
        return {{"kind", "tuple"}, {"elements", std::move(elements)}};
    }
    case Type::Kind::Void: return {{"kind", "void"}};
    case Type::Kind::String: return {{"kind", "string"}};
    }
    throw InternalError("warm record: unknown type kind");
}

[[noreturn]] void bad(const std::string &why) { throw UserError("warm record: " + why); }

Scalar scalar_of(const json &j) {
    const std::optional<Scalar> s = parse_scalar(j.at("scalar").get<std::string>());
    if (!s) bad("unknown scalar type");
    return *s;
}

int small_int(const json &j, const char *key, int lo, int hi) {
    const int v = j.at(key).get<int>();
    if (v < lo || v > hi) bad(std::string(key) + " out of range");
    return v;
}

Type type_from(const json &j, int depth = 0) {
    if (depth > 32) bad("types nested too deeply");
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "scalar") return Type::scalar(scalar_of(j));
    if (kind == "vector") return Type::vector(scalar_of(j), small_int(j, "length", 1, 64));
    if (kind == "matrix") return Type::matrix(scalar_of(j), small_int(j, "rows", 1, 64), small_int(j, "cols", 1, 64));
    if (kind == "quaternion") return Type::quaternion(scalar_of(j));
    if (kind == "transform") return Type::transform(scalar_of(j));
    if (kind == "native")
        return Type::native(j.at("name").get<std::string>(), j.at("code").get<std::string>(),
                            j.at("size").get<std::uint64_t>(), j.at("alignment").get<std::uint64_t>());
    if (kind == "array") return Type::array(type_from(j.at("dtype"), depth + 1), small_int(j, "ndim", 1, 4));
    if (kind == "indexedarray")
        return Type::indexed_array(type_from(j.at("dtype"), depth + 1), small_int(j, "ndim", 1, 4));
    if (kind == "struct") {
        std::vector<StructLayout::Field> fields;
        for (const json &f : j.at("fields")) fields.push_back({f.at("name").get<std::string>(), type_from(f.at("type"), depth + 1), 0});
        return Type::structure(StructLayout::make(j.at("name").get<std::string>(), std::move(fields)));
    }
    if (kind == "tuple") {
        std::vector<Type> elements;
        for (const json &e : j.at("elements")) elements.push_back(type_from(e, depth + 1));
        return Type::tuple(std::move(elements));
    }
    if (kind == "void") return Type::void_type();
    if (kind == "string") return Type::string();
    bad("unknown type kind '" + kind + "'");
}

/// The toolchain identity of a CPU compile with these flags (memoized by the backend).
std::string cpu_toolchain(const ModuleLoadOptions &load) { return backend::toolchain_identity(cpu_flags(load)); }

} // namespace

namespace {

json kernels_json(const std::vector<codegen::KernelEntry> &kernels) {
    json out = json::array();
    for (const codegen::KernelEntry &k : kernels) {
        json params = json::array();
        for (const auto &[name, type] : k.params)
            params.push_back({{"name", name}, {"type", type_json(type)}, {"code", type.code()}, {"size", type.size()}});
        out.push_back({{"name", k.name},
                       {"key", k.key},
                       {"symbol", k.symbol},
                       {"params", std::move(params)},
                       {"tid_dims", k.tid_dims},
                       {"strided_section", k.strided_section},
                       {"external", k.abi == kernel::ir::EntryPointAbi::ExternalConstantParams}});
    }
    return out;
}

std::vector<codegen::KernelEntry> kernels_from(const json &kernels) {
    std::vector<codegen::KernelEntry> out;
    for (const json &k : kernels) {
        codegen::KernelEntry e;
        e.name = k.at("name").get<std::string>();
        e.key = k.at("key").get<std::string>();
        e.symbol = k.at("symbol").get<std::string>();
        e.tid_dims = small_int(k, "tid_dims", 0, 4);
        e.strided_section = small_int(k, "strided_section", 0, 1 << 20);
        e.abi = k.at("external").get<bool>() ? kernel::ir::EntryPointAbi::ExternalConstantParams
                                             : kernel::ir::EntryPointAbi::Warp;
        for (const json &p : k.at("params")) {
            Type t = type_from(p.at("type"));
            // The rebuilt type must be the one recorded, layout included.
            if (t.code() != p.at("code").get<std::string>() || t.size() != p.at("size").get<std::uint64_t>())
                bad("parameter '" + p.at("name").get<std::string>() + "' does not rebuild to its recorded type");
            e.params.emplace_back(p.at("name").get<std::string>(), std::move(t));
        }
        out.push_back(std::move(e));
    }
    return out;
}

} // namespace

std::string WarmRecord::serialize() const {
    json compiled = json::array();
    for (const Compiled &c : modules)
        compiled.push_back({{"module", c.module}, {"hash", c.hash}, {"kernels", kernels_json(c.kernels)}});
    return json{{"format", record_format},
                {"weft", version_string},
                {"module", module},
                {"target", target.str()},
                {"modules", std::move(compiled)},
                {"plugins", plugins},
                {"options_digest", options_digest}}
        .dump();
}

WarmRecord WarmRecord::parse(const std::string &text) {
    const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) bad("not a JSON object");
    try {
        if (j.at("format").get<int>() != record_format) bad("another format");
        WarmRecord r;
        r.module = j.at("module").get<std::string>();
        r.target = Target::parse(j.at("target").get<std::string>());
        for (const json &c : j.at("modules")) {
            Compiled m;
            m.module = c.at("module").get<std::string>();
            m.hash = c.at("hash").get<std::string>();
            if (m.hash.size() != 64 || m.hash.find_first_not_of("0123456789abcdef") != std::string::npos)
                bad("the module hash is not a full-width digest");
            m.kernels = kernels_from(c.at("kernels"));
            r.modules.push_back(std::move(m));
        }
        if (r.modules.empty()) bad("no compiled module");
        r.plugins = j.at("plugins").get<std::vector<std::string>>();
        r.options_digest = j.at("options_digest").get<std::string>();
        return r;
    } catch (const json::exception &e) {
        bad(e.what());
    }
}

std::string Pipeline::content_key(const ModuleSource &source, const Target &target, const ModuleLoadOptions &load,
                                  Pass pass) const {
    const std::string &build = build_identity();
    if (build.empty() || target.kind != Target::Kind::Cpu) return {};
    Sha256 h;
    h.field("weft.content-key.v1");
    // The build ID stands for everything compiled into weft: the front end,
    // codegen, core builtins and the embedded runtime headers (hashing those
    // took a millisecond, the whole budget of a warm load).
    h.field(version_string).field(build);
    h.field(cpu_toolchain(load));
    h.field(target.str());
    h.field(registry_.contract_digest());
    h.field(source.name).field(source.text);
    // Every ModuleLoadOptions field that the front end or codegen reads.
    const std::map<std::string, std::string> options = {
        {"opt", std::to_string(load.opt_level)},
        {"fast_math", load.fast_math ? "1" : "0"},
        {"native_cpu", load.native_cpu ? "1" : "0"},
        {"debug", load.debug ? "1" : "0"},
        {"enable_backward", load.enable_backward ? "1" : "0"},
        {"native_signatures", load.check_native_signatures ? "1" : "0"},
        {"fmad", load.fmad ? "1" : "0"},
        {"line_info", load.line_info ? "1" : "0"},
        {"pass", pass == Pass::Backward ? "backward" : "forward"}};
    h.field("options").field(std::to_string(options.size()));
    for (const auto &[k, v] : options) h.field(k).field(v);
    if (load.plugins) {
        h.field("plugins").field(std::to_string(load.plugins->size()));
        for (const std::string &p : *load.plugins) h.field(p);
    } else {
        h.field("referenced plugins");
    }
    return h.hex();
}

std::optional<WarmRecord> Pipeline::find_warm(const std::string &key, const std::string &module, const Target &target) const {
    std::optional<std::string> text = cache_.find_key(key);
    if (!text) return std::nullopt;
    try {
        WarmRecord r = WarmRecord::parse(*text);
        if (r.module != module || r.target != target) {
            logger_.log(LogLevel::Info, "cache", "content-key record " + key.substr(0, 16) + " is for module '" + r.module +
                                                     "' " + r.target.str() + ", not '" + module + "' " + target.str() + ": a miss");
            return std::nullopt;
        }
        return r;
    } catch (const std::exception &e) {
        // Whatever a damaged record makes the rebuilding of its types throw is a miss too.
        logger_.log(LogLevel::Info, "cache", "content-key record " + key.substr(0, 16) + ": " + e.what() + ": a miss");
        return std::nullopt;
    }
}

void Pipeline::remember(const std::string &key, const WarmRecord &record) const {
    if (key.empty()) return;
    try {
        cache_.store_key(key, record.serialize());
    } catch (const UserError &e) {
        uncached(e.what());
    }
}

std::optional<std::vector<Artifact>> Pipeline::realize_warm(const WarmRecord &record) const {
    std::vector<Artifact> out;
    for (const WarmRecord::Compiled &c : record.modules) {
        std::optional<CachedArtifact> hit = cache_.find(c.module, c.hash, record.target);
        if (!hit) return std::nullopt;
        Artifact a;
        a.module = c.module;
        a.target = record.target;
        a.hash = c.hash;
        a.kernels = c.kernels;
        a.bytes = std::move(hit->content);
        a.path = hit->path;
        a.from_cache = true;
        a.generated_source_path = cache_.entry_directory(c.module, c.hash) / "module.src";
        out.push_back(std::move(a));
    }
    local_hits_ += out.size();
    warm_hits_ += out.size();
    return out;
}

} // namespace weft::pipeline
