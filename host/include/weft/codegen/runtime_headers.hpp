// weft's runtime headers (weft/rt/*.h) as compiled into libweft: generated
// code is compiled against exactly these, and their digest enters every
// module hash.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace weft::codegen {

struct EmbeddedHeader {
    const char *path; // relative to an include directory: "weft/rt/runtime.h"
    const char *text;
};

const std::vector<EmbeddedHeader> &runtime_headers();

/// SHA-256 (hex) over every header's path and text.
const std::string &runtime_header_digest();

/// Writes the headers under `root`/<digest16>/ (once; safe when several
/// processes do it at once) and returns that include directory.
std::filesystem::path materialize_runtime_headers(const std::filesystem::path &root);

} // namespace weft::codegen
