// `weft plugin list|inspect|check`.
#include "commands.hpp"

#include "weft/check/check.hpp"
#include "weft/support/error.hpp"
#include "weft/support/text.hpp"
#include "weft/host/host.hpp"
#include "weft/registry/registry.hpp"
#include "weft/support/version.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

namespace weft::cli {

namespace {

using nlohmann::json;

HostOptions host_options(const PluginOptions &o) {
    HostOptions h;
    for (const std::string &p : o.search_path) h.search_path.emplace_back(p);
    apply_host_settings(h);
    return h;
}

template <class Strings> std::string join(const Strings &v, const char *sep = ", ") {
    std::string out;
    for (const std::string &s : v) out += (out.empty() ? "" : sep) + s;
    return out;
}

json requirements_json(const PluginManifest &m) {
    json r = json::object();
    for (const Requirement &q : m.requires_) r[q.name] = q.constraint.text();
    if (m.requires_host) r[host_requirement_name] = m.requires_host->text(); // the host's version
    return r;
}

json manifest_json(const PluginManifest &m) {
    return {{"name", m.name},
            {"version", m.version.str()},
            {"abi", m.abi},
            {"manifest", m.path.string()},
            {"library", m.library_path.string()},
            {"description", m.description},
            {"prefixes", {{"builtins", m.prefixes.builtin_prefixes}, {"native", m.prefixes.native_prefixes}}},
            {"requires", requirements_json(m)}};
}

json builtin_json(const BuiltinOverload &o) {
    json params = json::array();
    for (const Parameter &p : o.params) params.push_back({{"name", p.name}, {"type", p.type.name()}});
    return {{"name", o.name},
            {"signature", o.signature()},
            {"params", params},
            {"result", o.result ? o.result->name() : "void"},
            {"native_name", o.native_name},
            {"namespace", o.native_namespace},
            {"function", o.native_function},
            {"owners", o.owners},
            {"doc", o.doc},
            // The gradient contract: core builtins' own, a plugin's adjoint, or none.
            {"differentiable", o.differentiable},
            {"adjoint", o.adjoint_native}};
}

json native_type_json(const NativeTypeInfo &t) {
    json declared = json::array();
    for (const DeclaredField &f : t.fields) declared.push_back({{"name", f.name}, {"offset", f.offset}, {"size", f.size}});
    json exposed = json::array();
    for (const ExposedField &f : t.exposed)
        exposed.push_back({{"name", f.name}, {"type", f.type.name()}, {"offset", f.offset}, {"size", f.size}});
    return {{"native_name", t.native_name},
            {"code", t.code},
            {"digest", t.digest},
            {"size", t.size},
            {"alignment", t.alignment},
            {"initializer", t.initializer == Initializer::Aggregate ? "aggregate" : "none"},
            {"opaque", t.opaque()},
            {"fields", declared},
            {"exposed", exposed},
            {"owners", t.owners},
            {"doc", t.doc},
            {"differentiable", t.differentiable},
            {"adjoint_accumulate", t.adjoint_accumulate}};
}

json options_json(const ModuleBuildOptions &o) {
    return {{"extra_cuda_include_dirs", o.extra_cuda_include_dirs},
            {"extra_cpu_include_dirs", o.extra_cpu_include_dirs},
            {"extra_cuda_preamble", o.extra_cuda_preamble},
            {"extra_cpu_preamble", o.extra_cpu_preamble},
            {"extra_build_dependencies", o.extra_build_dependencies}};
}

std::string line_count(const std::string &text) {
    const auto n = std::count(text.begin(), text.end(), '\n') + (text.empty() || text.back() == '\n' ? 0 : 1);
    return std::to_string(n) + (n == 1 ? " line" : " lines");
}

/// The manifest a discovery error is about: every such message starts with
/// the manifest's path, and the candidates are the files discovery reads
/// (DIR/plugin.toml, DIR/*/plugin.toml). Empty when none matches.
std::filesystem::path manifest_of_error(const std::vector<std::filesystem::path> &search_path, const std::string &error) {
    namespace fs = std::filesystem;
    fs::path best;
    auto consider = [&](const fs::path &candidate) {
        for (const fs::path &spelling : {candidate, candidate.lexically_normal()}) {
            const std::string s = spelling.string();
            if (error.size() > s.size() && error.compare(0, s.size(), s) == 0 && error[s.size()] == ':' &&
                s.size() > best.string().size())
                best = spelling;
        }
    };
    for (const fs::path &dir : search_path) {
        consider(dir / "plugin.toml");
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) consider(it->path() / "plugin.toml");
    }
    return best;
}

bool names_a_path(const std::string &argument) {
    std::error_code ec;
    return !is_identifier(argument) || std::filesystem::exists(std::filesystem::symlink_status(argument, ec));
}

/// The manifest a plugin argument names, for its warnings; empty for a name
/// that is not found (loading it then says where it was looked for).
std::filesystem::path manifest_of_argument(const Host &host, const std::string &argument) {
    if (names_a_path(argument)) return locate_manifest(argument);
    for (const PluginManifest &m : host.discover().plugins)
        if (m.name == argument) return m.path;
    return {};
}

} // namespace

const LoadedPlugin &load_plugin_argument(Host &host, const std::string &argument) {
    return names_a_path(argument) ? host.load(argument) : host.load_by_name(argument);
}

int plugin_list(const PluginOptions &o) {
    Host host(host_options(o));
    if (host.search_path().empty())
        throw UserError("the plugin search path is empty: set WEFT_PLUGIN_PATH or pass --plugin-path DIR");
    const Discovery d = host.discover();
    if (o.json) {
        json plugins = json::array();
        for (const PluginManifest &m : d.plugins) plugins.push_back(manifest_json(m));
        json errors = json::array();
        for (const std::string &e : d.errors) {
            const std::filesystem::path manifest = manifest_of_error(host.search_path(), e);
            errors.push_back({{"manifest", manifest.empty() ? json(nullptr) : json(manifest.string())}, {"error", e}});
        }
        print_out("{}\n", json{{"plugins", plugins}, {"errors", errors}}.dump(2, ' ', false, json_invalid_utf8));
    } else {
        std::size_t w = 4;
        for (const PluginManifest &m : d.plugins) w = std::max(w, m.name.size());
        print_out("{:<{}}  {:<9}  {:>3}  {}\n", "NAME", w, "VERSION", "ABI", "DESCRIPTION");
        for (const PluginManifest &m : d.plugins)
            print_out("{:<{}}  {:<9}  {:>3}  {}\n", m.name, w, m.version.str(), m.abi,
                       escape_for_display(m.description));
        print_out("{} plugin{} on the search path\n", d.plugins.size(), d.plugins.size() == 1 ? "" : "s");
    }
    // Diagnostics after the report is flushed, so a terminal shows them last.
    std::fflush(stdout);
    for (const std::string &e : d.errors) print_to(stderr, "weft: error: {}\n", e);
    for (const std::string &n : d.notes) print_to(stderr, "weft: note: {}\n", n);
    for (const PluginManifest &m : d.plugins)
        for (const std::string &w : m.warnings) print_to(stderr, "weft: warning: {}\n", w);
    return d.errors.empty() ? 0 : 1;
}

int plugin_inspect(const PluginOptions &o) {
    Host host(host_options(o));
    // Warnings first: a misspelled key is often why the load below fails.
    if (const std::filesystem::path manifest = manifest_of_argument(host, o.paths.at(0)); !manifest.empty())
        for (const std::string &w : read_manifest(manifest).warnings) print_to(stderr, "weft: warning: {}\n", w);
    const LoadedPlugin &p = load_plugin_argument(host, o.paths.at(0));
    const PluginManifest &m = p.manifest;

    if (o.json) {
        json out = manifest_json(m);
        out["library_abi"] = p.abi_version;
        out["sdk_version"] = p.sdk_version;
        json builtins = json::array();
        for (const BuiltinOverload &b : p.builtins) builtins.push_back(builtin_json(b));
        json types = json::array();
        for (const NativeTypeInfo &t : p.native_types) types.push_back(native_type_json(t));
        json options = json::array();
        for (const ModuleBuildOptions &b : p.build_options) options.push_back(options_json(b));
        json objects = json::array();
        for (const ObjectTypeInfo &t : p.object_types) {
            const auto params = [](const std::vector<ObjectParam> &ps) {
                json a = json::array();
                for (const ObjectParam &x : ps)
                    a.push_back({{"name", x.name}, {"type", x.type}, {"optional", x.optional}, {"retain", x.retain},
                                 {"doc", x.doc}});
                return a;
            };
            json methods = json::array();
            for (const ObjectMethodInfo &method : t.methods)
                methods.push_back({{"name", method.name}, {"params", params(method.params)}, {"doc", method.doc}});
            objects.push_back({{"name", t.name}, {"signature", t.signature()}, {"params", params(t.params)},
                               {"methods", methods}, {"doc", t.doc}});
        }
        out["builtins"] = builtins;
        out["native_types"] = types;
        out["object_types"] = objects;
        out["build_options"] = options;
        print_out("{}\n", out.dump(2, ' ', false, json_invalid_utf8));
        return 0;
    }

    print_out("plugin {} {}\n", m.name, m.version.str());
    if (!m.description.empty()) print_out("  description: {}\n", escape_for_display(m.description));
    print_out("  manifest:    {}\n", m.path.string());
    print_out("  library:     {}\n", m.library_path.string());
    print_out("  abi:         {} (built with SDK {}; host speaks {}..{})\n", p.abi_version, p.sdk_version,
               min_abi_version, max_abi_version);
    print_out("  prefixes:    builtins [{}], native [{}]\n", join(m.prefixes.builtin_prefixes),
               join(m.prefixes.native_prefixes));
    std::vector<std::string> reqs;
    for (const Requirement &r : m.requires_) reqs.push_back(r.name + " " + r.constraint.text());
    if (m.requires_host) reqs.push_back(std::string(host_requirement_name) + " " + m.requires_host->text());
    print_out("  requires:    {}\n", reqs.empty() ? "(none)" : join(reqs));

    print_out("builtins ({}):\n", p.builtins.size());
    for (const BuiltinOverload &b : p.builtins) {
        print_out("  {}\n      native {}  (namespace '{}', function '{}')", b.signature(), b.native_name,
                   b.native_namespace, b.native_function);
        if (b.owners.size() > 1) print_out("  shared with {}", join(b.owners));
        print_out("\n      gradient {}\n", b.adjoint_native.empty() ? std::string("none (a constant to backward passes)")
                                                                     : "contract " + b.adjoint_native);
    }
    print_out("native types ({}):\n", p.native_types.size());
    for (const NativeTypeInfo &t : p.native_types) {
        print_out("  {}  code {}  size {}  align {}  {}{}\n", t.native_name, t.code, t.size, t.alignment,
                   t.initializer == Initializer::Aggregate ? "aggregate" : "default-construct only",
                   t.opaque() ? "  opaque" : "");
        print_out("      gradient {}\n", !t.differentiable ? std::string("none (a constant to backward passes)")
                                        : t.adjoint_accumulate.empty()
                                            ? std::string("differentiable, adjoints added field by field")
                                            : "differentiable, adjoints added by " + t.adjoint_accumulate);
        for (const DeclaredField &f : t.fields) {
            auto e = std::find_if(t.exposed.begin(), t.exposed.end(),
                                  [&](const ExposedField &x) { return x.name == f.name; });
            print_out("      {:<12} offset {:<4} size {:<4} {}\n", f.name, f.offset, f.size,
                       e != t.exposed.end() ? "exposed as " + e->type.name() : "hidden");
        }
    }
    print_out("object types ({}):\n", p.object_types.size());
    for (const ObjectTypeInfo &t : p.object_types) {
        print_out("  {}  (kernels take its id as uint64)\n", escape_for_display(t.signature()));
        if (!t.doc.empty()) print_out("      {}\n", escape_for_display(t.doc));
        for (const ObjectMethodInfo &method : t.methods) {
            std::vector<std::string> ps;
            for (const ObjectParam &x : method.params) ps.push_back(x.name + ": " + x.type + (x.optional ? " = None" : ""));
            print_out("      method {}({}){}\n", escape_for_display(method.name), escape_for_display(join(ps)),
                      method.doc.empty() ? "" : "  " + escape_for_display(method.doc));
        }
    }
    print_out("build options ({}):\n", p.build_options.size());
    for (const ModuleBuildOptions &b : p.build_options) {
        auto dirs = [](const std::vector<std::string> &v) { return v.empty() ? std::string("(none)") : join(v); };
        print_out("  cpu include dirs:   {}\n", dirs(b.extra_cpu_include_dirs));
        print_out("  cuda include dirs:  {}\n", dirs(b.extra_cuda_include_dirs));
        print_out("  cpu preamble:       {}\n", line_count(b.extra_cpu_preamble));
        print_out("  cuda preamble:      {}\n", line_count(b.extra_cuda_preamble));
        print_out("  dependencies:       {}\n", dirs(b.extra_build_dependencies));
    }
    return 0;
}

int plugin_check(const PluginOptions &o) {
    CheckOptions options;
    options.host = host_options(o);
    options.isolate = o.isolate;
    options.isolate_timeout = std::chrono::milliseconds(static_cast<long long>(o.isolate_timeout * 1000));
    options.compile = o.compile;
    options.compile_cuda = !o.no_cuda;
    std::vector<std::filesystem::path> paths(o.paths.begin(), o.paths.end());
    if (paths.empty()) {
        Host host(options.host);
        if (host.search_path().empty())
            throw UserError("nothing to check: name plugins, or set WEFT_PLUGIN_PATH or --plugin-path DIR");
        const Discovery d = host.discover();
        for (const std::string &e : d.errors) print_to(stderr, "weft: error: {}\n", e);
        for (const PluginManifest &m : d.plugins) paths.push_back(m.path);
        if (paths.empty()) throw UserError("no plugins on the search path");
    }
    const CheckReport r = check_plugins(paths, options);

    for (const std::string &w : r.warnings) print_to(stderr, "weft: warning: {}\n", w);
    const auto failed = std::count_if(r.plugins.begin(), r.plugins.end(), [](const PluginCheck &p) { return !p.ok; });

    // Two plugins of one name (two versions, two vendors) are told apart by path.
    std::map<std::string, int> named;
    for (const PluginCheck &p : r.plugins) ++named[p.plugin];
    auto shown = [&](const PluginCheck &p) {
        return named[p.plugin] > 1 ? p.plugin + " (" + p.path.string() + ")" : p.plugin;
    };

    if (o.json) {
        json plugins = json::array();
        for (const PluginCheck &p : r.plugins)
            plugins.push_back({{"plugin", p.plugin}, {"path", p.path.string()}, {"version", p.version},
                               {"ok", p.ok}, {"error", p.message}});
        json conflicts = json::array();
        for (const Conflict &c : r.conflicts)
            conflicts.push_back({{"plugins", {c.first, c.second}}, {"subject", c.subject}, {"message", c.message}});
        json combined = json::array();
        for (const PluginFailure &f : r.combined_failures)
            combined.push_back({{"plugin", f.plugin}, {"path", f.where.string()}, {"error", f.message}});
        print_out("{}\n", json{{"ok", r.ok()},
                                {"plugins", plugins},
                                {"conflicts", conflicts},
                                {"combined_failures", combined}}
                               .dump(2, ' ', false, json_invalid_utf8));
    } else {
        for (const PluginCheck &p : r.plugins) {
            if (p.ok)
                print_out("ok      {} {}\n", shown(p), p.version);
            else
                print_out("FAILED  {}: {}\n", shown(p), p.message);
        }
        for (const Conflict &c : r.conflicts) print_out("CONFLICT {}\n", c.message);
        for (const PluginFailure &f : r.combined_failures) print_out("FAILED (together)  {}\n", f.message);
        // Every count that makes the exit status 1 is on this line.
        print_out("{} plugin{}: {} ok, {} failed, {} conflict{}", r.plugins.size(), r.plugins.size() == 1 ? "" : "s",
                   r.plugins.size() - static_cast<std::size_t>(failed), failed, r.conflicts.size(),
                   r.conflicts.size() == 1 ? "" : "s");
        if (!r.combined_failures.empty())
            print_out(", {} failed when loaded together", r.combined_failures.size());
        print_out("\n");
    }
    std::fflush(stdout);
    // Loading checks the declared layouts against each other, not against the
    // plugins' headers: say so, since only --compile does (issue 19).
    if (!o.compile)
        print_to(stderr, "weft: note: native type layouts and native functions were not compiled against the "
                           "plugins' headers; `weft plugin check --compile` verifies them\n");
    if (!r.ok()) print_to(stderr, "weft: plugin check failed\n");
    return r.ok() ? 0 : 1;
}

} // namespace weft::cli
