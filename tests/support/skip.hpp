// A test case that cannot run here (no CUDA device, no driver, no libEGL)
// reports itself SKIPPED to CTest instead of passing: it prints
// "skipped: <reason>" and ends the process with 77, the SKIP_RETURN_CODE the
// test directories set. CTest runs each case in its own process
// (catch_discover_tests), so a skip ends only that case; a binary run by
// hand with every case stops at the first skip (run one case by name).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace weft::test {

inline constexpr int skip_return_code = 77;

[[noreturn]] inline void skip(const std::string &reason) {
    std::printf("skipped: %s\n", reason.c_str());
    std::fflush(stdout);
    std::fflush(stderr);
    std::_Exit(skip_return_code);
}

} // namespace weft::test
