// From pipeline artifacts to loaded modules, on every device: which targets a
// device runs, the code for an artifact, one kernel per generated entry.
#include "device_code.hpp"

#include "weft/backend/cuda.hpp"
#include "weft/runtime/cuda.hpp"
#include "weft/support/error.hpp"

#include <algorithm>
#include <cstdio>

namespace weft {

std::shared_ptr<ThreadPool> Kernel::Impl::live_pool() const {
    std::shared_ptr<ThreadPool> p = pool.lock();
    if (!p)
        throw LaunchError("kernel '" + name() + "' (module '" + owner->name +
                          "'): the Host it was loaded in has been destroyed");
    return p;
}

namespace modules {

using backend::CudaDriverError;

PackedArgs pack_launch_args(const Kernel::Impl &k, const std::vector<KernelArg> &args) {
    try {
        return pack_args(k.name(), k.entry.params, args, k.device);
    } catch (const LaunchError &) {
        throw;
    } catch (const UserError &e) {
        throw LaunchError(e.what()); // argument mismatches are launch errors on every device
    }
}

namespace {
/// Marks the instances of generic kernels: a launch of one of them picks by argument types.
void mark_overloads(std::vector<std::shared_ptr<Kernel::Impl>> &kernels) {
    for (const auto &k : kernels)
        k->overloaded = std::count_if(kernels.begin(), kernels.end(), [&](const std::shared_ptr<Kernel::Impl> &x) {
                            return x->name() == k->name();
                        }) > 1;
}
} // namespace

void require_driver_for(int ordinal, bool ptx, const std::string &context) {
    if (const std::string mismatch = cuda_driver_mismatch(ptx); !mismatch.empty())
        throw backend::BackendError("cuda:" + std::to_string(ordinal) + ": " + context + mismatch);
}

std::shared_ptr<CompiledModule::Impl> load_artifact(const pipeline::Artifact &artifact, Device device,
                                                    const CodeContext &context) {
    auto impl = std::make_shared<CompiledModule::Impl>();
    impl->name = artifact.module;
    impl->hash = artifact.hash;
    impl->device = device;
    impl->target = artifact.target;
    impl->from_cache = artifact.from_cache;
    impl->artifact_path = artifact.path;
    impl->generated_source_path = artifact.generated_source_path;
    if (device.is_cpu()) {
        impl->code = load_cpu_code(artifact, context, impl->from_shared_object);
    } else {
        if (artifact.target.output == Target::Output::Ptx)
            require_driver_for(device.ordinal, true, "cannot load the PTX of module '" + artifact.module + "': ");
        impl->code = load_cuda_code(artifact, device.ordinal, context,
                                    context.origin.empty() ? "module '" + artifact.module + "'" : context.origin);
    }
    for (std::size_t i = 0; i < artifact.kernels.size(); ++i) {
        auto k = std::make_shared<Kernel::Impl>();
        k->entry = artifact.kernels[i];
        k->index = i;
        k->owner = impl.get();
        k->pool = context.pool;
        k->device = device;
        impl->kernels.push_back(std::move(k));
    }
    mark_overloads(impl->kernels);
    return impl;
}

std::vector<Target> targets_for(Device device) {
    if (device.is_cpu()) return {Target::cpu()};
    const int ordinal = device.ordinal;
    const int cc = cuda_compute_capability(ordinal); // checks the driver and the device
    require_driver_for(ordinal, false);
    const std::vector<int> archs = backend::nvrtc_supported_archs();
    int ptx_arch = 0;
    for (int a : archs)
        if (a <= cc) ptx_arch = a;
    std::vector<Target> targets;
    if (std::find(archs.begin(), archs.end(), cc) != archs.end()) targets.push_back(Target::cuda_cubin(cc));
    if (ptx_arch) targets.push_back(Target::cuda_ptx(ptx_arch));
    if (targets.empty())
        throw backend::BackendError("cuda:" + std::to_string(ordinal) + " (sm_" + std::to_string(cc) + "): " +
                                    backend::nvrtc_version() + " has no architecture up to this one to compile for");
    return targets;
}

std::shared_ptr<CompiledModule::Impl> load_first(const pipeline::Pipeline &pipeline,
                                                 const std::vector<pipeline::GeneratedModule> &candidates, Device device,
                                                 const CodeContext &context, const pipeline::Artifact *first) {
    std::string refused; // why the earlier candidates did not load
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const pipeline::GeneratedModule &g = candidates[i];
        try {
            if (i == 0 && first) return load_artifact(*first, device, context);
            return load_artifact(pipeline.realize(g), device, context);
        } catch (const CudaDriverError &e) {
            refused += std::string(refused.empty() ? "" : "; ") + "the " + g.target.str() + " did not load (" +
                       e.what() + ")";
            if (i + 1 == candidates.size())
                throw CudaDriverError(e.call(), e.result(),
                                      "module '" + g.module + "' on " + device.name() + ": " + refused);
        } catch (const backend::BackendError &e) {
            // A PTX the driver is too old for, after a refused CUBIN: say both.
            if (refused.empty()) throw;
            throw backend::BackendError("module '" + g.module + "' on " + device.name() + ": " + refused + "; " +
                                        e.what());
        }
    }
    throw InternalError("load_first: no target to load module on " + device.name());
}

std::shared_ptr<CompiledModule::Impl> combine(std::vector<std::shared_ptr<CompiledModule::Impl>> modules,
                                              const pipeline::ModuleSource &source) {
    if (modules.size() == 1 && modules.front()->name == source.name) return std::move(modules.front());
    auto impl = std::make_shared<CompiledModule::Impl>();
    impl->name = source.name;
    std::vector<std::string> hashes;
    impl->from_cache = true;
    impl->from_shared_object = true;
    for (const auto &m : modules) {
        hashes.push_back(m->hash);
        impl->from_cache = impl->from_cache && m->from_cache;
        impl->from_shared_object = impl->from_shared_object && m->from_shared_object;
        impl->load_ms = std::max(impl->load_ms, m->load_ms);
        impl->kernels.insert(impl->kernels.end(), m->kernels.begin(), m->kernels.end());
    }
    impl->hash = pipeline::combined_hash(hashes);
    impl->source_path = source.origin;
    impl->artifact_path = modules.front()->artifact_path;
    impl->generated_source_path = modules.front()->generated_source_path;
    impl->device = modules.front()->device;
    impl->target = modules.front()->target;
    impl->modules = std::move(modules);
    return impl;
}

std::vector<std::shared_ptr<CompiledModule::Impl>> parts_of(const std::shared_ptr<CompiledModule::Impl> &loaded) {
    if (loaded->modules.empty()) return {loaded};
    return loaded->modules;
}

void report_load(const CompiledModule::Impl &m, const char *what) {
    char line[512];
    std::snprintf(line, sizeof line, "Module %s %s %sload on device '%s' took %.2f ms (%s)\n", m.name.c_str(),
                  m.hash.substr(0, 8).c_str(), what, m.device.name().c_str(), m.load_ms,
                  m.from_shared_object ? "cached, shared object" : m.from_cache ? "cached" : "compiled");
    std::fputs(line, stderr);
}

} // namespace modules
} // namespace weft
