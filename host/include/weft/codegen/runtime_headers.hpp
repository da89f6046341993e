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
/// processes do it at once) and returns that include directory. A copy
/// already there is compared with the embedded headers on every call, and
/// rewritten when any file differs, is missing, or was added.
std::filesystem::path materialize_runtime_headers(const std::filesystem::path &root);

/// Why the copy in `dir` (`root`/<digest16>) is not exactly the embedded
/// headers, naming the file; "" when it is.
std::string runtime_headers_problem(const std::filesystem::path &dir);

/// Replaces `root`/<digest16> with a fresh copy of the embedded headers; returns it.
std::filesystem::path rewrite_runtime_headers(const std::filesystem::path &root);

} // namespace weft::codegen
