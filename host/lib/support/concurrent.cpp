#include "weft/support/concurrent.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace weft {

void run_concurrently(std::size_t n, const std::function<void(std::size_t)> &task) {
    std::vector<std::exception_ptr> failures(n);
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i; (i = next.fetch_add(1)) < n;) {
            try {
                task(i);
            } catch (...) {
                failures[i] = std::current_exception();
            }
        }
    };
    const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::max<std::size_t>(n, 1));
    std::vector<std::thread> helpers;
    helpers.reserve(threads - 1);
    try {
        for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
    } catch (...) {
        // No more threads to be had (std::system_error, or no memory for one).
    }
    work();
    for (std::thread &t : helpers) t.join();
    for (const std::exception_ptr &f : failures)
        if (f) std::rethrow_exception(f);
}

} // namespace weft
