#include "weft/build/module_hash.hpp"

#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/version.hpp"

#include <set>

namespace weft {

namespace {
/// The resolved options as the module hash serializes them (counted lists,
/// length-prefixed fields), provenance included: preamble pieces reach the
/// generated text tagged with their source.
void add_resolved_options(Sha256 &h, const ResolvedBuildOptions &options) {
    auto paths = [&](const char *tag, const std::vector<std::filesystem::path> &v) {
        h.field(tag).field(std::to_string(v.size()));
        for (const auto &p : v) h.field(p.string());
    };
    paths("cuda_include_dirs", options.cuda_include_dirs);
    paths("cpu_include_dirs", options.cpu_include_dirs);
    h.field("cuda_preamble").field(options.cuda_preamble_text());
    h.field("cpu_preamble").field(options.cpu_preamble_text());
    h.field("build_dependencies").field(std::to_string(options.build_dependencies.size()));
    for (const ResolvedDependency &d : options.build_dependencies) h.field(d.path.string()).field(d.sha256);
}
} // namespace

std::string resolved_options_digest(const ResolvedBuildOptions &options) {
    Sha256 h;
    h.field("weft.resolved-options.v1");
    add_resolved_options(h, options);
    auto sources = [&](const char *tag, const std::vector<SourcedValue> &pieces) {
        h.field(tag).field(std::to_string(pieces.size()));
        for (const SourcedValue &p : pieces) h.field(p.value).field(p.source);
    };
    sources("cuda_preamble_pieces", options.cuda_preamble);
    sources("cpu_preamble_pieces", options.cpu_preamble);
    return h.hex();
}

std::string compute_module_hash(const ModuleHashInputs &in, const ResolvedBuildOptions &options) {
    if (in.runtime_header_digest.empty())
        throw InternalError("compute_module_hash: the runtime-header digest is missing");
    if (in.toolchain.empty()) throw InternalError("compute_module_hash: the toolchain identity is missing");
    // Every field is length-prefixed and every list counted, so no two
    // different inputs serialize alike. Bump the version tag when the layout changes.
    Sha256 h;
    h.field("weft.module-hash.v2");
    h.field(version_string);
    h.field(in.runtime_header_digest);
    h.field(in.toolchain);
    h.field(in.target.str());
    h.field(in.generated_source);
    add_resolved_options(h, options);
    h.field("codegen").field(std::to_string(in.codegen_options.size()));
    for (const auto &[k, v] : in.codegen_options) h.field(k).field(v); // std::map: sorted
    // Contracts as a set: the order the front end met them in is irrelevant.
    std::set<std::string> builtins;
    for (const BuiltinOverload &b : in.referenced_builtins)
        if (b.external) builtins.insert(b.identity());
    h.field("builtins").field(std::to_string(builtins.size()));
    for (const std::string &b : builtins) h.field(b);
    std::set<std::string> types;
    for (const NativeTypeInfo &t : in.referenced_native_types) types.insert(t.digest);
    h.field("native_types").field(std::to_string(types.size()));
    for (const std::string &t : types) h.field(t);
    return h.hex();
}

} // namespace weft
