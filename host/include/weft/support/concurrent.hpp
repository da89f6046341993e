// Independent pieces of work (a module's compile units, a file's modules) spread over
// the machine's cores.
#pragma once

#include <cstddef>
#include <functional>

namespace weft {

/// Runs task(i) for every i in [0, n) on up to the hardware's concurrency of
/// threads (the calling one among them) and returns when all have finished.
/// A task that throws does not stop the others; then the exception of the
/// lowest i is rethrown, so a failure reads the same whichever thread ran
/// first. When no further thread can be started, the ones that did run the rest.
void run_concurrently(std::size_t n, const std::function<void(std::size_t)> &task);

} // namespace weft
