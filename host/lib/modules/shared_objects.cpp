#include "shared_objects.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>

namespace weft {

namespace fs = std::filesystem;

SharedObjects::SharedObjects(const Logger &logger, bool enabled)
    : logger_(logger), enabled_(enabled && backend::shared_objects_supported()) {}

SharedObjects::~SharedObjects() { wait(); }

void SharedObjects::wait() {
    std::vector<std::future<void>> workers;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        workers.swap(workers_);
    }
    for (std::future<void> &f : workers) f.wait();
}

std::unique_ptr<backend::JitModule> SharedObjects::load(const ArtifactCache &cache, const pipeline::Artifact &artifact,
                                                        const std::string &name) const {
    if (!enabled_ || artifact.target != Target::cpu()) return nullptr;
    // find() checks the bytes against their recorded digest (a damaged one
    // is reported and removed, and made again below).
    const std::optional<CachedArtifact> kept = cache.find(artifact.module, artifact.hash, Target::cpu_shared_object());
    if (!kept) return nullptr;
    try {
        return backend::load_shared_object(kept->content, name);
    } catch (const backend::BackendError &e) {
        logger_.log(LogLevel::Info, "cache", std::string(e.what()) + "; linking its object instead");
        return nullptr;
    }
}

void SharedObjects::keep(const ArtifactCache &cache, const pipeline::Artifact &artifact) noexcept {
    if (!enabled_ || artifact.target != Target::cpu() || artifact.generated_source_path.empty()) return;
    const std::string key = artifact.module + "\n" + artifact.hash;
    try {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!started_.insert(key).second) return;
        jobs_.push_back({&cache, artifact.module, artifact.hash, artifact.bytes, artifact.generated_source_path});
        if (draining_) return;
        // Runs that have ended need no waiting for.
        workers_.erase(std::remove_if(workers_.begin(), workers_.end(),
                                      [](const std::future<void> &f) {
                                          return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
                                      }),
                       workers_.end());
        // Room first: once the worker runs, failing to keep its future would
        // wait for it here, under the lock it needs.
        if (workers_.size() == workers_.capacity()) workers_.reserve(2 * workers_.size() + 1);
        workers_.push_back(std::async(std::launch::async, [this] { drain(); }));
        draining_ = true;
    } catch (const std::exception &e) {
        // No thread to spare (or no memory): the module stays loaded, linked
        // into the JIT, and a later load may try again.
        const std::lock_guard<std::mutex> lock(mutex_);
        started_.erase(key);
        if (!draining_) jobs_.clear();
        logger_.log(LogLevel::Info, "cache", "module '" + artifact.module + "': not kept as a shared object: " + e.what());
    }
}

void SharedObjects::drain() {
    for (;;) {
        Job job;
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (jobs_.empty()) {
                draining_ = false;
                return;
            }
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        run(job);
    }
}

void SharedObjects::run(const Job &job) const {
    // In the cache's own staging folder, under a name no other writer uses.
    const fs::path work = job.cache->root() / "tmp" /
                          (".tmp." + std::to_string(::getpid()) + ".so." + job.hash.substr(0, 16) + "." +
                           std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::error_code ec;
    try {
        if (job.cache->find(job.module, job.hash, Target::cpu_shared_object())) return; // another process made it
        const std::string so = backend::link_shared_object(job.object, work);
        // The entry's source: needed only if the entry must be written again.
        const std::string source = read_input_file(job.source_path, std::uint64_t(256) << 20, "module source");
        job.cache->store(job.module, job.hash, Target::cpu_shared_object(), source, so);
    } catch (const std::exception &e) {
        // Loads stay correct without it: they link the object.
        logger_.log(LogLevel::Info, "cache",
                    "module '" + job.module + "' " + job.hash.substr(0, 8) + ": not kept as a shared object: " + e.what());
    }
    fs::remove_all(work, ec);
}

} // namespace weft
