#include "shared_objects.hpp"

#include "weft/support/error.hpp"
#include "weft/support/file.hpp"

#include <unistd.h>

namespace weft {

namespace fs = std::filesystem;

SharedObjects::SharedObjects(const Logger &logger, bool enabled)
    : logger_(logger), enabled_(enabled && backend::shared_objects_supported()) {}

SharedObjects::~SharedObjects() { wait(); }

void SharedObjects::wait() {
    std::vector<std::future<void>> links;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        links.swap(links_);
    }
    for (std::future<void> &f : links) f.wait();
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

void SharedObjects::keep(const ArtifactCache &cache, const pipeline::Artifact &artifact) {
    if (!enabled_ || artifact.target != Target::cpu() || artifact.generated_source_path.empty()) return;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (!started_.insert(artifact.module + "\n" + artifact.hash).second) return;
    }
    const ArtifactCache *where = &cache;
    std::future<void> link = std::async(std::launch::async, [this, where, module = artifact.module, hash = artifact.hash,
                                                             object = artifact.bytes,
                                                             source_path = artifact.generated_source_path] {
        // In the cache's own staging folder, under a name no other writer uses.
        const fs::path work = where->root() / "tmp" / (".tmp." + std::to_string(::getpid()) + ".so." + hash.substr(0, 16) +
                                                       "." + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
        std::error_code ec;
        try {
            if (where->find(module, hash, Target::cpu_shared_object())) return; // another process made it
            const std::string so = backend::link_shared_object(object, work);
            // The entry's source: needed only if the entry must be written again.
            const std::string source = read_input_file(source_path, std::uint64_t(256) << 20, "module source");
            where->store(module, hash, Target::cpu_shared_object(), source, so);
        } catch (const std::exception &e) {
            // Loads stay correct without it: they link the object.
            logger_.log(LogLevel::Info, "cache",
                        "module '" + module + "' " + hash.substr(0, 8) + ": not kept as a shared object: " + e.what());
        }
        fs::remove_all(work, ec);
    });
    const std::lock_guard<std::mutex> lock(mutex_);
    links_.push_back(std::move(link));
}

} // namespace weft
