// `weft cache path|list|stats|clear|verify`.
#include "commands.hpp"

#include "weft/build/cache.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace weft::cli {

namespace {

ArtifactCache open_cache(const CacheOptions &o) { return ArtifactCache(o.cache_dir); }

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

/// Diagnostics follow the report, so a reader of both streams sees them after it.
void flush_stdout() { std::fflush(stdout); }

} // namespace

int cache_path(const CacheOptions &o) {
    fmt::print("{}\n", open_cache(o).root().string());
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
        fmt::print("{}\n", out.dump(2, ' ', false, json_invalid_utf8));
        return 0;
    }
    for (const CacheEntryInfo &e : report.entries) {
        std::string targets;
        for (const std::string &t : e.targets) targets += (targets.empty() ? "" : ",") + t;
        fmt::print("{}  {}  {:>10} B  {}\n", e.module, e.hash, e.bytes, targets.empty() ? "(no artifacts)" : targets);
    }
    fmt::print("{} entr{}\n", report.entries.size(), report.entries.size() == 1 ? "y" : "ies");
    if (!report.temporaries.empty())
        fmt::print("{} temporar{} ({} stale)\n", report.temporaries.size(), report.temporaries.size() == 1 ? "y" : "ies",
                   stale_count(report));
    flush_stdout();
    for (const CacheFinding &f : report.findings)
        fmt::print(stderr, "weft: warning: {}: {} (`weft cache verify` removes it)\n", f.path.string(), f.problem);
    return 0;
}

int cache_stats(const CacheOptions &o) {
    const ArtifactCache cache = open_cache(o);
    const CacheStats s = cache.stats();
    if (o.json) {
        fmt::print("{}\n", nlohmann::json{{"root", cache.root().string()},
                                          {"entries", s.entries},
                                          {"artifacts", s.artifacts},
                                          {"bytes", s.bytes},
                                          {"damaged", s.damaged},
                                          {"temporaries", s.temporaries},
                                          {"stale_temporaries", s.stale_temporaries}}
                               .dump(2, ' ', false, json_invalid_utf8));
        return 0;
    }
    fmt::print("root:              {}\n", cache.root().string());
    fmt::print("entries:           {}\n", s.entries);
    fmt::print("artifacts:         {}\n", s.artifacts);
    fmt::print("bytes:             {}\n", s.bytes);
    fmt::print("damaged:           {}\n", s.damaged);
    fmt::print("temporaries:       {}\n", s.temporaries);
    fmt::print("stale temporaries: {}\n", s.stale_temporaries);
    return 0;
}

int cache_clear(const CacheOptions &o) {
    const CacheClearResult r = open_cache(o).clear();
    if (o.json) {
        nlohmann::json failures = nlohmann::json::array();
        for (const CacheFinding &f : r.failures) failures.push_back(finding_json(f));
        fmt::print("{}\n", nlohmann::json{{"entries_removed", r.entries_removed},
                                          {"other_removed", r.other_removed},
                                          {"failures", failures}}
                               .dump(2, ' ', false, json_invalid_utf8));
    } else {
        fmt::print("removed {} entr{}", r.entries_removed, r.entries_removed == 1 ? "y" : "ies");
        if (r.other_removed) fmt::print(" and {} other item{}", r.other_removed, r.other_removed == 1 ? "" : "s");
        fmt::print("\n");
    }
    flush_stdout();
    for (const CacheFinding &f : r.failures) fmt::print(stderr, "weft: error: {}: {}\n", f.path.string(), f.problem);
    return r.failures.empty() ? 0 : 1;
}

int cache_verify(const CacheOptions &o) {
    const ArtifactCache cache = open_cache(o);
    const CacheReport r = cache.verify(!o.dry_run);
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
        fmt::print("{}\n", out.dump(2, ' ', false, json_invalid_utf8));
        return rc;
    }
    for (const CacheFinding &f : r.findings)
        fmt::print("{:<8}  {}: {}\n", action_name(f.action), f.path.string(), f.problem);
    for (const CacheTemporary &t : r.temporaries)
        if (t.stale)
            fmt::print("{:<8}  {}: stale temporary\n", t.removed ? "removed" : o.dry_run ? "reported" : "failed",
                       t.path.string());
    fmt::print("verified {} entr{}, {} artifact{}: {} problem{}, {} stale temporar{}{}\n", r.entries.size(),
               r.entries.size() == 1 ? "y" : "ies", r.artifacts_checked, r.artifacts_checked == 1 ? "" : "s",
               r.findings.size(), r.findings.size() == 1 ? "" : "s", stale, stale == 1 ? "y" : "ies",
               rc == 0 ? "" : rc == 1 ? " (repaired)" : o.dry_run ? " (dry run: nothing changed)" : " (some not repaired)");
    return rc;
}

} // namespace weft::cli
