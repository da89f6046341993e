#pragma once

namespace weft {

/// weft's own version; part of every module hash.
inline constexpr const char *version_string = "0.1.0";

/// The plugin ABI versions this host speaks (inclusive).
inline constexpr unsigned min_abi_version = 1;
inline constexpr unsigned max_abi_version = 1;

} // namespace weft
