// libFuzzer target for the remote cache's reply parser (cache/resp.cpp): the
// bytes a Redis server, or anyone who can stand in for one, sends. Any input,
// fed whole or split at any points, must end in the same reply or the same
// refusal within the limits: no crash, no read past the buffer, no buffer
// beyond the limits.
#include "cache/resp.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

bool same(const weft::resp::Value &a, const weft::resp::Value &b) {
    if (a.kind != b.kind || a.text != b.text || a.integer != b.integer || a.items.size() != b.items.size()) return false;
    for (std::size_t i = 0; i < a.items.size(); ++i)
        if (!same(a.items[i], b.items[i])) return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
    if (size == 0) return 0;
    weft::resp::Limits limits;
    limits.max_bulk = 4096; // small limits: the fuzzer reaches them
    limits.max_total = 16384;
    limits.max_elements = 1024;
    const std::size_t step = 1 + data[0] % 7;
    const std::string_view bytes(reinterpret_cast<const char *>(data) + 1, size - 1);

    weft::resp::Parser whole(limits);
    const auto w = whole.feed(bytes);
    weft::resp::Parser pieces(limits);
    auto p = weft::resp::Parser::State::NeedMore;
    for (std::size_t at = 0; at < bytes.size() && p == weft::resp::Parser::State::NeedMore; at += step)
        p = pieces.feed(bytes.substr(at, step));
    if (w != p) std::abort(); // a split changed the outcome
    if (w == weft::resp::Parser::State::Done && !same(whole.value(), pieces.value())) std::abort();
    if (w == weft::resp::Parser::State::Failed && whole.error() != pieces.error()) std::abort();
    if (whole.announced_bytes() > limits.max_total) std::abort();
    return 0;
}
