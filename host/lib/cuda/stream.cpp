// weft::Stream on CUDA: a CudaStream, and one fresh CudaEvent per record as
// the fence of that record (see cuda_stream.hpp for why).
#include "weft/runtime/cuda.hpp"

#include "internal.hpp"

#include "weft/backend/cuda.hpp"
#include "cuda/stream_event.hpp"
#include "weft/support/error.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace weft {

namespace {

class CudaFence final : public Fence {
public:
    CudaFence(int device, std::shared_ptr<CudaEvent> event) : device_(device), event_(std::move(event)) {}
    Device device() const override { return Device::cuda(device_); }
    bool query() override { return event_->query(); }
    bool wait_until(Clock::time_point deadline) override {
        // The driver has no timed wait: poll, backing off to 1 ms.
        auto pause = std::chrono::microseconds(20);
        for (;;) {
            if (event_->query()) return true;
            const Clock::time_point now = Clock::now();
            if (now >= deadline) return false;
            std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
            pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
        }
    }
    void wait() override { event_->synchronize(); }
    void *native_handle() const override { return event_->handle(); }

private:
    int device_;
    std::shared_ptr<CudaEvent> event_;
};

class CudaStreamBackend final : public StreamBackend {
public:
    CudaStreamBackend(int device, bool non_blocking) : device_(device), stream_(device, non_blocking) {}
    ~CudaStreamBackend() override {
        try {
            stream_.synchronize();
        } catch (...) {
            // Errors of the work are reported by synchronize(); a destructor has no one to tell.
        }
    }

    Device device() const override { return Device::cuda(device_); }

    std::shared_ptr<Fence> record() override {
        // Blocking sync: a CPU stream or thread waiting on this fence sleeps instead of spinning a core.
        auto event = std::make_shared<CudaEvent>(device_, /*timing=*/false, /*blocking_sync=*/true);
        event->record(&stream_);
        release_finished_waits();
        return std::make_shared<CudaFence>(device_, std::move(event));
    }

    void wait(std::shared_ptr<Fence> fence, std::shared_ptr<const void> keep_alive) override {
        if (!fence) return;
        if (fence->device().is_cpu())
            throw UserError("Stream::wait: a CUDA stream (cuda:" + std::to_string(device_) +
                            ") cannot wait for CPU work; wait on the host (Sync::client_wait) or use a CPU stream");
        release_finished_waits(); // a stream that only waits and launches must not hold syncs forever
        stream_.wait_event(static_cast<backend::CudaEvent>(fence->native_handle()));
        std::lock_guard<std::mutex> lock(mutex_);
        waits_.emplace_back(std::move(fence), std::move(keep_alive));
    }

    void enqueue(std::function<void()>) override {
        throw UserError("Stream::enqueue: a CUDA stream (cuda:" + std::to_string(device_) +
                        ") runs device work only; host tasks need a CPU stream");
    }

    void synchronize() override {
        stream_.synchronize();
        std::vector<std::function<void()>> checks;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            waits_.clear(); // every wait of this stream is over
            checks.swap(checks_);
        }
        std::exception_ptr first;
        for (auto &check : checks) {
            try {
                check();
            } catch (...) {
                if (!first) first = std::current_exception();
            }
        }
        if (first) std::rethrow_exception(first);
    }

    void check_on_synchronize(std::function<void()> check) override {
        std::lock_guard<std::mutex> lock(mutex_);
        checks_.push_back(std::move(check));
    }

    void *native_handle() const override { return stream_.handle(); }

private:
    /// Drops what stream waits hold once their fence has completed (a sync
    /// object flagged for deletion goes then).
    void release_finished_waits() {
        std::vector<std::pair<std::shared_ptr<Fence>, std::shared_ptr<const void>>> done;
        std::lock_guard<std::mutex> lock(mutex_);
        auto finished = std::stable_partition(waits_.begin(), waits_.end(), [](auto &w) { return !w.first->query(); });
        std::move(finished, waits_.end(), std::back_inserter(done));
        waits_.erase(finished, waits_.end());
    }

    int device_;
    CudaStream stream_;
    std::mutex mutex_; // guards waits_ and checks_
    std::vector<std::pair<std::shared_ptr<Fence>, std::shared_ptr<const void>>> waits_;
    std::vector<std::function<void()>> checks_; // run after the next synchronize()
};

} // namespace

std::unique_ptr<StreamBackend> cuda::make_stream_backend(int device, bool non_blocking) {
    return std::make_unique<CudaStreamBackend>(device, non_blocking);
}

Stream make_cuda_stream(int device, bool non_blocking) { return Stream(cuda::make_stream_backend(device, non_blocking)); }

} // namespace weft
