// The compiler options of a generated module, derived in one place for the
// hash (toolchain identity) and for the compile itself.
#pragma once

#include "weft/backend/cpu_compiler.hpp"
#include "weft/backend/cuda.hpp"
#include "weft/cache/cache.hpp"
#include "weft/pipeline/pipeline.hpp"

#include <filesystem>

namespace weft::pipeline {

/// weft's runtime headers, written once under the cache root.
std::filesystem::path runtime_header_dir(const ArtifactCache &cache);

/// The CPU compiler flags `load` asks for (opt level, fast math, native CPU):
/// what the toolchain identity and the runtime PCH depend on.
backend::CpuCompileOptions cpu_flags(const ModuleLoadOptions &load);

/// Flags, include dirs and the source-file define; no PCH, no source name.
backend::CpuCompileOptions cpu_options(const GeneratedModule &g, const std::filesystem::path &runtime_headers);
backend::CudaCompileOptions cuda_options(const GeneratedModule &g, const std::filesystem::path &runtime_headers);

} // namespace weft::pipeline
