// The two kinds of DeviceCode and what their launches share (private to the
// modules layer: loading.cpp picks one by device).
#pragma once

#include "loaded_module.hpp"
#include "weft/runtime/launch.hpp"

#include <memory>
#include <string>

namespace weft::modules {

/// `args` checked against `k`'s parameters and packed (argument mismatches
/// are LaunchErrors on every device).
PackedArgs pack_launch_args(const Kernel::Impl &k, const std::vector<KernelArg> &args);

/// CPU code of `artifact` (cpu_code.cpp); sets `from_shared_object` when it
/// was mapped from the shared object the cache keeps for it.
std::unique_ptr<DeviceCode> load_cpu_code(const pipeline::Artifact &artifact, const CodeContext &context,
                                          bool &from_shared_object);

/// The CUBIN or PTX of `artifact` loaded in the primary context of CUDA
/// device `ordinal` (cuda_code.cpp). `origin` names the source in messages.
std::unique_ptr<DeviceCode> load_cuda_code(const pipeline::Artifact &artifact, int ordinal, const CodeContext &context,
                                           const std::string &origin);

} // namespace weft::modules
