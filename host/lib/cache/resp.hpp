// The Redis protocol (RESP2) as the shared cache speaks it: commands out,
// replies in, parsed under limits. The reply comes from a server anyone with
// write access may run, so nothing in it is believed before it is bounded: a
// bulk string's length is checked against the limit when its header arrives,
// before a byte of it is buffered, and a command has one deadline for all of
// its reads (a server trickling a byte every 100 ms held a build forever when
// only each read had a timeout).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::resp {

struct Value {
    enum class Kind { Status, Error, Integer, Bulk, Nil, Array };
    Kind kind = Kind::Nil;
    std::string text;           // Status, Error, Bulk
    long long integer = 0;      // Integer
    std::vector<Value> items;   // Array
};

struct Limits {
    std::uint64_t max_bulk = 64ull << 20;  // one bulk string
    std::uint64_t max_total = 256ull << 20; // all bulk strings of a reply together
    std::size_t max_elements = 1 << 20;    // all array elements of a reply together
    int max_depth = 4;                      // arrays within arrays
};

/// An incremental reply parser. feed() the bytes as they arrive; a reply
/// is complete once feed returns Done.
class Parser {
public:
    enum class State { NeedMore, Done, Failed };
    explicit Parser(Limits limits = {}) : limits_(limits) {}

    State feed(std::string_view bytes);
    /// The complete reply (after Done).
    const Value &value() const { return value_; }
    /// Why the reply was refused (after Failed): "the server announced ...".
    const std::string &error() const { return error_; }
    /// The bytes of bulk strings announced so far by headers: what the reply
    /// says is still coming, for a deadline that grows with what is fetched.
    std::uint64_t announced_bytes() const { return announced_; }
    /// Bytes received after the complete reply (a server must send none).
    std::size_t trailing_bytes() const { return buffer_.size() - consumed_; }

private:
    enum class Step { Done, NeedMore, Failed };
    Step parse(std::size_t &at, Value &out, int depth);
    Step line(std::size_t &at, std::string_view &out);
    Step fail(std::string why);

    Limits limits_;
    std::string buffer_;
    std::size_t consumed_ = 0;
    Value value_;
    std::string error_;
    std::uint64_t announced_ = 0, bulk_total_ = 0;
    std::size_t elements_ = 0;
    State state_ = State::NeedMore;
    /// The bulk whose header was read but whose bytes are not all here: its
    /// size, so feed() does not parse the reply again until they are.
    std::size_t waiting_for_ = 0;
};

/// A command as RESP2 sends it: an array of bulk strings.
std::string encode(const std::vector<std::string> &args);

/// A connection with a deadline per command. Errors are returned, never
/// thrown: a remote fault must not fail a load.
class Connection {
public:
    using Clock = std::chrono::steady_clock;
    Connection() = default;
    Connection(Connection &&o) noexcept;
    Connection &operator=(Connection &&o) noexcept;
    ~Connection();

    /// TCP (host, port) or a Unix socket (`socket` non-empty); nullopt and
    /// `error` set when it cannot connect within `timeout`.
    static std::optional<Connection> open(const std::string &host, int port, const std::string &socket,
                                          std::chrono::milliseconds timeout, std::string &error);

    /// Sends the command and reads its reply, all within `timeout` plus one
    /// second per `bytes_per_second` bytes sent or received (a large artifact
    /// takes its transfer time; a trickle, or a header announcing much, gets
    /// none).
    /// nullopt and `error` set on a timeout, a closed connection or a
    /// reply the limits refuse; the connection is then unusable.
    std::optional<Value> command(const std::vector<std::string> &args, std::chrono::milliseconds timeout,
                                 const Limits &limits, std::string &error);

    static constexpr std::uint64_t bytes_per_second = 32ull << 20;

private:
    explicit Connection(int fd) : fd_(fd) {}
    int fd_ = -1;
};

} // namespace weft::resp
