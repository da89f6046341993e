// CUDA modules built by the pipeline and kept by a Host, as the CUDA runtime
// layer's CudaModule (private to libweft, its tests and benches: applications
// load with Host::load_module or Host::load_aot and a CUDA device, and get a
// CompiledModule whose kernels launch like CPU ones).
#pragma once

#include "cuda/cuda_module.hpp"
#include "weft/host/compiled_module.hpp"
#include "weft/pipeline/load_options.hpp"

#include <filesystem>
#include <memory>

namespace weft {

class Host;
namespace pipeline {
struct ModuleSource;
}

/// Compiles `file` for CUDA device `device` (a CUBIN for the device's compute
/// capability, from the artifact cache when there) and loads it in the
/// device's primary context; when the CUBIN cannot be loaded, or NVRTC
/// cannot compile for this architecture, PTX. Kept with the host's CUDA
/// modules (see release_cuda_modules): the reference stays valid until then,
/// or until Host::unload_module of its name. Loading an unchanged module
/// again returns the kept one. Throws BackendError "CUDA driver not
/// available: ..." without a driver.
CudaModule &load_cuda_module(Host &host, const std::filesystem::path &file, int device = 0,
                             ModuleLoadOptions options = {});

/// Unloads every CUDA module the host keeps now (the host also unloads them
/// when destroyed, before its CPU modules and plugins).
void release_cuda_modules(Host &host);

namespace detail {
/// The AOT artifact of `source` in `dir` for CUDA device `device` (find_aot_artifact), loaded and kept;
/// `options` as the build had them (the kernel signatures and the hash follow from them).
std::shared_ptr<CudaModule> load_cuda_aot(Host &host, const pipeline::ModuleSource &source,
                                          const std::filesystem::path &dir, int device, const ModuleLoadOptions &options);
} // namespace detail

} // namespace weft
