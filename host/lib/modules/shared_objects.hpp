// CPU modules kept as shared objects in the artifact cache (target cpu-so),
// beside their objects: a later process maps one with dlopen in 0.07 ms
// instead of creating the JIT and linking the object (0.7-1 ms in a new
// process). The object stays the module's artifact and identity; the shared
// object is derived from it, checked like every artifact, and only ever a
// shortcut: when it is missing, damaged or does not load, the object is
// linked as before. A module loaded from the cache (one that is reused) then
// gets a shared object made from it in the background; one just compiled
// does not.
#pragma once

#include "weft/backend/cpu_compiler.hpp"
#include "weft/cache/cache.hpp"
#include "weft/pipeline/pipeline.hpp"
#include "weft/support/log.hpp"

#include <deque>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace weft {

class SharedObjects {
public:
    SharedObjects(const Logger &logger, bool enabled);
    /// Waits for the links in progress: their results are the cache's.
    ~SharedObjects();
    SharedObjects(const SharedObjects &) = delete;
    SharedObjects &operator=(const SharedObjects &) = delete;

    /// The artifact's code mapped from the shared object the cache keeps for
    /// it, or null: none, or it does not load (logged).
    std::unique_ptr<backend::JitModule> load(const ArtifactCache &cache, const pipeline::Artifact &artifact,
                                             const std::string &name) const;
    /// Links the artifact into a shared object in the background and keeps
    /// it in `cache`, unless one is kept or being made. One link at a time
    /// per host, on one thread: a process loading many modules runs one
    /// linker, not one each. Never throws for what is only a speed-up.
    void keep(const ArtifactCache &cache, const pipeline::Artifact &artifact) noexcept;
    /// Waits for every link queued so far.
    void wait();

private:
    struct Job {
        const ArtifactCache *cache;
        std::string module, hash, object;
        std::filesystem::path source_path;
    };
    void run(const Job &job) const;
    void drain();

    const Logger &logger_;
    const bool enabled_;
    std::mutex mutex_;
    std::set<std::string> started_; // module + hash: one link per module and host
    std::deque<Job> jobs_;
    bool draining_ = false;               // a worker is taking jobs_
    std::vector<std::future<void>> workers_; // each run of the worker, waited for by wait()
};

} // namespace weft
