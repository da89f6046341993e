// SHA-256 (support/sha256): known answers, streaming, and the length-prefixed
// field encoding every cache key and module hash is built from, which must
// never change for the same inputs.
#include "weft/support/sha256.hpp"

#include <catch2/catch.hpp>

#include <string>

using weft::Sha256;
using weft::sha256_hex;

TEST_CASE("sha256: the standard test vectors") {
    CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256_hex(std::string(1000000, 'a')) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256: updates in pieces give the digest of the whole") {
    const std::string text(1000, 'x');
    Sha256 h;
    for (std::size_t at = 0; at < text.size(); at += 7) h.update(text.substr(at, 7));
    CHECK(h.hex() == sha256_hex(text));
}

TEST_CASE("sha256: a field is its decimal length, ':' and its bytes") {
    const std::string long_field(1234, 'q');
    Sha256 fields;
    fields.field("ab").field("").field("c").field(long_field);
    CHECK(fields.hex() == sha256_hex("2:ab0:1:c1234:" + long_field));
    // So ("ab", "c") and ("a", "bc") differ.
    Sha256 one, other;
    one.field("ab").field("c");
    other.field("a").field("bc");
    CHECK(one.hex() != other.hex());
}
