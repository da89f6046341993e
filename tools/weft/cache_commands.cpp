// `weft cache path|list|stats|clear|verify|push|pull|prebuild`.
#include "commands.hpp"

#include "weft/cache/cache.hpp"
#include "weft/cache/cache_counters.hpp"
#include "weft/cache/remote_cache.hpp"
#include "weft/host/host.hpp"
#include "weft/pipeline/pipeline.hpp"
#include "weft/support/environment.hpp"
#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>

namespace weft::cli {

namespace {

/// The host settings (configuration file, flags) with --cache-dir over them.
HostOptions settings(const CacheOptions &o) {
    HostOptions h;
    apply_host_settings(h);
    if (!o.cache_dir.empty()) h.cache_dir = o.cache_dir;
    if (h.remote_cache.url.empty())
        if (const char *url = environment_override("WEFT_REMOTE_CACHE"); url && *url) h.remote_cache.url = url;
    return h;
}

ArtifactCache open_cache(const CacheOptions &o) { return ArtifactCache(settings(o).cache_dir); }

std::unique_ptr<RemoteCache> open_remote(const HostOptions &h, const Logger &logger) {
    if (h.remote_cache.url.empty())
        throw UserError("no remote cache: give --remote-cache URL, set WEFT_REMOTE_CACHE, or set [cache] remote in "
                        "the configuration file");
    return std::make_unique<RemoteCache>(h.remote_cache, &logger);
}

/// Exit status 1 when the remote had faults: push and pull then did not do everything.
int remote_status(const RemoteCache &remote) {
    const RemoteCacheCounters c = remote.counters();
    if (c.errors || c.skipped) {
        print_to(stderr, "weft: error: the remote cache {} had {} errors; not everything was copied\n",
                   remote.options().url, c.errors + c.skipped);
        return 1;
    }
    return 0;
}

const char *action_name(CacheFinding::Action a) {
    switch (a) {
    case CacheFinding::Action::Reported: return "reported";
    case CacheFinding::Action::Removed: return "removed";
    case CacheFinding::Action::Failed: return "failed";
    }
    return "reported";
}

nlohmann::json entry_json(const CacheEntryInfo &e) {
    return {{"module", e.module}, {"hash", e.hash}, {"targets", e.targets}, {"bytes", e.bytes},
            {"directory", e.directory.string()}};
}

nlohmann::json finding_json(const CacheFinding &f) {
    return {{"path", f.path.string()}, {"problem", f.problem}, {"action", action_name(f.action)}};
}

nlohmann::json temporary_json(const CacheTemporary &t) {
    return {{"path", t.path.string()}, {"stale", t.stale}, {"removed", t.removed}};
}

std::size_t stale_count(const CacheReport &r) {
    return static_cast<std::size_t>(
        std::count_if(r.temporaries.begin(), r.temporaries.end(), [](const CacheTemporary &t) { return t.stale; }));
}

nlohmann::json counters_json(const CacheCounters &c) {
    return {{"local_hits", c.local_hits},         {"local_misses", c.local_misses},
            {"compiles", c.compiles},             {"unit_hits", c.unit_hits},
            {"unit_compiles", c.unit_compiles},   {"remote_hits", c.remote.hits},
            {"remote_misses", c.remote.misses},   {"remote_errors", c.remote.errors},
            {"remote_rejected", c.remote.rejected}, {"remote_stores", c.remote.stores},
            {"remote_skipped", c.remote.skipped}, {"remote_too_large", c.remote.too_large}};
}

/// Diagnostics follow the report, so a reader of both streams sees them after it.
void flush_stdout() { std::fflush(stdout); }

} // namespace

int cache_path(const CacheOptions &o) {
    print_out("{}\n", open_cache(o).root().string());
    return 0;
}

int cache_list(const CacheOptions &o) {
    const ArtifactCache cache = open_cache(o);
    const CacheReport report = cache.scan();
    if (o.json) {
        nlohmann::json out{{"root", cache.root().string()},
                           {"entries", nlohmann::json::array()},
                           {"damaged", nlohmann::json::array()},
                           {"temporaries", nlohmann::json::array()}};
        for (const CacheEntryInfo &e : report.entries) out["entries"].push_back(entry_json(e));
        for (const CacheFinding &f : report.findings) out["damaged"].push_back(finding_json(f));
        for (const CacheTemporary &t : report.temporaries) out["temporaries"].push_back(temporary_json(t));
        print_out("{}\n", out.dump(2, ' ', false, json_invalid_utf8));
        return 0;
    }
    for (const CacheEntryInfo &e : report.entries) {
        std::string targets;
        for (const std::string &t : e.targets) targets += (targets.empty() ? "" : ",") + t;
        print_out("{}  {}  {:>10} B  {}\n", e.module, e.hash, e.bytes, targets.empty() ? "(no artifacts)" : targets);
    }
    print_out("{} entr{}\n", report.entries.size(), report.entries.size() == 1 ? "y" : "ies");
    if (!report.temporaries.empty())
        print_out("{} temporar{} ({} stale)\n", report.temporaries.size(), report.temporaries.size() == 1 ? "y" : "ies",
                   stale_count(report));
    flush_stdout();
    for (const CacheFinding &f : report.findings)
        print_to(stderr, "weft: warning: {}: {} (`weft cache verify` removes it)\n", f.path.string(), f.problem);
    return 0;
}

int cache_stats(const CacheOptions &o) {
    const ArtifactCache cache = open_cache(o);
    const CacheStats s = cache.stats();
    if (o.json) {
        print_out("{}\n", nlohmann::json{{"root", cache.root().string()},
                                          {"entries", s.entries},
                                          {"artifacts", s.artifacts},
                                          {"bytes", s.bytes},
                                          {"damaged", s.damaged},
                                          {"temporaries", s.temporaries},
                                          {"stale_temporaries", s.stale_temporaries},
                                          {"counters", counters_json(read_cache_counters(cache))}}
                               .dump(2, ' ', false, json_invalid_utf8));
        return 0;
    }
    print_out("root:              {}\n", cache.root().string());
    print_out("entries:           {}\n", s.entries);
    print_out("artifacts:         {}\n", s.artifacts);
    print_out("bytes:             {}\n", s.bytes);
    print_out("damaged:           {}\n", s.damaged);
    print_out("temporaries:       {}\n", s.temporaries);
    print_out("stale temporaries: {}\n", s.stale_temporaries);
    const CacheCounters c = read_cache_counters(cache);
    print_out("local hits:        {}\n", c.local_hits);
    print_out("local misses:      {}\n", c.local_misses);
    print_out("compiles:          {}\n", c.compiles);
    print_out("unit hits:         {}\n", c.unit_hits);
    print_out("unit compiles:     {}\n", c.unit_compiles);
    print_out("remote hits:       {}\n", c.remote.hits);
    print_out("remote misses:     {}\n", c.remote.misses);
    print_out("remote errors:     {}\n", c.remote.errors);
    print_out("remote rejected:   {}\n", c.remote.rejected);
    print_out("remote stores:     {}\n", c.remote.stores);
    print_out("remote skipped:    {}\n", c.remote.skipped);
    print_out("remote too large:  {}\n", c.remote.too_large);
    return 0;
}

int cache_clear(const CacheOptions &o) {
    const CacheClearResult r = open_cache(o).clear();
    if (o.json) {
        nlohmann::json failures = nlohmann::json::array();
        for (const CacheFinding &f : r.failures) failures.push_back(finding_json(f));
        print_out("{}\n", nlohmann::json{{"entries_removed", r.entries_removed},
                                          {"other_removed", r.other_removed},
                                          {"failures", failures}}
                               .dump(2, ' ', false, json_invalid_utf8));
    } else {
        print_out("removed {} entr{}", r.entries_removed, r.entries_removed == 1 ? "y" : "ies");
        if (r.other_removed) print_out(" and {} other item{}", r.other_removed, r.other_removed == 1 ? "" : "s");
        print_out("\n");
    }
    flush_stdout();
    for (const CacheFinding &f : r.failures) print_to(stderr, "weft: error: {}: {}\n", f.path.string(), f.problem);
    return r.failures.empty() ? 0 : 1;
}

int cache_verify(const CacheOptions &o) {
    const ArtifactCache cache = open_cache(o);
    CacheReport r = cache.verify(!o.dry_run);
    for (CacheFinding &f : pipeline::verify_compile_files(cache, !o.dry_run)) r.findings.push_back(std::move(f));
    const bool failed = std::any_of(r.findings.begin(), r.findings.end(),
                                    [](const CacheFinding &f) { return f.action != CacheFinding::Action::Removed; }) ||
                        std::any_of(r.temporaries.begin(), r.temporaries.end(),
                                    [](const CacheTemporary &t) { return t.stale && !t.removed; });
    const std::size_t stale = stale_count(r);
    // fsck's convention: 0 clean, 1 problems found and all repaired, 4 problems left.
    const int rc = r.findings.empty() && stale == 0 ? 0 : failed ? 4 : 1;
    if (o.json) {
        nlohmann::json out{{"root", cache.root().string()},
                           {"dry_run", o.dry_run},
                           {"entries", r.entries.size()},
                           {"artifacts_checked", r.artifacts_checked},
                           {"findings", nlohmann::json::array()},
                           {"temporaries", nlohmann::json::array()},
                           {"exit_code", rc}};
        for (const CacheFinding &f : r.findings) out["findings"].push_back(finding_json(f));
        for (const CacheTemporary &t : r.temporaries) out["temporaries"].push_back(temporary_json(t));
        print_out("{}\n", out.dump(2, ' ', false, json_invalid_utf8));
        return rc;
    }
    for (const CacheFinding &f : r.findings)
        print_out("{:<8}  {}: {}\n", action_name(f.action), f.path.string(), f.problem);
    for (const CacheTemporary &t : r.temporaries)
        if (t.stale)
            print_out("{:<8}  {}: stale temporary\n", t.removed ? "removed" : o.dry_run ? "reported" : "failed",
                       t.path.string());
    print_out("verified {} entr{}, {} artifact{}: {} problem{}, {} stale temporar{}{}\n", r.entries.size(),
               r.entries.size() == 1 ? "y" : "ies", r.artifacts_checked, r.artifacts_checked == 1 ? "" : "s",
               r.findings.size(), r.findings.size() == 1 ? "" : "s", stale, stale == 1 ? "y" : "ies",
               rc == 0 ? "" : rc == 1 ? " (repaired)" : o.dry_run ? " (dry run: nothing changed)" : " (some not repaired)");
    return rc;
}

int cache_push(const CacheOptions &o) {
    const HostOptions h = settings(o);
    const Logger logger;
    const ArtifactCache cache(h.cache_dir, &logger);
    const std::unique_ptr<RemoteCache> remote = open_remote(h, logger);
    if (!remote->writable()) throw UserError("the remote cache " + h.remote_cache.url + " is read-only here: nothing to push");
    std::size_t pushed = 0, failed = 0;
    for (const CacheEntryInfo &e : cache.list()) {
        const std::string source = read_input_file(e.directory / "module.src", std::uintmax_t(1) << 30, "module source");
        for (const std::string &t : e.targets) {
            const Target target = Target::parse(t);
            // A compile unit's object serves this cache's next compile of an
            // edited module; the module's artifact is what the remote shares.
            if (target.output == Target::Output::Unit) continue;
            const std::optional<CachedArtifact> artifact = cache.find(e.module, e.hash, target); // verified
            if (artifact && remote->store(e.module, e.hash, target, source, artifact->content))
                ++pushed;
            else
                ++failed;
        }
    }
    print_out("pushed {} artifacts to {} ({} not pushed)\n", pushed, h.remote_cache.url, failed);
    return remote_status(*remote) ? 1 : failed ? 1 : 0;
}

int cache_pull(const CacheOptions &o) {
    const HostOptions h = settings(o);
    const Logger logger;
    const ArtifactCache cache(h.cache_dir, &logger);
    const std::unique_ptr<RemoteCache> remote = open_remote(h, logger);
    std::size_t pulled = 0, present = 0, rejected = 0;
    for (const auto &[hash, target_name] : remote->list()) {
        Target target;
        try {
            target = Target::parse(target_name);
        } catch (const UserError &) {
            ++rejected;
            continue;
        }
        const std::optional<RemoteArtifact> a = remote->fetch_listed(hash, target_name);
        if (!a) {
            ++rejected;
            continue;
        }
        if (cache.find(a->module, hash, target)) {
            ++present;
            continue;
        }
        cache.store(a->module, hash, target, a->source, a->artifact);
        ++pulled;
    }
    print_out("pulled {} artifacts from {} ({} already here, {} rejected)\n", pulled, h.remote_cache.url, present,
               rejected);
    return remote_status(*remote) ? 1 : 0;
}

int cache_prebuild(const CacheOptions &o) {
    const Logger logger;
    ModuleLoadOptions load;
    load.opt_level = o.prebuild_opt_level;
    load.fast_math = o.prebuild_fast_math;
    load.native_cpu = o.prebuild_native_cpu;
    const std::filesystem::path pch = pipeline::prebuild_runtime_pch(o.prebuild_dir, load, logger);
    if (o.json) print_out("{}\n", nlohmann::json{{"pch", pch.string()}}.dump());
    else print_out("{}\n", pch.string());
    return 0;
}

} // namespace weft::cli
