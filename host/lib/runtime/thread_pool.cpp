#include "weft/runtime/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>

namespace weft {

/// One parallel_for call: chunks are claimed in order through `next`.
struct ThreadPool::Job {
    const std::function<void(std::int64_t, std::int64_t)> *body = nullptr;
    std::int64_t total = 0;
    std::int64_t chunks = 0;
    std::atomic<std::int64_t> next{0};
    std::atomic<bool> failed{false};

    std::mutex mutex; // guards done and error
    std::condition_variable finished;
    std::int64_t done = 0;
    std::exception_ptr error;

    /// Chunk c is [begin, end): the first total % chunks chunks are one longer.
    std::int64_t chunk_begin(std::int64_t c) const {
        const std::int64_t base = total / chunks, extra = total % chunks;
        return c * base + std::min(c, extra);
    }
};

namespace {
unsigned default_threads() {
    const unsigned n = std::thread::hardware_concurrency();
    return n == 0 ? 1 : n;
}
} // namespace

ThreadPool::ThreadPool() : ThreadPool(0) {}

// The workers start with the first parallel_for that needs them: a warm
// module load creates the pool but launches nothing, and starting the
// threads was a tenth of it (issue 20).
ThreadPool::ThreadPool(unsigned threads, std::int64_t inline_threshold)
    : threads_(threads == 0 ? default_threads() : threads), inline_threshold_(inline_threshold) {}

void ThreadPool::start_workers() {
    if (started_) return;
    started_ = true;
    try {
        workers_.reserve(threads_ - 1);
        for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this] { worker_loop(); });
    } catch (...) {
        // No more threads (or no memory for them): those that started help,
        // and the caller runs whatever they do not claim.
    }
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : workers_) t.join();
}

void ThreadPool::run_chunk(Job &job, std::int64_t chunk) {
    if (!job.failed.load(std::memory_order_relaxed)) {
        try {
            (*job.body)(job.chunk_begin(chunk), job.chunk_begin(chunk + 1));
        } catch (...) {
            std::lock_guard<std::mutex> lock(job.mutex);
            if (!job.error) job.error = std::current_exception();
            job.failed.store(true, std::memory_order_relaxed);
        }
    }
    std::lock_guard<std::mutex> lock(job.mutex);
    if (++job.done == job.chunks) job.finished.notify_all();
}

void ThreadPool::worker_loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
        if (queue_.empty()) return; // stopping
        const std::shared_ptr<Job> job = queue_.front();
        const std::int64_t chunk = job->next.fetch_add(1);
        if (chunk >= job->chunks) {
            queue_.pop_front(); // every chunk is claimed
            continue;
        }
        lock.unlock();
        run_chunk(*job, chunk);
        lock.lock();
    }
}

void ThreadPool::parallel_for(std::int64_t total,
                              const std::function<void(std::int64_t begin, std::int64_t end)> &body) {
    parallel_for(total, inline_threshold_, body);
}

void ThreadPool::parallel_for(std::int64_t total, std::int64_t inline_below,
                              const std::function<void(std::int64_t begin, std::int64_t end)> &body) {
    if (total <= 0) return;
    const std::int64_t chunks = std::min<std::int64_t>(total, 4 * static_cast<std::int64_t>(threads_));
    if (threads_ == 1 || total < inline_below || chunks <= 1) {
        body(0, total);
        return;
    }
    const auto job = std::make_shared<Job>();
    job->body = &body;
    job->total = total;
    job->chunks = chunks;
    std::int64_t workers = 0;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        start_workers();
        queue_.push_back(job);
        workers = static_cast<std::int64_t>(workers_.size());
    }
    const std::int64_t helpers = std::min<std::int64_t>(chunks - 1, workers);
    if (helpers >= workers)
        wake_.notify_all();
    else
        for (std::int64_t i = 0; i < helpers; ++i) wake_.notify_one();

    // The caller works on its own job until every chunk is claimed.
    for (std::int64_t c; (c = job->next.fetch_add(1)) < chunks;) run_chunk(*job, c);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto it = std::find(queue_.begin(), queue_.end(), job);
        if (it != queue_.end()) queue_.erase(it);
    }
    std::unique_lock<std::mutex> lock(job->mutex);
    job->finished.wait(lock, [&] { return job->done == job->chunks; });
    if (job->error) std::rethrow_exception(job->error);
}

} // namespace weft
