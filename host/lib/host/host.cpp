#include "weft/host/host.hpp"

#include "host_access.hpp"
#include "objects.hpp"
#include "loader_internal.hpp"
#include "modules/module_table.hpp"
#include "modules/shared_objects.hpp"
#include "trusted_load.hpp"
#include "weft/backend/cpu_compiler.hpp"
#include "weft/host/search_path.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/support/environment.hpp"
#include "weft/support/error.hpp"
#include "weft/support/file.hpp"
#include "weft/support/text.hpp"
#include "weft/support/version.hpp"

#include <boost/dll/shared_library.hpp>

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace weft {

namespace fs = std::filesystem;

namespace {

std::string plugin_label(const std::string &name) { return "plugin '" + name + "'"; }

/// The first include directory or dependency a plugin registered outside its
/// manifest's directory (what a trust check covers), as "FIELD: 'PATH' ...";
/// empty when there is none. Relative paths are left to resolve(), which
/// refuses them for every plugin.
std::string outside_plugin_directory(const PluginManifest &m, const std::vector<ModuleBuildOptions> &options) {
    const fs::path dir = m.directory().lexically_normal();
    auto inside = [&](const std::string &value) {
        const fs::path p = fs::path(value).lexically_normal();
        if (!p.is_absolute()) return true;
        auto d = dir.begin(), q = p.begin();
        for (; d != dir.end() && !d->empty(); ++d, ++q)
            if (q == p.end() || *q != *d) return false;
        return true;
    };
    for (const ModuleBuildOptions &o : options)
        for (const auto &[field, values] : {std::pair{"cpu_include_dirs", &o.extra_cpu_include_dirs},
                                            std::pair{"cuda_include_dirs", &o.extra_cuda_include_dirs},
                                            std::pair{"build_dependencies", &o.extra_build_dependencies}})
            for (const std::string &v : *values)
                if (!inside(v))
                    return std::string(field) + ": '" + escape_for_display(v) + "' lies outside the plugin's directory " +
                           dir.string() + ", which is all that its trust check covers (ship the files in it)";
    return {};
}

std::string abi_range() {
    return min_abi_version == max_abi_version
               ? std::to_string(min_abi_version)
               : std::to_string(min_abi_version) + " to " + std::to_string(max_abi_version);
}

/// First line of a Boost.DLL error: the dlerror text, without its errno suffix.
std::string dl_message(const std::exception &e) {
    std::string s = e.what();
    const auto pos = s.find(": Bad file descriptor");
    if (pos != std::string::npos) s.erase(pos);
    return s;
}

} // namespace

struct Host::Impl {
    HostOptions options;
    Logger logger;
    std::vector<fs::path> search_path;
    Registry registry;

    trust::PluginTrust trust;

    struct Mapped {
        UniqueFd image; // under a trust policy: the sealed copy the library is mapped from (outlives it)
        boost::dll::shared_library library;
    };
    struct Entry {
        LoadedPlugin plugin;
        // Shared with the plugin's object types: objects alive after the host keep the code they call mapped.
        std::shared_ptr<Mapped> mapped = std::make_shared<Mapped>();
        // The plugin's object types as the objects hold them (they may outlive the host), made once at load.
        std::vector<std::shared_ptr<const ObjectTypeInfo>> object_records;
    };
    std::vector<std::unique_ptr<Entry>> entries; // load order
    // The entries by name, sorted, for find(): scanning every entry per lookup
    // made load_all quadratic in the number of plugins (bench/plugin_load).
    std::vector<std::pair<std::string_view, const LoadedPlugin *>> by_name;
    std::map<std::string, std::unique_ptr<ModuleSettings>, std::less<>> modules;
    mutable std::optional<ArtifactCache> cache;
    std::optional<RemoteCache> remote; // constructed with the host: a bad URL or key fails early
    mutable std::shared_ptr<pipeline::Pipeline> pipeline; // loaded modules' later passes hold it weakly
    // After the members its links use (logger, cache), so destroyed before
    // them: it waits for the shared objects still being linked into the cache.
    std::unique_ptr<SharedObjects> shared_objects;
    std::shared_future<void> jit_ready; // backend::CpuJit::prepare(), started by this host; guarded by compiled_mutex
    std::shared_ptr<ThreadPool> pool; // kernels hold it weakly: launching after the host is gone is an error
    mutable std::mutex compiled_mutex;
    mutable std::mutex modules_mutex; // modules and the lazy creation of the cache and pipeline
    // Who loaded each module name: a file (see claim_origin), or source text.
    struct Claim {
        fs::path origin; // absolute, as given; empty for source text
        std::string canonical; // claim_of(origin), computed when another origin asks for the name
    };
    std::map<std::string, Claim, std::less<>> claims; // guarded by compiled_mutex
    modules::ModuleTable loaded_modules; // guarded by compiled_mutex
    std::shared_ptr<detail::ObjectTable> objects = std::make_shared<detail::ObjectTable>();

    explicit Impl(HostOptions o)
        : options(std::move(o)), logger(options.log_sink, options.log_categories), search_path(options.search_path),
          trust(options.plugin_trust) {
        objects->logger = &logger;
        if (options.use_environment) {
            // Ignored when the process runs setuid/setgid (environment_override).
            if (const char *env = environment_override("WEFT_PLUGIN_PATH"))
                for (fs::path &p : split_path_list(env)) search_path.push_back(std::move(p));
            if (options.remote_cache.url.empty())
                if (const char *url = environment_override("WEFT_REMOTE_CACHE"); url && *url) options.remote_cache.url = url;
            // After the explicit and WEFT_PLUGIN_PATH entries: those win a name (W-LOAD-2).
            for (fs::path &p : default_plugin_search_path()) search_path.push_back(std::move(p));
        }
    }

    ~Impl() {
        // The JIT's creation does not outlive the host that started it.
        if (jit_ready.valid()) jit_ready.wait();
        // This process's cache counts join the totals `weft cache stats` shows.
        if (pipeline && cache) {
            const CacheCounters counts = pipeline->counters();
            if (!counts.empty() && !add_cache_counters(*cache, counts))
                logger.log(LogLevel::Info, "cache", "cannot add to " + (cache->root() / "stats.json").string());
        }
        // Loaded modules' later passes (backward, strided copies) hold it weakly: they now say the host is gone.
        pipeline.reset();
        loaded_modules.take_all(); // handles still held elsewhere keep their code, but cannot launch
        // Objects still alive keep their plugin's library mapped (they may be
        // used and destroyed later); say which, since their plugin is gone.
        {
            const ObjectStats live = objects->stats();
            if (live.live) {
                std::string names;
                for (const std::string &l : live.labels) names += (names.empty() ? "" : ", ") + l;
                logger.log(LogLevel::Warning, "objects",
                           "host destroyed with " + std::to_string(live.live) +
                               " live objects; their plugins' libraries stay mapped until they are destroyed: " + names);
            }
            const std::lock_guard lock(objects->mutex);
            objects->logger = nullptr;
        }
        // Registrations first: nothing may refer to a plugin once its code is gone.
        registry.clear();
        by_name.clear();
        while (!entries.empty()) {
            debug([&] { return "unloading " + plugin_label(entries.back()->plugin.name()); });
            entries.pop_back();
        }
    }

    /// Loader debug messages, built only when WEFT_DEBUG asks for them.
    template <class F> void debug(F &&message) const {
        if (logger.enabled(LogLevel::Debug, "loader")) logger.log(LogLevel::Debug, "loader", message());
    }

    const std::shared_ptr<const ObjectTypeInfo> *find_object_type(std::string_view name) const {
        for (const auto &e : entries)
            for (const auto &t : e->object_records)
                if (t->name == name) return &t;
        return nullptr;
    }

    const LoadedPlugin *find(std::string_view name) const {
        const auto it = name_position(name);
        return it != by_name.end() && it->first == name ? it->second : nullptr;
    }
    auto name_position(std::string_view name) const -> decltype(by_name)::const_iterator {
        return std::lower_bound(by_name.begin(), by_name.end(), name,
                                [](const auto &e, std::string_view n) { return e.first < n; });
    }

    const LoadedPlugin &load_one(const PluginManifest &manifest);
    LoadReport load_all(std::vector<PluginManifest> roots, std::vector<PluginManifest> available,
                        std::vector<PluginFailure> failures);
};

// ---------------------------------------------------------------------------

const LoadedPlugin &Host::Impl::load_one(const PluginManifest &m) {
    const std::string who = plugin_label(m.name);
    auto fail = [&](const std::string &message) -> PluginError { return PluginError(m.name, who + ": " + message); };

    if (const LoadedPlugin *existing = find(m.name)) {
        if (existing->manifest.path == m.path) return *existing;
        throw fail("already loaded from " + existing->manifest.path.string() + "; not loading " + m.path.string());
    }
    // Checked from the manifest, before any plugin code is mapped.
    if (m.abi < min_abi_version || m.abi > max_abi_version)
        throw fail("built for plugin ABI " + std::to_string(m.abi) + " (" + m.path.string() +
                   "); this host supports ABI " + abi_range());

    std::error_code ec;
    // Under a trust policy the bytes are read once and checked, and the
    // library is loaded from a sealed copy of exactly those bytes.
    std::optional<VerifiedPlugin> verified;
    if (trust.mode() != trust::TrustMode::Any) {
        verified = verify_plugin(m, trust, options.fault_hook);
        debug([&] {
            return who + " accepted by trust policy '" + std::string(trust::trust_mode_name(trust.mode())) + "'" +
                   (verified->signed_by.empty() ? std::string() : " (signed by " + verified->signed_by + ")");
        });
    }
    const fs::path load_path = verified ? fs::path(verified->load_path()) : m.library_path;
    try {
        check_shared_library_file(load_path);
    } catch (const UserError &e) {
        // What kind of thing is there is asked only now: a stat per plugin on
        // the common path is a measurable part of loading (bench/plugin_load).
        if (!verified && !fs::is_regular_file(m.library_path, ec)) {
            const std::string kind = describe_file_kind(m.library_path);
            throw fail("library " + m.library_path.string() + " named by " + m.path.string() +
                       (kind.rfind("nothing", 0) == 0 ? std::string(" does not exist") : " is " + kind + ", not a file"));
        }
        throw fail("library " + m.library_path.string() + ": " + e.what());
    }

    // Under a trust policy its dependencies are loaded from the system
    // directories first, by path: the dynamic loader then finds them by
    // soname instead of searching /usr/local/lib or LD_LIBRARY_PATH.
    if (verified)
        for (const std::string &dependency : verified->system_dependencies) {
            void *handle = ::dlopen(dependency.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
            if (!handle) {
                const char *why = ::dlerror();
                throw fail("cannot load its dependency " + dependency + ": " + (why ? why : "unknown error"));
            }
            ::dlclose(handle); // RTLD_NODELETE: it stays mapped
        }
    debug([&] { return "opening " + m.library_path.string() + " for " + who; });
    boost::dll::shared_library library;
    try {
        library.load(load_path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception &e) {
        throw fail("cannot open library: " + dl_message(e));
    }

    if (!library.has(WEFT_PLUGIN_INFO_SYMBOL))
        throw fail("library " + m.library_path.string() + " does not export " + WEFT_PLUGIN_INFO_SYMBOL +
                   " (not a weft plugin, or built without WEFT_PLUGIN / weft_add_plugin)");
    if (!library.has(WEFT_PLUGIN_INIT_SYMBOL))
        throw fail("library " + m.library_path.string() + " does not export " + WEFT_PLUGIN_INIT_SYMBOL);
    auto info_fn = library.get<const weft_plugin_info *()>(WEFT_PLUGIN_INFO_SYMBOL);
    auto init_fn = library.get<weft_status(const weft_host_api *)>(WEFT_PLUGIN_INIT_SYMBOL);

    const weft_plugin_info *raw_info = nullptr;
    try {
        raw_info = info_fn();
    } catch (...) {
        throw fail(std::string(WEFT_PLUGIN_INFO_SYMBOL) + "() let an exception escape");
    }
    if (!raw_info) throw fail(std::string(WEFT_PLUGIN_INFO_SYMBOL) + "() returned NULL");
    // The versioned-struct rule of every descriptor (host_api.cpp's read_struct):
    // a newer record is taken only when the bytes this host does not know are zero.
    constexpr std::uint32_t max_info_size = 4096;
    const std::uint32_t info_size = raw_info->struct_size;
    if (info_size < offsetof(weft_plugin_info, sdk_version) + sizeof raw_info->sdk_version || info_size > max_info_size)
        throw fail("weft_plugin_info has struct_size " + std::to_string(info_size) + ", expected " +
                   std::to_string(sizeof(weft_plugin_info)) + " (at most " + std::to_string(max_info_size) + ")");
    const auto *info_bytes = reinterpret_cast<const unsigned char *>(raw_info);
    for (std::size_t i = sizeof(weft_plugin_info); i < info_size; ++i)
        if (info_bytes[i] != 0)
            throw fail("weft_plugin_info has struct_size " + std::to_string(info_size) + ", larger than the " +
                       std::to_string(sizeof(weft_plugin_info)) + " bytes this host knows, and byte " + std::to_string(i) +
                       " is not zero (a field this host does not support is set)");
    weft_plugin_info info{};
    std::memcpy(&info, raw_info, sizeof info);
    if (info.abi_version < min_abi_version || info.abi_version > max_abi_version)
        throw fail("library is built for plugin ABI " + std::to_string(info.abi_version) +
                   "; this host supports ABI " + abi_range());
    if (info.abi_version != m.abi)
        throw fail("manifest " + m.path.string() + " says abi " + std::to_string(m.abi) + " but the library says " +
                   std::to_string(info.abi_version));
    // Checked before they are compared or echoed: they end up in messages and JSON.
    std::string info_name, info_version, info_sdk_version;
    try {
        info_name = string_from_plugin(info.name, "weft_plugin_info.name");
        info_version = string_from_plugin(info.version, "weft_plugin_info.version");
        info_sdk_version = string_from_plugin(info.sdk_version, "weft_plugin_info.sdk_version");
    } catch (const UserError &e) {
        throw fail(std::string("library ") + m.library_path.string() + ": " + e.what());
    }
    if (info_name != m.name)
        throw fail("library reports name '" + info_name + "' but manifest " + m.path.string() + " says '" + m.name + "'");
    // Compared as versions: "+build" metadata is not part of a version's identity.
    const auto parsed_version = Version::parse(info_version);
    if (!parsed_version || !(*parsed_version == m.version) || parsed_version->prerelease != m.version.prerelease)
        throw fail("library reports version '" + info_version + "' but manifest " + m.path.string() + " says '" +
                   m.version.str() + "'");

    weft_host_context &context = open_host_context(
        std::make_unique<InitSession>(InitSession{m.name, registry.begin(m.name, m.prefixes), &logger, {}, {}, {}, {}, {}, {}}),
        m.directory().string());

    debug([&] { return "running init of " + who; });
    weft_status status = WEFT_ERROR_INTERNAL;
    bool escaped = false;
    try {
        status = init_fn(&context.api);
    } catch (...) {
        escaped = true;
    }
    const std::unique_ptr<InitSession> session = close_host_context(context);
    InitSession &ctx = *session;
    // A C++ plugin that let an exception escape broke the ABI; it is still
    // this plugin's failure, not the host's.
    if (escaped) throw fail("init let an exception escape (exceptions must not cross the plugin ABI)");
    if (!ctx.rejected.empty()) {
        std::string message = "registration rejected: " + ctx.rejected.front();
        if (ctx.rejected.size() > 1) message += " (and " + std::to_string(ctx.rejected.size() - 1) + " more)";
        throw fail(message + "; nothing of the plugin was registered");
    }
    if (status != WEFT_OK)
        throw fail("init failed (status " + std::to_string(status) + ")" +
                   (ctx.reported_error.empty() ? std::string() : ": " + ctx.reported_error) +
                   "; nothing of the plugin was registered");

    // Under a trust policy what a plugin adds to a build must be what was
    // checked: its include directories and dependencies lie in its directory.
    if (verified) {
        const std::string outside = outside_plugin_directory(m, ctx.build_options);
        if (!outside.empty())
            throw fail(trust::refused_by(trust.mode()) + outside + "; nothing of the plugin was registered");
    }

    auto entry = std::make_unique<Entry>();
    entry->plugin.manifest = m;
    entry->plugin.abi_version = info.abi_version;
    entry->plugin.sdk_version = info_sdk_version;
    entry->plugin.native_types = ctx.transaction.staged_native_types();
    entry->plugin.build_options = std::move(ctx.build_options);
    if (verified) {
        entry->plugin.signed_by = verified->signed_by;
        entry->plugin.verified_files = trust::VerifiedDirectory{
            m.name,
            std::string(trust::trust_mode_name(trust.mode())),
            m.directory(),
            {m.path, m.library_path, trust::signature_path(m.path)},
            std::move(verified->files)};
        entry->mapped->image = std::move(verified->image);
    }
    entry->mapped->library = std::move(library);
    for (const ObjectTypeInfo &t : ctx.object_types) {
        if (const auto *other = find_object_type(t.name))
            throw fail("registration rejected: object type '" + t.name + "' is already registered by plugin '" +
                       (*other)->plugin + "'; nothing of the plugin was registered");
        t.impl->library = entry->mapped;
        entry->object_records.push_back(std::make_shared<const ObjectTypeInfo>(t));
    }
    entry->plugin.object_types = std::move(ctx.object_types);
    // Room for the entry first (geometrically: reserve(size() + 1) would
    // reallocate per plugin): once committed, nothing may fail before the
    // plugin that owns the registrations is kept.
    if (entries.size() == entries.capacity()) entries.reserve(std::max<std::size_t>(16, 2 * entries.size()));
    if (by_name.size() == by_name.capacity()) by_name.reserve(std::max<std::size_t>(16, 2 * by_name.size()));
    entry->plugin.builtins = ctx.transaction.commit();
    // Composed only when someone listens: most hosts log loader info to no one.
    if (logger.enabled(LogLevel::Info, "loader"))
        logger.log(LogLevel::Info, "loader",
                   "loaded " + who + " " + m.version.str() + ": " + std::to_string(entry->plugin.builtins.size()) +
                       " builtins, " + std::to_string(entry->plugin.native_types.size()) + " native types");
    entries.push_back(std::move(entry));
    const LoadedPlugin &loaded = entries.back()->plugin;
    by_name.insert(name_position(loaded.name()), {loaded.name(), &loaded}); // reserved: cannot fail
    return loaded;
}

LoadReport Host::Impl::load_all(std::vector<PluginManifest> roots, std::vector<PluginManifest> available,
                                std::vector<PluginFailure> failures) {
    // Candidates by name: the given manifests, the available ones, then the search path (lazily).
    std::map<std::string, PluginManifest> given;
    for (PluginManifest &m : roots) {
        auto it = given.find(m.name);
        if (it != given.end() && it->second.path != m.path) {
            failures.push_back({m.name, m.path,
                                plugin_label(m.name) + ": given twice, from " + it->second.path.string() + " and " +
                                    m.path.string()});
            continue;
        }
        given.emplace(m.name, std::move(m));
    }
    std::map<std::string, PluginManifest> extra;
    for (PluginManifest &m : available) extra.emplace(m.name, std::move(m));
    std::optional<Discovery> discovered;
    auto candidate = [&](const std::string &name) -> const PluginManifest * {
        if (auto it = given.find(name); it != given.end()) return &it->second;
        if (auto it = extra.find(name); it != extra.end()) return &it->second;
        if (!discovered) discovered = discover_plugins(search_path);
        for (const PluginManifest &m : discovered->plugins)
            if (m.name == name) return &m;
        return nullptr;
    };

    // Depth-first over requirements, visiting names in sorted order, so the
    // load order depends only on the plugin set.
    std::vector<const PluginManifest *> order;
    std::map<std::string, int> state; // 1 visiting, 2 done
    std::map<std::string, std::string> failed; // name -> message
    std::vector<std::string> stack;

    std::function<bool(const PluginManifest &)> visit = [&](const PluginManifest &m) -> bool {
        if (state[m.name] == 2) return !failed.count(m.name);
        state[m.name] = 1;
        stack.push_back(m.name);
        bool ok = true;
        if (m.requires_host && !m.requires_host->satisfied_by(*Version::parse(version_string))) {
            failed[m.name] = plugin_label(m.name) + ": requires weft " + m.requires_host->text() +
                             ", but this host is weft " + version_string + " (" + m.path.string() + ")";
            ok = false;
        }
        std::vector<Requirement> reqs = m.requires_;
        std::sort(reqs.begin(), reqs.end(), [](const Requirement &a, const Requirement &b) { return a.name < b.name; });
        for (const Requirement &r : reqs) {
            const std::string need = "requires '" + r.name + "' " + r.constraint.text();
            if (state[r.name] == 1) {
                auto from = std::find(stack.begin(), stack.end(), r.name);
                std::string cycle;
                for (auto it = from; it != stack.end(); ++it) cycle += *it + " -> ";
                failed[m.name] = plugin_label(m.name) + ": requirement cycle: " + cycle + r.name;
                ok = false;
                continue;
            }
            const LoadedPlugin *loaded = find(r.name);
            const PluginManifest *dep = loaded ? &loaded->manifest : candidate(r.name);
            if (!dep) {
                if (failed.count(m.name)) continue;
                std::string where;
                for (const fs::path &p : search_path) where += (where.empty() ? "" : ":") + p.string();
                failed[m.name] = plugin_label(m.name) + ": " + need + ", which is not loaded, not given and not on the search path (" +
                                 (where.empty() ? "empty" : where) + ")";
                ok = false;
                continue;
            }
            if (!r.constraint.satisfied_by(dep->version)) {
                if (failed.count(m.name)) continue; // the first unmet requirement is the one reported
                failed[m.name] = plugin_label(m.name) + ": " + need + ", but " + plugin_label(r.name) + " is " +
                                 dep->version.str() + " (" + dep->path.string() + ")";
                ok = false;
                continue;
            }
            if (!loaded && !visit(*dep)) {
                if (!failed.count(m.name)) failed[m.name] = plugin_label(m.name) + ": not loaded because its requirement " +
                                                             plugin_label(r.name) + " failed: " + failed[r.name];
                ok = false;
            }
        }
        stack.pop_back();
        state[m.name] = 2;
        if (ok) order.push_back(&m);
        return ok;
    };
    for (auto &[name, m] : given) visit(m);

    LoadReport report;
    for (const PluginManifest *m : order) {
        // Topological order: a failed requirement was attempted before its dependents.
        auto broken = std::find_if(m->requires_.begin(), m->requires_.end(),
                                   [&](const Requirement &r) { return failed.count(r.name) != 0; });
        if (broken != m->requires_.end()) {
            failed[m->name] = plugin_label(m->name) + ": not loaded because its requirement " + plugin_label(broken->name) +
                              " failed: " + failed[broken->name];
            continue;
        }
        try {
            report.loaded.push_back(&load_one(*m));
        } catch (const PluginError &e) {
            failed[m->name] = e.what();
        }
    }
    std::set<std::string> reported;
    for (const PluginFailure &f : failures) reported.insert(f.plugin);
    for (const auto &[name, message] : failed) {
        if (reported.count(name)) continue;
        const PluginManifest *m = candidate(name);
        failures.push_back({name, m ? m->path : fs::path(), message});
    }
    std::sort(failures.begin(), failures.end(),
              [](const PluginFailure &a, const PluginFailure &b) { return a.plugin < b.plugin; });
    report.failures = std::move(failures);
    for (const PluginFailure &f : report.failures) debug([&] { return f.message; });
    return report;
}

// ---------------------------------------------------------------------------

Host::Host(HostOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
    // Without shared objects a warm load in a new process links into the
    // JIT, whose creation then overlaps the content key and the record
    // (issue 20: otherwise the load waits a millisecond for it). With them it
    // maps a shared object and needs no JIT; a compile starts it (prepare_jit).
    if (!impl_->options.cpu_shared_objects || !backend::shared_objects_supported())
        impl_->jit_ready = backend::CpuJit::prepare();
    if (!impl_->options.remote_cache.url.empty()) impl_->remote.emplace(impl_->options.remote_cache, &impl_->logger);
    impl_->shared_objects = std::make_unique<SharedObjects>(impl_->logger, impl_->options.cpu_shared_objects);
    if (impl_->options.core_builtins) impl_->registry.defer_core_builtins();
    // Arrays and streams on CUDA devices work once a host exists (no driver is loaded here).
    install_cuda_runtime();
}

Host::~Host() = default;

const ObjectTypeInfo *Host::object_type(std::string_view name) const {
    const auto *t = impl_->find_object_type(name);
    return t ? t->get() : nullptr;
}

std::vector<const ObjectTypeInfo *> Host::object_types() const {
    std::vector<const ObjectTypeInfo *> out;
    for (const auto &e : impl_->entries)
        for (const ObjectTypeInfo &t : e->plugin.object_types) out.push_back(&t);
    return out;
}

Object Host::create(std::string_view type, const ObjectArgs &args, Device device) {
    const auto *t = impl_->find_object_type(type);
    if (!t) {
        std::string names;
        for (const ObjectTypeInfo *x : object_types()) names += (names.empty() ? "" : ", ") + x->name;
        throw UserError("no object type '" + escape_for_display(type) + "' (registered: " +
                        (names.empty() ? std::string("none; load the plugin that provides it") : names) + ")");
    }
    return detail::create_object(*t, args, device, impl_->objects);
}

ObjectStats Host::object_stats() const { return impl_->objects->stats(); }

void Host::add_search_path(const fs::path &directory) { impl_->search_path.push_back(directory); }
const std::vector<fs::path> &Host::search_path() const { return impl_->search_path; }

Discovery Host::discover() const { return discover_plugins(impl_->search_path); }

LoadReport Host::load_all(const std::vector<fs::path> &paths, const std::vector<fs::path> &available) {
    std::vector<PluginManifest> roots;
    std::vector<PluginFailure> failures;
    for (const fs::path &p : paths) {
        try {
            roots.push_back(read_plugin_manifest(p));
        } catch (const UserError &e) {
            failures.push_back({p.string(), p, e.what()});
        }
    }
    std::vector<PluginManifest> extra;
    for (const fs::path &p : available) {
        try {
            extra.push_back(read_plugin_manifest(p));
        } catch (const UserError &) {
            // An unreadable extra is reported where it is a root, not here.
        }
    }
    return impl_->load_all(std::move(roots), std::move(extra), std::move(failures));
}

const LoadedPlugin &Host::load(const fs::path &path) {
    const PluginManifest m = read_plugin_manifest(path);
    LoadReport report = impl_->load_all({m}, {}, {});
    if (!report.ok()) {
        // The requested plugin's own message first; requirement failures lead to it anyway.
        auto own = std::find_if(report.failures.begin(), report.failures.end(),
                                [&](const PluginFailure &f) { return f.plugin == m.name; });
        const PluginFailure &f = own != report.failures.end() ? *own : report.failures.front();
        throw PluginError(f.plugin, f.message);
    }
    return *impl_->find(m.name);
}

const LoadedPlugin &Host::load_by_name(std::string_view name) {
    if (const LoadedPlugin *p = impl_->find(name)) return *p;
    for (const PluginManifest &m : discover().plugins)
        if (m.name == name) return load(m.path);
    throw PluginError(std::string(name), plugin_label(std::string(name)) + ": not found on the search path; " +
                                             searched_directories(impl_->search_path));
}

const LoadedPlugin *Host::plugin(std::string_view name) const { return impl_->find(name); }

std::vector<const LoadedPlugin *> Host::plugins() const {
    std::vector<const LoadedPlugin *> out;
    for (const auto &e : impl_->entries) out.push_back(&e->plugin);
    return out;
}

ModuleSettings &Host::module(std::string_view name) {
    // Modules of different names may be loaded from several threads at once.
    std::lock_guard<std::mutex> lock(impl_->modules_mutex);
    auto it = impl_->modules.find(name);
    if (it == impl_->modules.end())
        it = impl_->modules.emplace(std::string(name), std::make_unique<ModuleSettings>(std::string(name))).first;
    return *it->second;
}

const ModuleSettings *Host::find_module(std::string_view name) const {
    std::lock_guard<std::mutex> lock(impl_->modules_mutex);
    auto it = impl_->modules.find(name);
    return it == impl_->modules.end() ? nullptr : it->second.get();
}

void Host::set_module_options(std::string_view name, ModuleBuildOptions options) {
    module(name).set_build_options(std::move(options));
}

void Host::set_module_options(ModuleSettings &m, ModuleBuildOptions options) { m.set_build_options(std::move(options)); }

void Host::set_module_plugins(ModuleSettings &m, const std::vector<std::string> &plugins) {
    std::vector<PluginBuildOptions> values;
    for (const std::string &name : plugins) {
        const LoadedPlugin *p = plugin(name);
        if (!p) throw UserError("module '" + m.name() + "' uses plugin '" + name + "', which is not loaded in this host");
        values.push_back({name, p->build_options, p->verified_files});
    }
    m.set_plugins(std::move(values));
}

const ArtifactCache &Host::cache() const {
    std::lock_guard<std::mutex> lock(impl_->modules_mutex);
    if (!impl_->cache) impl_->cache.emplace(impl_->options.cache_dir, &impl_->logger);
    return *impl_->cache;
}

const RemoteCache *Host::remote_cache() const { return impl_->remote ? &*impl_->remote : nullptr; }

CacheCounters Host::cache_counters() const {
    std::lock_guard<std::mutex> lock(impl_->modules_mutex);
    if (impl_->pipeline) return impl_->pipeline->counters();
    CacheCounters c;
    if (impl_->remote) c.remote = impl_->remote->counters();
    return c;
}

ThreadPool &Host::thread_pool() { return *detail::HostAccess::pool(*this); }

namespace {
/// The file a module's source came from, as a claim on its name: absolute
/// (so a later chdir does not make another file look the same), not
/// canonical. Canonicalizing (a system call per path component) was a tenth
/// of a warm load; it is done only when two different paths ask for one name.
fs::path claim_origin(const pipeline::ModuleSource &source) {
    if (source.origin.empty() || source.origin.is_absolute()) return source.origin;
    std::error_code ec;
    fs::path p = fs::absolute(source.origin, ec);
    return ec ? source.origin : p;
}

/// What names a claim in messages and tells two paths to one file apart.
std::string claim_of(const fs::path &origin) {
    if (origin.empty()) return {};
    std::error_code ec;
    fs::path p = fs::weakly_canonical(origin, ec);
    return ec ? origin.lexically_normal().string() : p.string();
}
std::string claim_text(const std::string &claim) { return claim.empty() ? "source text" : claim; }
} // namespace

namespace detail {

const pipeline::Pipeline &HostAccess::pipeline(const Host &host) {
    const ArtifactCache &cache = host.cache();
    std::lock_guard<std::mutex> lock(host.impl_->modules_mutex);
    if (!host.impl_->pipeline)
        host.impl_->pipeline = std::make_shared<pipeline::Pipeline>(host.impl_->registry, cache, host.impl_->logger,
                                     host.impl_->remote ? &*host.impl_->remote : nullptr,
                                     [given = host.impl_->options.prebuilt_dir] {
                                         return given ? *given : installed_prebuilt_dir();
                                     });
    return *host.impl_->pipeline;
}

std::shared_ptr<const pipeline::Pipeline> HostAccess::pipeline_handle(const Host &host) {
    pipeline(host);
    std::lock_guard<std::mutex> lock(host.impl_->modules_mutex);
    return host.impl_->pipeline;
}

SharedObjects &HostAccess::shared_objects(Host &host) { return *host.impl_->shared_objects; }

void HostAccess::prepare_jit(Host &host) {
    std::lock_guard<std::mutex> lock(host.impl_->compiled_mutex);
    if (!host.impl_->jit_ready.valid()) host.impl_->jit_ready = backend::CpuJit::prepare();
}

std::shared_ptr<ThreadPool> HostAccess::pool(Host &host) {
    std::lock_guard<std::mutex> lock(host.impl_->compiled_mutex);
    // Kernels often do much work per thread index (n-body: a loop over all bodies),
    // so launches split from 1024 indices on; smaller ones run on the caller.
    if (!host.impl_->pool) host.impl_->pool = std::make_shared<ThreadPool>(host.impl_->options.threads, 1024);
    return host.impl_->pool;
}

void HostAccess::check_claim(const Host &host, const pipeline::ModuleSource &source) {
    const fs::path origin = claim_origin(source);
    std::lock_guard<std::mutex> lock(host.impl_->compiled_mutex);
    auto it = host.impl_->claims.find(source.name);
    if (it == host.impl_->claims.end() || it->second.origin == origin) return;
    // Two spellings of one file (a link, "..") are still one claim.
    Host::Impl::Claim &held = it->second;
    if (held.canonical.empty()) held.canonical = claim_of(held.origin);
    const std::string claim = claim_of(origin);
    if (held.canonical == claim) return;
    throw UserError("module '" + source.name + "' is already loaded in this host from " + claim_text(held.canonical) +
                    "; " + claim_text(claim) + " cannot load under the same name (give one of them another name with "
                    "ModuleLoadOptions::name, or unload_module(\"" + source.name + "\") first)");
}

std::shared_ptr<CompiledModule::Impl> HostAccess::find_loaded(const Host &host, std::string_view name, Device device) {
    std::lock_guard<std::mutex> lock(host.impl_->compiled_mutex);
    return host.impl_->loaded_modules.find(name, device);
}

void HostAccess::put_loaded(Host &host, const pipeline::ModuleSource &source, Device device,
                            std::shared_ptr<CompiledModule::Impl> module) {
    std::shared_ptr<CompiledModule::Impl> replaced; // released outside the lock: unloading runs static destructors
    std::lock_guard<std::mutex> lock(host.impl_->compiled_mutex);
    host.impl_->claims[source.name] = {claim_origin(source), {}};
    replaced = host.impl_->loaded_modules.put(source.name, device, std::move(module));
}

} // namespace detail

std::optional<CompiledModule> Host::loaded_module(std::string_view name, Device device) const {
    if (auto m = detail::HostAccess::find_loaded(*this, name, device)) return CompiledModule(std::move(m));
    return std::nullopt;
}

bool Host::unload_module(std::string_view name) {
    std::vector<std::shared_ptr<CompiledModule::Impl>> modules;
    {
        std::lock_guard<std::mutex> lock(impl_->compiled_mutex);
        modules = impl_->loaded_modules.remove(name);
        if (auto it = impl_->claims.find(name); it != impl_->claims.end()) impl_->claims.erase(it);
    }
    return !modules.empty(); // unloaded here, outside the lock
}

bool Host::quiet() const { return impl_->options.quiet; }

const Registry &Host::registry() const { return impl_->registry; }
Registry &Host::registry() { return impl_->registry; }
const Logger &Host::logger() const { return impl_->logger; }

} // namespace weft
