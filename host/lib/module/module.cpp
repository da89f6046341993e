#include "weft/module.hpp"

#include "weft/error.hpp"
#include "weft/host.hpp"
#include "weft/sha256.hpp"
#include "weft/version.hpp"

#include <algorithm>
#include <set>

namespace weft {

std::string compute_module_hash(const ModuleBuildInputs &in, const ResolvedBuildOptions &options,
                                const std::string &runtime_header_digest) {
    // Every field is length-prefixed and every list counted, so no two
    // different inputs serialize alike. Bump the version tag when the layout changes.
    Sha256 h;
    h.field("weft.module-hash.v1");
    h.field(version_string);
    h.field(runtime_header_digest);
    h.field(in.target.str());
    h.field(in.generated_source);
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

Module::Module(const Host &host, std::string name) : host_(&host), name_(std::move(name)) {}

void Module::set_build_options(ModuleBuildOptions options) {
    options_ = std::move(options);
    ++generation_;
    resolved_.reset();
}

void Module::set_plugins(std::vector<std::string> plugins) {
    plugins_ = std::move(plugins);
    ++generation_;
    resolved_.reset();
}

EffectiveBuildOptions Module::effective_options() const {
    std::vector<BuildOptionsSource> sources;
    sources.push_back({"module '" + name_ + "'", options_});
    for (const std::string &name : plugins_) {
        const LoadedPlugin *p = host_->plugin(name);
        if (!p) throw UserError("module '" + name_ + "' uses plugin '" + name + "', which is not loaded in this host");
        for (const ModuleBuildOptions &o : p->build_options) sources.push_back({"plugin '" + name + "'", o});
    }
    return EffectiveBuildOptions::merge(sources);
}

const ResolvedBuildOptions &Module::resolved_options() {
    if (!resolved_) {
        try {
            resolved_ = resolve(effective_options());
        } catch (const UserError &e) {
            throw UserError("module '" + name_ + "': " + e.what());
        }
    }
    return *resolved_;
}

std::string Module::hash(const ModuleBuildInputs &inputs) { return compute_module_hash(inputs, resolved_options()); }

} // namespace weft
