// `weft cache path|list|stats|clear`.
#include "commands.hpp"

#include "weft/build/cache.hpp"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace weft::cli {

namespace {
ArtifactCache open_cache(const CacheOptions &o) { return ArtifactCache(o.cache_dir); }
} // namespace

int cache_path(const CacheOptions &o) {
    fmt::print("{}\n", open_cache(o).root().string());
    return 0;
}

int cache_list(const CacheOptions &o) {
    const auto entries = open_cache(o).list();
    if (o.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const CacheEntryInfo &e : entries)
            out.push_back({{"module", e.module}, {"hash", e.hash}, {"targets", e.targets}, {"bytes", e.bytes},
                           {"directory", e.directory.string()}});
        fmt::print("{}\n", out.dump(2));
        return 0;
    }
    for (const CacheEntryInfo &e : entries) {
        std::string targets;
        for (const std::string &t : e.targets) targets += (targets.empty() ? "" : ",") + t;
        fmt::print("{}  {}  {:>10} B  {}\n", e.module, e.hash, e.bytes, targets.empty() ? "(no artifacts)" : targets);
    }
    fmt::print("{} entr{}\n", entries.size(), entries.size() == 1 ? "y" : "ies");
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
                                          {"stale_temporaries", s.stale_temporaries}}
                               .dump(2));
        return 0;
    }
    fmt::print("root:              {}\n", cache.root().string());
    fmt::print("entries:           {}\n", s.entries);
    fmt::print("artifacts:         {}\n", s.artifacts);
    fmt::print("bytes:             {}\n", s.bytes);
    fmt::print("stale temporaries: {}\n", s.stale_temporaries);
    return 0;
}

int cache_clear(const CacheOptions &o) {
    const std::size_t n = open_cache(o).clear();
    fmt::print("removed {} entr{}\n", n, n == 1 ? "y" : "ies");
    return 0;
}

} // namespace weft::cli
