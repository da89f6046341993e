// What identifies the weft code running in this process, beyond its version
// string: the GNU build ID of the binary (executable or shared library) that
// holds libweft. Development builds keep version_string while the front end,
// codegen and core builtins change; the build ID changes with every link of
// different code, so a cache key that stands in for running that code (the
// content key, see weft/pipeline/warm_key.hpp) includes it.
#pragma once

#include <string>

namespace weft {

/// The lowercase hex GNU build ID of the image this function's code is
/// linked into, read once from the loaded image's notes (no file is read).
/// Empty when the image has none (linked without --build-id): callers then
/// must not rely on it.
const std::string &build_identity();

} // namespace weft
