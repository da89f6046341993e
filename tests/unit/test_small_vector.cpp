#include "weft/support/small_vector.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

using weft::SmallVector;

namespace {

/// Counts live instances, and throws from the copy that `fail_at` counts down to.
struct Tracked {
    static inline int live = 0;
    static inline int copies_left = -1; // -1: never throw
    std::string value;

    explicit Tracked(std::string v) : value(std::move(v)) { ++live; }
    Tracked(const Tracked &o) : value(o.value) {
        if (copies_left == 0) throw std::runtime_error("copy refused");
        if (copies_left > 0) --copies_left;
        ++live;
    }
    Tracked(Tracked &&o) noexcept : value(std::move(o.value)) { ++live; }
    Tracked &operator=(const Tracked &) = default;
    Tracked &operator=(Tracked &&) noexcept = default;
    ~Tracked() { --live; }
    friend bool operator==(const Tracked &a, const Tracked &b) { return a.value == b.value; }
};

std::vector<std::string> values(const SmallVector<Tracked, 2> &v) {
    std::vector<std::string> out;
    for (const Tracked &t : v) out.push_back(t.value);
    return out;
}

/// A string longer than any small-string buffer, so that a lost element or a
/// double free shows under the sanitizers.
std::string long_text(char c) { return std::string(40, c); }

} // namespace

TEST_CASE("a SmallVector keeps up to N elements inline and moves to the heap past N") {
    SmallVector<std::string, 2> v;
    CHECK(v.is_inline());
    CHECK(v.capacity() == 2);
    v.push_back(long_text('a'));
    v.emplace_back(long_text('b'));
    CHECK(v.is_inline());
    CHECK(v.size() == 2);
    v.push_back(long_text('c'));
    CHECK_FALSE(v.is_inline());
    CHECK(v.capacity() == 4);
    CHECK(v == std::vector<std::string>{long_text('a'), long_text('b'), long_text('c')});
    CHECK(v.front() == long_text('a'));
    CHECK(v.back() == long_text('c'));
    CHECK(v.at(1) == long_text('b'));
    CHECK_THROWS_AS(v.at(3), std::out_of_range);
    v.pop_back();
    CHECK(v.size() == 2);
    v.clear();
    CHECK(v.empty());
    CHECK_FALSE(v.is_inline()); // clear keeps the heap block, like std::vector
}

TEST_CASE("SmallVector: appending an element of the same full vector copies it before growing") {
    SmallVector<std::string, 1> v{long_text('x')};
    v.push_back(v[0]); // full: v[0] is read before its storage moves
    v.push_back(v[1]);
    CHECK(v == std::vector<std::string>{long_text('x'), long_text('x'), long_text('x')});
}

TEST_CASE("SmallVector copies and moves inline and heap contents") {
    Tracked::live = 0;
    {
        SmallVector<Tracked, 2> small{Tracked("a")};
        SmallVector<Tracked, 2> big{Tracked("a"), Tracked("b"), Tracked("c")};
        CHECK(Tracked::live == 4);
        CHECK(small.is_inline());
        CHECK_FALSE(big.is_inline());

        SmallVector<Tracked, 2> small_copy(small), big_copy(big);
        CHECK(values(small_copy) == std::vector<std::string>{"a"});
        CHECK(values(big_copy) == std::vector<std::string>{"a", "b", "c"});
        CHECK(Tracked::live == 8);

        const Tracked *big_storage = big.data();
        SmallVector<Tracked, 2> moved_big(std::move(big));
        CHECK(moved_big.data() == big_storage); // the heap block is handed over, not copied
        CHECK(big.empty());
        CHECK(big.is_inline());
        SmallVector<Tracked, 2> moved_small(std::move(small));
        CHECK(values(moved_small) == std::vector<std::string>{"a"});
        CHECK(small.empty());
        CHECK(Tracked::live == 8);

        // Assignment across the inline/heap boundary, both ways.
        small_copy = big_copy;
        CHECK(values(small_copy) == std::vector<std::string>{"a", "b", "c"});
        big_copy = SmallVector<Tracked, 2>{Tracked("z")};
        CHECK(values(big_copy) == std::vector<std::string>{"z"});
        CHECK(big_copy.is_inline());
        const SmallVector<Tracked, 2> &same = small_copy;
        small_copy = same; // assigning a vector to itself
        CHECK(values(small_copy) == std::vector<std::string>{"a", "b", "c"});
        CHECK(small_copy == moved_big);
        CHECK(small_copy != big_copy);

        big_copy.assign(3, Tracked("q"));
        CHECK(values(big_copy) == std::vector<std::string>{"q", "q", "q"});
    }
    CHECK(Tracked::live == 0);
}

TEST_CASE("SmallVector: a copy that throws leaves the target as it was and leaks nothing") {
    Tracked::live = 0;
    {
        SmallVector<Tracked, 2> source{Tracked("a"), Tracked("b"), Tracked("c")};
        SmallVector<Tracked, 2> target{Tracked("t")};
        Tracked::copies_left = 2; // the third copy throws
        CHECK_THROWS_WITH(target = source, "copy refused");
        Tracked::copies_left = 2;
        CHECK_THROWS_WITH((SmallVector<Tracked, 2>(source)), "copy refused");
        Tracked::copies_left = -1;
        CHECK(values(target) == std::vector<std::string>{"t"});
        CHECK(Tracked::live == 4);

        // A throwing element while growing: the vector keeps its elements.
        SmallVector<Tracked, 2> full{Tracked("a"), Tracked("b")};
        const Tracked extra("c");
        Tracked::copies_left = 0;
        CHECK_THROWS_WITH(full.push_back(extra), "copy refused");
        Tracked::copies_left = -1;
        CHECK(values(full) == std::vector<std::string>{"a", "b"});
        CHECK(full.is_inline());
    }
    CHECK(Tracked::live == 0);
}
