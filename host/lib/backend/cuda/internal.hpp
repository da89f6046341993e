// Internals of weft_backend_cuda shared by its sources.
#pragma once

#include "weft/backend/cuda.hpp"

#include <cstddef>
#include <string_view>

namespace weft::backend::cuda {

inline constexpr const char *no_toolkit_message = "weft was built without CUDA (no CUDA toolkit at configure time)";

// At most this many errors are listed in a CudaCompileError's message.
inline constexpr std::size_t max_listed_errors = 20;

// The CudaCompileError for a failed compile's log.
CudaCompileError make_compile_error(std::string_view log, std::string_view source_name);

} // namespace weft::backend::cuda
