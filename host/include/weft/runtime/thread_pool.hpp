// weft::ThreadPool: persistent worker threads for CPU kernel launches.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace weft {

/// Runs parallel_for over persistent worker threads.
///
/// A pool of N threads has N - 1 workers; the thread calling parallel_for is
/// the N-th and works on its own call too. N = 1 runs everything inline on
/// the caller. parallel_for may be called from several threads at once (also
/// from inside a body): every caller can finish its own range alone, so
/// nothing waits on a busy pool.
class ThreadPool {
public:
    /// Ranges shorter than this run inline, as one call, on the caller.
    static constexpr std::int64_t default_inline_threshold = 4096;

    /// std::thread::hardware_concurrency() threads (1 where that is unknown).
    ThreadPool();
    /// `threads` threads (0: as the default constructor; 1: inline).
    explicit ThreadPool(unsigned threads, std::int64_t inline_threshold = default_inline_threshold);
    ~ThreadPool();
    ThreadPool(const ThreadPool &) = delete;
    ThreadPool &operator=(const ThreadPool &) = delete;

    /// The threads a parallel_for uses: the workers plus the caller.
    unsigned threads() const { return threads_; }
    std::int64_t inline_threshold() const { return inline_threshold_; }

    /// Calls body(begin, end) over contiguous chunks that together cover
    /// [0, total) exactly once, and returns when all have finished. A range
    /// shorter than inline_threshold() (or any range with threads() == 1) is
    /// one call on the caller; otherwise it is split into at most 4 * threads()
    /// chunks, in order. When a chunk throws, chunks not yet started are
    /// skipped, and the first exception is rethrown here after the running
    /// ones finish. total <= 0 calls nothing.
    void parallel_for(std::int64_t total, const std::function<void(std::int64_t begin, std::int64_t end)> &body);
    /// The same with ranges shorter than `inline_below` (not inline_threshold())
    /// run inline: a launch whose threads each do much work splits short grids.
    void parallel_for(std::int64_t total, std::int64_t inline_below,
                      const std::function<void(std::int64_t begin, std::int64_t end)> &body);

private:
    struct Job;
    void worker_loop();
    void start_workers(); // under mutex_
    static void run_chunk(Job &job, std::int64_t chunk);

    unsigned threads_ = 1;
    std::int64_t inline_threshold_ = default_inline_threshold;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::shared_ptr<Job>> queue_; // jobs with chunks not yet claimed, oldest first
    bool stop_ = false;
    bool started_ = false;              // guarded by mutex_
    std::vector<std::thread> workers_;  // guarded by mutex_ until the destructor
};

} // namespace weft
