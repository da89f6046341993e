#include "resp.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace weft::resp {

namespace {

constexpr std::size_t max_line = 64 << 10;

bool parse_integer(std::string_view text, long long &value) {
    if (text.empty()) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    return ec == std::errc() && end == text.data() + text.size();
}

std::string hex_byte(unsigned char c) {
    static const char digits[] = "0123456789abcdef";
    return std::string("0x") + digits[c >> 4] + digits[c & 0xF];
}

} // namespace

// ---------------------------------------------------------------------------

Parser::Step Parser::fail(std::string why) {
    error_ = std::move(why);
    return Step::Failed;
}

Parser::Step Parser::line(std::size_t &at, std::string_view &out) {
    const std::size_t end = buffer_.find("\r\n", at);
    if (end == std::string::npos) {
        if (buffer_.size() - at > max_line)
            return fail("the server sent a header line longer than " + std::to_string(max_line) + " bytes");
        return Step::NeedMore;
    }
    if (end - at > max_line)
        return fail("the server sent a header line longer than " + std::to_string(max_line) + " bytes");
    out = std::string_view(buffer_).substr(at, end - at);
    at = end + 2;
    return Step::Done;
}

Parser::Step Parser::parse(std::size_t &at, Value &out, int depth) {
    if (at >= buffer_.size()) return Step::NeedMore;
    const char type = buffer_[at++];
    std::string_view text;
    if (const Step s = line(at, text); s != Step::Done) return s;
    long long n = 0;
    switch (type) {
    case '+':
        out.kind = Value::Kind::Status;
        out.text = text;
        return Step::Done;
    case '-':
        out.kind = Value::Kind::Error;
        out.text = text;
        return Step::Done;
    case ':':
        if (!parse_integer(text, out.integer)) return fail("the server sent an integer that is not one");
        out.kind = Value::Kind::Integer;
        return Step::Done;
    case '$': {
        if (!parse_integer(text, n) || n < -1) return fail("the server sent a bulk length that is not one");
        if (n == -1) {
            out.kind = Value::Kind::Nil;
            return Step::Done;
        }
        const auto size = static_cast<std::uint64_t>(n);
        // Refused from the header: the bytes are never read.
        if (size > limits_.max_bulk)
            return fail("the server announced a field of " + std::to_string(size) + " bytes, more than the limit of " +
                        std::to_string(limits_.max_bulk));
        bulk_total_ += size;
        if (bulk_total_ > limits_.max_total)
            return fail("the server announced replies of " + std::to_string(bulk_total_) +
                        " bytes in all, more than the limit of " + std::to_string(limits_.max_total));
        announced_ += size;
        if (buffer_.size() - at < size + 2) {
            waiting_for_ = at + static_cast<std::size_t>(size) + 2;
            return Step::NeedMore;
        }
        if (buffer_[at + size] != '\r' || buffer_[at + size + 1] != '\n')
            return fail("the server sent a bulk string without its terminator");
        out.kind = Value::Kind::Bulk;
        out.text.assign(buffer_, at, static_cast<std::size_t>(size));
        at += static_cast<std::size_t>(size) + 2;
        return Step::Done;
    }
    case '*': {
        if (!parse_integer(text, n) || n < -1) return fail("the server sent an array length that is not one");
        if (n == -1) {
            out.kind = Value::Kind::Nil;
            return Step::Done;
        }
        if (depth + 1 > limits_.max_depth)
            return fail("the server sent arrays nested deeper than " + std::to_string(limits_.max_depth));
        if (static_cast<std::uint64_t>(n) > limits_.max_elements - elements_)
            return fail("the server announced more than " + std::to_string(limits_.max_elements) + " array elements");
        elements_ += static_cast<std::size_t>(n);
        out.kind = Value::Kind::Array;
        out.items.reserve(static_cast<std::size_t>(std::min<long long>(n, 1024)));
        for (long long i = 0; i < n; ++i) {
            out.items.emplace_back();
            if (const Step s = parse(at, out.items.back(), depth + 1); s != Step::Done) return s;
        }
        return Step::Done;
    }
    default:
        return fail("the server sent a reply that does not start with a RESP type (" +
                    hex_byte(static_cast<unsigned char>(type)) + ")");
    }
}

Parser::State Parser::feed(std::string_view bytes) {
    if (state_ != State::NeedMore) return state_;
    buffer_.append(bytes);
    if (buffer_.size() < waiting_for_) return state_;
    // Parsed again from the start: replies are a handful of fields, and a
    // large bulk is waited for whole (waiting_for_) instead of re-parsed.
    waiting_for_ = 0;
    announced_ = bulk_total_ = 0;
    elements_ = 0;
    std::size_t at = 0;
    Value v;
    switch (parse(at, v, 0)) {
    case Step::Done:
        value_ = std::move(v);
        consumed_ = at;
        return state_ = State::Done;
    case Step::Failed: return state_ = State::Failed;
    case Step::NeedMore: return state_;
    }
    return state_;
}

std::string encode(const std::vector<std::string> &args) {
    std::string out = "*" + std::to_string(args.size()) + "\r\n";
    for (const std::string &a : args) {
        out += "$" + std::to_string(a.size()) + "\r\n";
        out += a;
        out += "\r\n";
    }
    return out;
}

// ---------------------------------------------------------------------------

namespace {

std::string errno_message(int err) { return std::strerror(err); }

/// Waits until `fd` is ready for `events` or the deadline passes; 0 when
/// ready, ETIMEDOUT or the poll error otherwise.
int wait_for(int fd, short events, Connection::Clock::time_point deadline) {
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Connection::Clock::now());
        if (left.count() <= 0) return ETIMEDOUT;
        pollfd p{fd, events, 0};
        const int rc = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30)));
        if (rc > 0) return 0;
        if (rc < 0 && errno != EINTR) return errno;
    }
}

/// Connects `fd` to `address` by the deadline; 0 or the errno.
int connect_by(int fd, const sockaddr *address, socklen_t length, Connection::Clock::time_point deadline) {
    if (::connect(fd, address, length) == 0) return 0;
    if (errno != EINPROGRESS && errno != EINTR) return errno;
    if (const int err = wait_for(fd, POLLOUT, deadline)) return err;
    int err = 0;
    socklen_t size = sizeof err;
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &size) != 0) return errno;
    return err;
}

} // namespace

Connection::Connection(Connection &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }

Connection &Connection::operator=(Connection &&o) noexcept {
    if (this != &o) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = o.fd_;
        o.fd_ = -1;
    }
    return *this;
}

Connection::~Connection() {
    if (fd_ >= 0) ::close(fd_);
}

std::optional<Connection> Connection::open(const std::string &host, int port, const std::string &socket,
                                           std::chrono::milliseconds timeout, std::string &error) {
    const Clock::time_point deadline = Clock::now() + timeout;
    if (!socket.empty()) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (socket.size() >= sizeof address.sun_path) {
            error = "cannot connect: the socket path is longer than " + std::to_string(sizeof address.sun_path - 1) +
                    " bytes";
            return std::nullopt;
        }
        std::memcpy(address.sun_path, socket.c_str(), socket.size() + 1);
        Connection c(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
        if (c.fd_ < 0) {
            error = "cannot connect: " + errno_message(errno);
            return std::nullopt;
        }
        if (const int err = connect_by(c.fd_, reinterpret_cast<const sockaddr *>(&address), sizeof address, deadline)) {
            error = "cannot connect: " + (err == ETIMEDOUT ? std::string("timed out") : errno_message(err));
            return std::nullopt;
        }
        return c;
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
        error = "cannot connect: " + std::string(gai_strerror(rc));
        return std::nullopt;
    }
    int last = ECONNREFUSED;
    for (const addrinfo *a = found; a; a = a->ai_next) {
        Connection c(::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol));
        if (c.fd_ < 0) {
            last = errno;
            continue;
        }
        last = connect_by(c.fd_, a->ai_addr, a->ai_addrlen, deadline);
        if (last == 0) {
            ::freeaddrinfo(found);
            const int one = 1;
            ::setsockopt(c.fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            return c;
        }
    }
    ::freeaddrinfo(found);
    error = "cannot connect: " + (last == ETIMEDOUT ? std::string("timed out") : errno_message(last));
    return std::nullopt;
}

std::optional<Value> Connection::command(const std::vector<std::string> &args, std::chrono::milliseconds timeout,
                                         const Limits &limits, std::string &error) {
    if (fd_ < 0) {
        error = "not connected";
        return std::nullopt;
    }
    const Clock::time_point start = Clock::now();
    auto broken = [&](std::string why) -> std::optional<Value> {
        error = std::move(why);
        ::close(fd_);
        fd_ = -1;
        return std::nullopt;
    };
    const std::string request = encode(args);
    const Clock::time_point send_deadline =
        start + timeout + std::chrono::milliseconds(request.size() / (bytes_per_second / 1000));
    for (std::size_t sent = 0; sent < request.size();) {
        // MSG_NOSIGNAL: a server that closed the socket must not end the process with SIGPIPE.
        const ssize_t n = ::send(fd_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
        if (n > 0) {
            sent += static_cast<std::size_t>(n);
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (const int err = wait_for(fd_, POLLOUT, send_deadline))
                return broken(err == ETIMEDOUT ? "the command was not sent within its deadline of " +
                                                     std::to_string(timeout.count()) + " ms"
                                               : errno_message(err));
        } else {
            return broken("cannot send: " + errno_message(errno));
        }
    }
    Parser parser(limits);
    std::string chunk(256 << 10, '\0');
    std::uint64_t received = 0;
    for (;;) {
        // One deadline for the whole reply, grown only by the bytes that did
        // arrive (a second per bytes_per_second): a large artifact gets its
        // transfer time, a server that announces much and trickles gets none.
        const Clock::time_point deadline =
            start + timeout + std::chrono::milliseconds(received / (bytes_per_second / 1000));
        if (const int err = wait_for(fd_, POLLIN, deadline))
            return broken(err == ETIMEDOUT ? "no complete reply within the command's deadline of " +
                                                 std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                    deadline - start)
                                                                    .count()) +
                                                 " ms"
                                           : errno_message(err));
        const ssize_t n = ::recv(fd_, chunk.data(), chunk.size(), 0);
        if (n == 0) return broken("the server closed the connection");
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
            return broken("cannot read: " + errno_message(errno));
        }
        received += static_cast<std::uint64_t>(n);
        switch (parser.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)))) {
        case Parser::State::NeedMore: continue;
        case Parser::State::Failed: return broken(parser.error());
        case Parser::State::Done:
            if (parser.trailing_bytes() != 0) return broken("the server sent more than one reply to one command");
            return parser.value();
        }
    }
}

} // namespace weft::resp
