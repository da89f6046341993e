// A real redis-server for one test (or one benchmark run): started on a
// loopback port chosen at random, without persistence, and stopped (killed)
// when the object goes. Shared by tests/remote and bench/remote_cache.
#pragma once

#include <hiredis/hiredis.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace weft::test {

class RedisServer {
public:
    /// redis-server on PATH, or nullopt.
    static std::optional<std::filesystem::path> find_binary() {
        const char *path = std::getenv("PATH");
        std::string dirs = path ? path : "/usr/bin:/bin";
        std::size_t start = 0;
        while (start <= dirs.size()) {
            const std::size_t colon = dirs.find(':', start);
            const std::string dir = dirs.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
            if (!dir.empty() && dir[0] == '/') {
                const std::filesystem::path candidate = std::filesystem::path(dir) / "redis-server";
                if (::access(candidate.c_str(), X_OK) == 0) return candidate;
            }
            if (colon == std::string::npos) break;
            start = colon + 1;
        }
        return std::nullopt;
    }

    RedisServer() {
        const auto binary = find_binary();
        if (!binary) throw std::runtime_error("redis-server is not installed");
        std::random_device random;
        for (int attempt = 0; attempt < 8; ++attempt) {
            port_ = 20000 + static_cast<int>(random() % 40000);
            if (start(*binary)) return;
        }
        throw std::runtime_error("redis-server did not start on any of 8 random loopback ports");
    }
    ~RedisServer() { stop(); }
    RedisServer(const RedisServer &) = delete;
    RedisServer &operator=(const RedisServer &) = delete;

    int port() const { return port_; }
    std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
    bool running() const { return pid_ > 0; }

    /// Kills the server at once (SIGKILL: no goodbye to its clients).
    void stop() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
    }

    /// A command on a connection of the test's own; the reply's string (or
    /// integer as text), "" for nil.
    std::string command(const std::vector<std::string> &args) {
        std::unique_ptr<redisContext, void (*)(redisContext *)> c(redisConnect("127.0.0.1", port_), redisFree);
        if (!c || c->err) throw std::runtime_error("cannot connect to the test redis-server");
        std::vector<const char *> argv;
        std::vector<std::size_t> lengths;
        for (const std::string &a : args) {
            argv.push_back(a.data());
            lengths.push_back(a.size());
        }
        std::unique_ptr<redisReply, void (*)(void *)> r(
            static_cast<redisReply *>(redisCommandArgv(c.get(), static_cast<int>(argv.size()), argv.data(), lengths.data())),
            freeReplyObject);
        if (!r) throw std::runtime_error("no reply from the test redis-server");
        if (r->type == REDIS_REPLY_ERROR) throw std::runtime_error("redis: " + std::string(r->str, r->len));
        if (r->type == REDIS_REPLY_INTEGER) return std::to_string(r->integer);
        if (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) return std::string(r->str, r->len);
        return {};
    }

private:
    bool start(const std::filesystem::path &binary) {
        const std::string port = std::to_string(port_);
        std::vector<std::string> args{binary.string(), "--port", port, "--bind", "127.0.0.1", "--save", "",
                                      "--appendonly", "no", "--daemonize", "no", "--dir",
                                      std::filesystem::temp_directory_path().string()};
        std::vector<char *> argv;
        for (std::string &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
        pid_t pid = -1;
        const int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) throw std::runtime_error("cannot start redis-server");
        pid_ = pid;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) { // exited: the port was taken
                pid_ = -1;
                return false;
            }
            try {
                if (command({"PING"}) == "PONG") return true;
            } catch (const std::runtime_error &) {
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        stop();
        return false;
    }

    int port_ = 0;
    pid_t pid_ = -1;
};

} // namespace weft::test
