// run_concurrently: every task runs once, whatever fails, and the failure
// reported is the lowest-numbered task's.
#include "weft/support/concurrent.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

using weft::run_concurrently;

TEST_CASE("run_concurrently runs each task once and rethrows the lowest-numbered failure") {
    std::vector<std::atomic<int>> runs(37);
    run_concurrently(runs.size(), [&](std::size_t i) { ++runs[i]; });
    for (const std::atomic<int> &r : runs) CHECK(r.load() == 1);

    std::vector<std::atomic<int>> again(9);
    try {
        run_concurrently(again.size(), [&](std::size_t i) {
            ++again[i];
            if (i == 7 || i == 3) throw std::runtime_error("task " + std::to_string(i));
        });
        FAIL("no exception");
    } catch (const std::runtime_error &e) {
        CHECK(std::string(e.what()) == "task 3");
    }
    for (const std::atomic<int> &r : again) CHECK(r.load() == 1); // the failures stopped no other task

    run_concurrently(0, [](std::size_t) { FAIL("a task of none ran"); });
}
