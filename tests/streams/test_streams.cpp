// CPU streams, events and sync objects with real threads: in-order work, the
// EGL_NV_cuda_event rules (snapshot at creation, re-recording has no effect,
// timeouts, deferred deletion while waits block, never-recorded event,
// missing handle), async kernel launches and copies on a stream.
//
// A "gate" is a task that blocks a stream until the test opens it: the work
// behind it is pending for as long as the test wants, without any sleep.
#include "weft/modules/compiled_module.hpp"
#include "weft/host/host.hpp"
#include "weft/runtime/array.hpp"
#include "weft/runtime/stream.hpp"
#include "weft/runtime/sync.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace weft;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

/// Blocks a stream at the point it was enqueued until open() (or destruction).
class Gate {
public:
    explicit Gate(Stream &stream) : opened_(promise_.get_future().share()) {
        stream.enqueue([f = opened_] { f.wait(); });
    }
    ~Gate() { open(); }
    Gate(const Gate &) = delete;
    Gate &operator=(const Gate &) = delete;
    void open() {
        if (!open_) promise_.set_value();
        open_ = true;
    }

private:
    std::promise<void> promise_;
    std::shared_future<void> opened_;
    bool open_ = false;
};

template <class E, class F> E error_of(F &&f) {
    try {
        f();
    } catch (const E &e) {
        return e;
    }
    FAIL("no exception of the expected type was thrown");
    throw std::logic_error("unreachable");
}

/// Spins (yielding) until `done()`; generous bound so a loaded CI machine never trips it.
template <class F> bool eventually(F &&done) {
    const auto until = Clock::now() + std::chrono::seconds(60);
    while (!done()) {
        if (Clock::now() > until) return false;
        std::this_thread::yield();
    }
    return true;
}

} // namespace

TEST_CASE("a CPU stream runs its work in order, asynchronously to the caller") {
    Stream stream;
    CHECK(stream.device() == Device::cpu());
    CHECK(stream.native_handle() == nullptr);
    std::vector<int> order; // touched only by the stream's worker until synchronize()
    std::thread::id worker;
    {
        Gate gate(stream);
        for (int i = 0; i < 1000; ++i)
            stream.enqueue([&order, &worker, i] {
                order.push_back(i);
                worker = std::this_thread::get_id();
            });
        // Nothing behind the gate has run: enqueue returned without waiting.
        Event e;
        e.record(stream);
        CHECK_FALSE(e.query());
    }
    stream.synchronize();
    REQUIRE(order.size() == 1000);
    for (int i = 0; i < 1000; ++i) REQUIRE(order[static_cast<std::size_t>(i)] == i);
    CHECK(worker != std::this_thread::get_id());
}

TEST_CASE("two CPU streams keep their own order while running concurrently") {
    Stream a, b;
    std::mutex m;
    std::vector<std::pair<char, int>> seen;
    for (int i = 0; i < 200; ++i) {
        a.enqueue([&, i] { std::lock_guard<std::mutex> l(m); seen.emplace_back('a', i); });
        b.enqueue([&, i] { std::lock_guard<std::mutex> l(m); seen.emplace_back('b', i); });
    }
    a.synchronize();
    b.synchronize();
    int next_a = 0, next_b = 0;
    for (const auto &[s, i] : seen) REQUIRE(i == (s == 'a' ? next_a++ : next_b++));
    CHECK(next_a == 200);
    CHECK(next_b == 200);
}

TEST_CASE("a stream waiting on an event runs its later work after the event's work") {
    Stream producer, consumer;
    std::atomic<int> value{0};
    int seen = -1;
    Event ready;
    {
        Gate gate(producer);
        producer.enqueue([&] { value = 42; });
        ready.record(producer);
        consumer.wait(ready);
        consumer.enqueue([&] { seen = value.load(); });
        Event consumer_done;
        consumer_done.record(consumer);
        CHECK_FALSE(consumer_done.query()); // it waits behind the producer's gate
    }
    consumer.synchronize();
    CHECK(seen == 42);
}

TEST_CASE("an error in a stream task is reported once by synchronize, and later work still runs") {
    Stream stream;
    bool later = false;
    stream.enqueue([] { throw UserError("task failed on purpose"); });
    stream.enqueue([&] { later = true; });
    CHECK_THROWS_WITH(stream.synchronize(), "task failed on purpose");
    CHECK(later);
    CHECK_NOTHROW(stream.synchronize());
}

TEST_CASE("a sync reflects the work before the event's most recent record at creation time") {
    Stream stream;
    Gate gate(stream);
    Event e;
    e.record(stream);
    Sync sync(e);
    CHECK(sync.type() == SyncType::CpuEvent);
    CHECK(sync.condition() == SyncCondition::EventComplete);
    CHECK(sync.attrib(SyncAttrib::Condition) == 0x323D); // EGL_SYNC_CUDA_EVENT_COMPLETE_NV
    CHECK(sync.attrib(SyncAttrib::Type) == static_cast<std::int64_t>(SyncType::CpuEvent));
    CHECK(sync.status() == SyncStatus::Unsignaled);
    CHECK(sync.attrib(SyncAttrib::Status) == 0x30F3); // EGL_UNSIGNALED
    CHECK(sync.client_wait(0) == WaitResult::TimeoutExpired);
    gate.open();
    CHECK(sync.client_wait(Sync::forever) == WaitResult::ConditionSatisfied);
    CHECK(sync.status() == SyncStatus::Signaled);
    CHECK(sync.attrib(SyncAttrib::Status) == 0x30F2); // EGL_SIGNALED
}

TEST_CASE("recording the event again does not affect a sync created earlier") {
    Stream busy, idle;
    Gate gate(busy);
    Event e;

    SECTION("pending sync, event re-recorded on finished work") {
        e.record(busy);
        Sync before(e);
        e.record(idle);
        idle.synchronize();
        CHECK(e.query()); // the event now marks finished work...
        CHECK(before.status() == SyncStatus::Unsignaled); // ...the earlier sync still the gated work
        CHECK(before.client_wait(0) == WaitResult::TimeoutExpired);
        Sync after(e); // a sync created now takes the new record
        CHECK(after.status() == SyncStatus::Signaled);
        CHECK(after.client_wait(0) == WaitResult::ConditionSatisfied);
        gate.open();
        CHECK(before.client_wait(Sync::forever) == WaitResult::ConditionSatisfied);
    }
    SECTION("signaled sync, event re-recorded on pending work") {
        e.record(idle);
        idle.synchronize();
        Sync before(e);
        CHECK(before.status() == SyncStatus::Signaled);
        e.record(busy);
        CHECK_FALSE(e.query());
        CHECK(before.status() == SyncStatus::Signaled);
        Sync after(e);
        CHECK(after.status() == SyncStatus::Unsignaled);
        gate.open();
        CHECK(after.client_wait(Sync::forever) == WaitResult::ConditionSatisfied);
    }
}

TEST_CASE("client waits time out on pending work and are satisfied when it finishes") {
    Stream stream;
    Gate gate(stream);
    Event e;
    e.record(stream);
    Sync sync(e);

    // A timeout is a semantic: the wait returns no earlier than it (and says so).
    const auto t0 = Clock::now();
    CHECK(sync.client_wait(30'000'000) == WaitResult::TimeoutExpired);
    CHECK(Clock::now() - t0 >= std::chrono::milliseconds(30));
    CHECK(sync.client_wait(0) == WaitResult::TimeoutExpired);

    // Timeouts larger than the clock can represent count as forever, not as "already expired".
    std::atomic<bool> waiting{false};
    auto huge = std::async(std::launch::async, [&] {
        waiting = true;
        return sync.client_wait(std::uint64_t{1} << 63);
    });
    auto long_enough = std::async(std::launch::async, [&] { return sync.client_wait(600'000'000'000ull); });
    REQUIRE(eventually([&] { return sync.blocked_waiters() == 2; }));
    gate.open();
    CHECK(huge.get() == WaitResult::ConditionSatisfied);
    CHECK(long_enough.get() == WaitResult::ConditionSatisfied);
    CHECK(sync.blocked_waiters() == 0);
}

TEST_CASE("destroying a sync while client waits block on it defers its deletion until they end") {
    Stream stream;
    Gate gate(stream);
    Event e;
    e.record(stream);
    const std::size_t before = Sync::live_objects();
    auto sync = std::make_unique<Sync>(e);
    CHECK(Sync::live_objects() == before + 1);

    constexpr int forever_waiters = 4;
    std::vector<std::future<WaitResult>> results;
    const Sync *s = sync.get();
    for (int i = 0; i < forever_waiters; ++i)
        results.push_back(std::async(std::launch::async, [s] { return s->client_wait(Sync::forever); }));
    auto timed = std::async(std::launch::async, [s] { return s->client_wait(20'000'000); });
    REQUIRE(eventually([&] { return sync->blocked_waiters() == forever_waiters + 1; }));

    sync.reset(); // eglDestroySync while waits block: flagged, not deleted
    CHECK(Sync::live_objects() == before + 1);
    CHECK(timed.get() == WaitResult::TimeoutExpired); // a timed waiter still times out normally
    CHECK(Sync::live_objects() == before + 1);        // the others still hold it

    gate.open();
    for (auto &r : results) CHECK(r.get() == WaitResult::ConditionSatisfied);
    CHECK(Sync::live_objects() == before); // the last wait ended: deleted
}

TEST_CASE("a stream waiting on a sync holds it: deletion waits for the stream wait to end") {
    Stream producer, consumer;
    Gate gate(producer);
    Event e;
    e.record(producer);
    const std::size_t before = Sync::live_objects();
    std::atomic<bool> ran{false};
    {
        Sync sync(e);
        consumer.wait(sync); // eglWaitSync's analog: the host does not block
        consumer.enqueue([&] { ran = true; });
        CHECK(sync.blocked_waiters() == 1);
    }
    CHECK(Sync::live_objects() == before + 1);
    CHECK_FALSE(ran);
    gate.open();
    consumer.synchronize();
    CHECK(ran);
    CHECK(Sync::live_objects() == before);
}

TEST_CASE("a sync from a never-recorded event is an error (not properly initialized)") {
    Event never;
    CHECK_FALSE(never.recorded());
    CHECK(never.query()); // like cuEventQuery on a fresh event
    const SyncError e = error_of<SyncError>([&] { Sync s(never); });
    CHECK(e.kind() == SyncError::Kind::EventNotRecorded);
    CHECK_THAT(e.what(), Catch::Contains("cpu event was never recorded") && Catch::Contains("not properly initialized"));
    // The same for a CUDA event: no device is needed to know it was never recorded.
    Event cuda_never(Device::cuda(0));
    CHECK(error_of<SyncError>([&] { Sync s(cuda_never); }).kind() == SyncError::Kind::EventNotRecorded);
}

TEST_CASE("a sync without an event handle is the extension's BAD_ATTRIBUTE") {
    const SyncError missing = error_of<SyncError>([] { Sync s(nullptr); });
    CHECK(missing.kind() == SyncError::Kind::MissingEvent);
    CHECK_THAT(missing.what(), Catch::Contains("no event handle given") && Catch::Contains("EGL_BAD_ATTRIBUTE"));
    Stream stream;
    Event e;
    e.record(stream);
    Event moved = std::move(e);
    CHECK_FALSE(e.valid()); // NOLINT(bugprone-use-after-move): checking the moved-from state is the point
    CHECK(error_of<SyncError>([&] { Sync s(e); }).kind() == SyncError::Kind::MissingEvent);
    CHECK_NOTHROW(Sync(moved));
}

TEST_CASE("an event records only on streams of its device") {
    Stream cpu;
    Event cuda_event(Device::cuda(0));
    CHECK_THROWS_WITH(cuda_event.record(cpu), "Event::record: the event is for cuda:0, the stream is on cpu");
    CHECK_FALSE(cuda_event.recorded());
}

TEST_CASE("copies on a stream run in order and keep both arrays alive") {
    const Type f32 = Type::scalar(Scalar::Float32);
    Stream stream;
    Array dst = Array::zeros(f32, {4});
    {
        Gate gate(stream);
        {
            Array src = Array::from_vector(f32, std::vector<float>{1, 2, 3, 4});
            copy(dst, src, &stream); // src's last reference goes now; the copy keeps it
        }
        CHECK(dst.to_vector<float>() == std::vector<float>{0, 0, 0, 0});
    }
    stream.synchronize();
    CHECK(dst.to_vector<float>() == std::vector<float>{1, 2, 3, 4});
    CHECK_THROWS_WITH(copy(dst, Array::zeros(f32, {3})), Catch::Contains("copy: the destination is float32 [4]"));
}

namespace {
fs::path temp_cache(const std::string &name) {
    const fs::path p = fs::temp_directory_path() / ("weft_streams_" + name + "_" + std::to_string(::getpid()));
    fs::remove_all(p);
    return p;
}
} // namespace

TEST_CASE("a CPU kernel launched on a stream runs after the stream's earlier work, with its arguments kept alive") {
    const fs::path cache = temp_cache("launch");
    const Type f32 = Type::scalar(Scalar::Float32);
    const Type i32 = Type::scalar(Scalar::Int32);
    {
        HostOptions o;
        o.use_environment = false;
        o.cache_dir = cache;
        o.quiet = true;
        Host host(o);
        CompiledModule m = host.load_module_source("stream_kernels", R"(import warp as wp

@wp.kernel
def scale(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i]

@wp.kernel
def check(a: wp.array(dtype=int)):
    i = wp.tid()
    wp.expect_eq(a[i], 1)
)");
        Stream stream;
        const int n = 10000;
        Array y = Array::zeros(f32, {n});
        {
            Gate gate(stream);
            {
                std::vector<float> xs(n);
                for (int i = 0; i < n; ++i) xs[static_cast<std::size_t>(i)] = static_cast<float>(i);
                Array x = Array::from_vector(f32, xs);
                m.kernel("scale").launch({n}, {x, y, 3.0f}, &stream);
            } // x's last reference is the launch's
            // Argument errors throw at the call, not later on the stream.
            CHECK_THROWS_WITH(m.kernel("scale").launch({n}, {y, y, 3}, &stream),
                              Catch::Contains("parameter 'a': expected float32, got int32"));
            CHECK(y.to_vector<float>()[1] == 0.0f); // behind the gate
        }
        Event done;
        done.record(stream);
        Sync sync(done);
        CHECK(sync.client_wait(Sync::forever) == WaitResult::ConditionSatisfied);
        const std::vector<float> out = y.to_vector<float>();
        CHECK(out[0] == 0.0f);
        CHECK(out[1] == 3.0f);
        CHECK(out[n - 1] == 3.0f * (n - 1));
        stream.synchronize(); // the rejected launch never reached the stream

        Array bad = Array::from_vector(i32, std::vector<int>{1, 5, 1});
        m.kernel("check").launch({3}, {bad}, &stream);
        CHECK_THROWS_WITH(stream.synchronize(), Catch::Contains("kernel 'check' (module 'stream_kernels'), on a stream: 1 expect_* check failed"));
        // nullptr: the synchronous launch
        m.kernel("scale").launch({n}, {y, y, 2.0f}, nullptr);
        CHECK(y.to_vector<float>()[1] == 6.0f);
    }
    fs::remove_all(cache);
}
