// Warm loads without the front end: the content key, the record stored under
// it, and the artifact it names. The record is a shortcut to the full module
// hash, never an identity of its own: the artifact is found by that hash and
// verified as on every cache hit, and any doubt about the record (damaged,
// another module's, options that resolve differently now) sends the load
// through the front end, which writes a fresh record. The record's text form
// is warm_record.cpp's.
#include "weft/pipeline/pipeline.hpp"

#include "weft/backend/cpu_compiler.hpp"
#include "weft/backend/cuda.hpp"
#include "weft/support/build_identity.hpp"
#include "weft/support/error.hpp"
#include "weft/support/sha256.hpp"
#include "weft/support/version.hpp"
#include "compile_options.hpp"
#include "load_fields.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace weft::pipeline {

namespace {

/// The toolchain identity of a CPU compile with these flags (memoized by the backend).
std::string cpu_toolchain(const ModuleLoadOptions &load) { return backend::toolchain_identity(cpu_flags(load)); }

} // namespace

std::string Pipeline::content_key(const ModuleSource &source, const Target &target, const ModuleLoadOptions &load,
                                  Pass pass) const {
    const std::string &build = build_identity();
    if (build.empty()) return {};
    Sha256 h;
    h.field("weft.content-key.v2");
    // The build ID stands for everything compiled into weft: the front end,
    // codegen, core builtins and the embedded runtime headers (hashing those
    // took a millisecond, the whole budget of a warm load).
    h.field(version_string).field(build);
    // CUDA: NVRTC's version; its flags follow from the load options below.
    // Without NVRTC no CUDA module loads: no key.
    std::string toolchain;
    try {
        toolchain = target.kind == Target::Kind::Cpu ? cpu_toolchain(load) : "nvrtc " + backend::nvrtc_version();
    } catch (const backend::BackendError &) {
        return {};
    }
    h.field(toolchain);
    h.field(target.str());
    h.field(registry_.contract_digest());
    h.field(source.name).field(source.text);
    // Every ModuleLoadOptions field that can change what the load builds,
    // from the table the module hash reads (load_fields.hpp): the options
    // written here by hand once missed one, and a stale record was a hit.
    h.field("options");
    for (const LoadField &f : load_fields())
        if (f.effect == LoadField::Effect::Binary || f.effect == LoadField::Effect::Key) h.field(f.name).field(f.text(load));
    h.field("pass").field(pass == Pass::Backward ? "backward" : "forward");
    if (load.plugins) {
        h.field("plugins").field(std::to_string(load.plugins->size()));
        for (const std::string &p : *load.plugins) h.field(p);
    } else {
        h.field("referenced plugins");
    }
    return h.hex();
}

std::optional<WarmRecord> Pipeline::find_warm(const std::string &key, const std::string &module,
                                              const std::vector<Target> &targets) const {
    std::optional<std::string> text = cache_.find_key(key);
    if (!text) return std::nullopt;
    try {
        WarmRecord r = WarmRecord::parse(*text);
        if (r.module != module || std::find(targets.begin(), targets.end(), r.target) == targets.end()) {
            logger_.log(LogLevel::Info, "cache", "content-key record " + key.substr(0, 16) + " is for module '" + r.module +
                                                     "' " + r.target.str() + ", not '" + module + "' " +
                                                     targets.front().str() + ": a miss");
            return std::nullopt;
        }
        return r;
    } catch (const std::exception &e) {
        // Whatever a damaged record makes the rebuilding of its types throw is a miss too.
        logger_.log(LogLevel::Info, "cache", "content-key record " + key.substr(0, 16) + ": " + e.what() + ": a miss");
        return std::nullopt;
    }
}

void Pipeline::remember(const std::string &key, const WarmRecord &record) const {
    if (key.empty()) return;
    try {
        cache_.store_key(key, record.serialize());
    } catch (const UserError &e) {
        uncached(e.what());
    }
}

std::optional<std::vector<Artifact>> Pipeline::realize_warm(const WarmRecord &record) const {
    std::vector<Artifact> out;
    for (const WarmRecord::Compiled &c : record.modules) {
        std::optional<CachedArtifact> hit = cache_.find(c.module, c.hash, record.target);
        if (!hit) return std::nullopt;
        Artifact a;
        a.module = c.module;
        a.target = record.target;
        a.hash = c.hash;
        a.kernels = c.kernels;
        a.bytes = std::move(hit->content);
        a.path = hit->path;
        a.from_cache = true;
        a.generated_source_path = cache_.entry_directory(c.module, c.hash) / "module.src";
        out.push_back(std::move(a));
    }
    local_hits_ += out.size();
    warm_hits_ += out.size();
    return out;
}

} // namespace weft::pipeline
