// CUDA modules built by the pipeline and kept by a Host: the CUBIN for a
// device's architecture (else PTX), or an AOT directory's artifact. Most
// applications need none of this: Host::load_module(file, {Device::cuda(n)})
// gives a CompiledModule whose kernels launch like CPU ones.
#pragma once

#include "weft/cuda/cuda_module.hpp"
#include "weft/host/compiled_module.hpp"
#include "weft/pipeline/load_options.hpp"

#include <filesystem>

namespace weft {

class Host;

/// Compiles `file` for CUDA device `device` with host.compile_aot (a CUBIN for
/// the device's compute capability, from the artifact cache when there) and
/// loads it in the device's primary context; when the CUBIN cannot be loaded,
/// or NVRTC cannot compile for this architecture, PTX (which needs a driver at
/// least as new as NVRTC). The module is kept with the host's CUDA modules
/// (see release_cuda_modules) and the reference stays valid until then, or
/// until Host::unload_module of its name. Loading an unchanged module again
/// (same name, device and hash) returns the kept one; a changed one is kept
/// beside it. The same pipeline run as Host::load_module: the front end and
/// codegen run once per call, and the module's name and hash do not depend
/// on the path of `file`.
/// Throws BackendError "CUDA driver not available: ..." without a driver.
CudaModule &load_cuda_module(Host &host, const std::filesystem::path &file, int device = 0,
                             ModuleLoadOptions options = {});

/// Loads module `file` onto CUDA device `device` from an AOT directory that
/// Host::compile_aot (or `weft build --output-dir`) filled: the CUBIN for the
/// device's compute capability, else the newest PTX not newer than it (see
/// find_aot_artifact). Nothing compiles; `file` (with the host's plugins
/// loaded) gives the kernel signatures, and an artifact built from another
/// version of it is rejected by name. Kept by the host like load_cuda_module.
/// Throws UserError listing every path tried when no artifact fits, and
/// BackendError "CUDA driver not available: ..." without a driver.
CudaModule &load_aot(Host &host, const std::filesystem::path &file, const std::filesystem::path &dir, int device = 0);

/// Unloads every CUDA module the host keeps now (the host also unloads them
/// when destroyed, before its CPU modules and plugins).
void release_cuda_modules(Host &host);

} // namespace weft
