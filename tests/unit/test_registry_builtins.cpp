#include "test_support.hpp"

#include "weft/support/error.hpp"
#include "weft/registry/registry.hpp"

#include <catch2/catch.hpp>

#include <thread>

using namespace weft;
using weft::test::message_of;

namespace {

BuiltinSpec spec(std::string name, std::vector<ParameterSpec> params, std::string result, std::string native) {
    return BuiltinSpec{std::move(name), std::move(params), std::move(result), std::move(native), "", {}};
}

NamespacePolicy policy(std::vector<std::string> builtins, std::vector<std::string> native) {
    return NamespacePolicy{std::move(builtins), std::move(native)};
}

/// Registers one builtin for `owner` and commits; returns what the registry answered.
BuiltinOverload add(Registry &r, const std::string &owner, const BuiltinSpec &s,
                    std::optional<NamespacePolicy> p = std::nullopt) {
    auto tx = r.begin(owner, std::move(p));
    BuiltinOverload o = tx.add_builtin(s);
    tx.commit();
    return o;
}

} // namespace

TEST_CASE("native names split into namespace and function as in the seed") {
    CHECK(split_native_name("external::square") == std::pair<std::string, std::string>{"external::", "square"});
    CHECK(split_native_name("::g") == std::pair<std::string, std::string>{"::", "g"});
    CHECK(split_native_name("a::b::f") == std::pair<std::string, std::string>{"a::b::", "f"});
    CHECK(split_native_name("plain") == std::pair<std::string, std::string>{"", "plain"});

    Registry r;
    const BuiltinOverload o = add(r, "p", spec("square", {{"x", "float32"}}, "float32", "external::square"));
    CHECK(o.native_namespace == "external::");
    CHECK(o.native_function == "square");
    CHECK(add(r, "p", spec("g", {}, "", "::g")).native_namespace == "::");
}

TEST_CASE("qualified names follow the seed's regular expression") {
    for (const char *ok : {"external::square", "::foo", "a::b::f", "_x", "f2", "A_1::b_2::_c9"})
        CHECK(is_qualified_name(ok));
    for (const char *bad : {"not-valid", "external::bad-name", "a:::b", "a::", "::", "2f", "a b", "", "a::2b", "a:b",
                            ":a", "a::b:", "::::a", "a::::b", "a::b ", "::2", "a::b\xc3\xa9", "\xc3\xa9::f"})
        CHECK_FALSE(is_qualified_name(bad));
}

TEST_CASE("identifiers are ASCII letters, digits and underscores, not starting with a digit") {
    for (const char *ok : {"f", "_", "_x9", "Abc_09", "z", "a1b2c3d4e5f6g7h8i9"}) CHECK(is_identifier(ok));
    // Every position is checked, the last ones included; bytes past ASCII are never identifier characters.
    for (const char *bad : {"", "9f", "f-", "a b", "ab.", "abcdefghijklmnopqrstuvwxy!", "caf\xc3\xa9", "\xff", "x\x7f"})
        CHECK_FALSE(is_identifier(bad));
    CHECK_FALSE(is_identifier(std::string_view("ab\0c", 4)));
}

TEST_CASE("builtin names and native names are validated") {
    Registry r;
    auto tx = r.begin("p");
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("not-valid", {}, "", "ns::f")); }),
               Catch::Contains("builtin name 'not-valid' is not a valid identifier"));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("f", {}, "", "external::bad-name")); }),
               Catch::Contains("native name 'external::bad-name' is not a valid qualified C++ identifier"));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("f", {{"my-x", "float32"}}, "", "ns::f")); }),
               Catch::Contains("parameter 1 name 'my-x' is not a valid identifier"));
    CHECK_THAT(message_of<RegistrationError>(
                   [&] { tx.add_builtin(spec("f", {{"x", "float32"}, {"x", "int32"}}, "", "ns::f")); }),
               Catch::Contains("parameter name 'x' appears twice"));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("lambda", {}, "", "ns::f")); }),
               Catch::Contains("reserved keyword"));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("f", {{"x", "float31"}}, "", "ns::f")); }),
               Catch::Contains("parameter 'x': unknown kernel type 'float31'"));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("f", {}, "warp_test::Nope", "ns::f")); }),
               Catch::Contains("result: unknown kernel type 'warp_test::Nope'"));
}

TEST_CASE("the default native name is weft::<name>") {
    Registry r;
    const BuiltinOverload o = add(r, "core", spec("twice", {{"x", "float32"}}, "float32", ""));
    CHECK(o.native_name == "weft::twice");
    CHECK(o.native_namespace == "weft::");
    CHECK(o.native_function == "twice");
}

TEST_CASE("external builtins are not differentiable, hidden, and void results are allowed") {
    Registry r;
    const BuiltinOverload o = add(r, "plugin_x", spec("ext_log", {{"msg", "int32"}}, "", "ext::log"));
    CHECK(o.external);
    CHECK(o.hidden);
    CHECK_FALSE(o.differentiable);
    CHECK_FALSE(o.result.has_value());
    CHECK(o.signature() == "ext_log(msg: int32) -> void");
    const BuiltinOverload core = add(r, "core", spec("twice", {{"x", "float32"}}, "float32", ""));
    CHECK_FALSE(core.external);
    CHECK(core.differentiable);
}

TEST_CASE("identical re-registration returns the existing function - a second owner shares it") {
    Registry r;
    const auto s = spec("_same_f", {{"x", "float32"}}, "float32", "same::f");
    add(r, "a", s);
    const BuiltinOverload again = add(r, "a", s);
    CHECK(again.owners == std::vector<std::string>{"a"});
    const BuiltinOverload shared = add(r, "b", s);
    CHECK(shared.owners == std::vector<std::string>{"a", "b"});
    REQUIRE(r.overloads("_same_f").size() == 1);
    CHECK(r.overloads("_same_f")[0].owners == std::vector<std::string>{"a", "b"});
}

TEST_CASE("float -> double under the same signature is rejected naming both owners") {
    Registry r;
    add(r, "conflict_a", spec("_cf_value", {{"x", "float32"}}, "float32", "conflict::value"));
    auto tx = r.begin("conflict_b");
    const std::string msg = message_of<RegistrationError>(
        [&] { tx.add_builtin(spec("_cf_value", {{"x", "float32"}}, "float64", "conflict::value")); });
    CHECK_THAT(msg, Catch::Contains("conflicting builtin overload _cf_value(x: float32) -> float64"));
    CHECK_THAT(msg, Catch::Contains("from plugin 'conflict_b'"));
    CHECK_THAT(msg, Catch::Contains("plugin 'conflict_a' registered _cf_value(x: float32) -> float32"));
    CHECK_THAT(msg, Catch::Contains("result type float32 vs float64"));
}

TEST_CASE("a different native target for the same signature is rejected") {
    Registry r;
    add(r, "a", spec("_f", {{"x", "float32"}}, "float32", "a::f"));
    auto tx = r.begin("b");
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("_f", {{"x", "float32"}}, "float32", "b::f")); }),
               Catch::Contains("native target a::f vs b::f"));
}

TEST_CASE("parameter names are part of the overload's identity") {
    Registry r;
    add(r, "a", spec("_f", {{"x", "float32"}}, "float32", "a::f"));
    auto tx = r.begin("b");
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("_f", {{"y", "float32"}}, "float32", "a::f")); }),
               Catch::Contains("parameter 1 named 'x' vs 'y'"));
    // Parameter order defines a different overload, not a conflict.
    tx.add_builtin(spec("_g", {{"a", "float32"}, {"b", "int32"}}, "float32", "a::g"));
    tx.add_builtin(spec("_g", {{"b", "int32"}, {"a", "float32"}}, "float32", "a::g"));
    tx.commit();
    CHECK(r.overloads("_g").size() == 2);
}

TEST_CASE("overloads on an existing name, a core builtin included, are allowed") {
    Registry r;
    register_core_builtins(r);
    const auto core_adds = r.overloads("add").size();
    REQUIRE(core_adds > 4);
    auto tx = r.begin("vendor", policy({"vendor_"}, {"vendor::"}));
    tx.add_native_type(NativeTypeSpec{"vendor::Money", 8, 8, {{"cents", 0, 8, 0}}, {{"cents", "int64"}},
                                      Initializer::Aggregate, "", false, ""});
    tx.add_builtin(spec("add", {{"a", "vendor::Money"}, {"b", "vendor::Money"}}, "vendor::Money", "vendor::add"));
    tx.commit();
    CHECK(r.overloads("add").size() == core_adds + 1);
    CHECK(r.overloads("add").back().owners == std::vector<std::string>{"vendor"});
    // Same types as a core overload, other result: a conflict with core.
    auto tx2 = r.begin("vendor", policy({"vendor_"}, {"vendor::"}));
    CHECK_THAT(message_of<RegistrationError>(
                   [&] { tx2.add_builtin(spec("add", {{"a", "float32"}, {"b", "float32"}}, "float32", "vendor::add")); }),
               Catch::Contains("core registered add(a: float32, b: float32) -> float32 [native weft::add]"));
}

TEST_CASE("deferred core builtins are registered on first use, once, as an eager registration would be") {
    Registry eager;
    register_core_builtins(eager);
    const std::size_t core_count = eager.builtin_count();
    const std::size_t core_adds = eager.overloads("add").size();
    REQUIRE(core_adds > 4);

    SECTION("a lookup, a listing or a count registers them") {
        Registry r;
        r.defer_core_builtins();
        CHECK(r.has_builtin("sin"));
        CHECK(r.overloads("add").size() == core_adds);
        CHECK(r.builtin_count() == core_count);
        CHECK(r.builtin_names() == eager.builtin_names());
        // Once: looking again registers nothing more.
        CHECK(r.builtin_count() == core_count);
    }
    SECTION("a plugin's transaction sees them: an overload of core's add needs no prefix") {
        Registry r;
        r.defer_core_builtins();
        auto tx = r.begin("vendor", policy({"vendor_"}, {"vendor::"}));
        tx.add_builtin(spec("add", {{"a", "int8"}, {"b", "int8"}, {"c", "int8"}}, "int8", "vendor::add3"));
        tx.commit();
        CHECK(r.overloads("add").size() == core_adds + 1);
        CHECK(r.builtin_count() == core_count + 1);
    }
    SECTION("threads that look up at once wait for one registration") {
        Registry r;
        r.defer_core_builtins();
        std::vector<std::size_t> seen(8);
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < seen.size(); ++i)
            threads.emplace_back([&, i] { seen[i] = r.overloads("add").size(); });
        for (std::thread &t : threads) t.join();
        for (std::size_t n : seen) CHECK(n == core_adds);
        CHECK(r.builtin_count() == core_count);
    }
    SECTION("a cleared registry stays empty") {
        Registry r;
        r.defer_core_builtins();
        r.clear();
        CHECK(r.builtin_count() == 0);
        CHECK_FALSE(r.has_builtin("add"));
    }
    SECTION("deferring is for an empty registry") {
        Registry r;
        add(r, "app", spec("app_f", {}, "", "app::f"));
        CHECK_THAT(message_of<InternalError>([&] { r.defer_core_builtins(); }),
                   Catch::Contains("core builtins are deferred before anything is registered"));
    }
}

TEST_CASE("namespace policy: new names only under the owned prefixes") {
    Registry r;
    register_core_builtins(r);
    auto tx = r.begin("warp_test", policy({"_test_"}, {"warp_test::"}));
    tx.add_builtin(spec("_test_ok", {}, "", "warp_test::ok"));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("stolen", {}, "", "warp_test::stolen")); }),
               Catch::Contains("builtin 'stolen': name is outside the builtin prefixes plugin 'warp_test' owns ('_test_')"));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("_test_f", {}, "", "other::f")); }),
               Catch::Contains("native name 'other::f' is outside the native prefixes plugin 'warp_test' owns ('warp_test::')"));
    // The default native name weft::<name> belongs to core, not to plugins.
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("_test_g", {}, "", "")); }),
               Catch::Contains("native name 'weft::_test_g' is outside"));
    const auto kind = [&] {
        try {
            tx.add_builtin(spec("stolen", {}, "", "warp_test::stolen"));
        } catch (const RegistrationError &e) {
            return e.kind();
        }
        return RegistrationError::Kind::Invalid;
    }();
    CHECK(kind == RegistrationError::Kind::Namespace);
}

TEST_CASE("a rejected call stages nothing and a dropped transaction leaves the registry untouched") {
    Registry r;
    {
        auto tx = r.begin("p");
        tx.add_builtin(spec("_p_a", {}, "", "p::a"));
        CHECK_THROWS_AS(tx.add_builtin(spec("bad-name", {}, "", "p::b")), RegistrationError);
        CHECK(tx.staged_builtin_count() == 1);
        CHECK_FALSE(r.has_builtin("_p_a")); // staged, not committed
    }
    CHECK_FALSE(r.has_builtin("_p_a"));
    CHECK(r.builtin_count() == 0);
    // The registry is usable afterwards.
    add(r, "q", spec("_q_a", {}, "", "q::a"));
    CHECK(r.has_builtin("_q_a"));
}

TEST_CASE("a conflict inside one transaction is reported as such") {
    Registry r;
    auto tx = r.begin("p");
    tx.add_builtin(spec("_f", {{"x", "int32"}}, "int32", "p::f"));
    CHECK_NOTHROW(tx.add_builtin(spec("_f", {{"x", "int32"}}, "int32", "p::f")));
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_builtin(spec("_f", {{"x", "int32"}}, "int64", "p::f")); }),
               Catch::Contains("in the same init"));
}

TEST_CASE("find_overload matches parameter types exactly") {
    Registry r;
    register_core_builtins(r);
    const Type f32 = r.parse_type("float32");
    const Type f64 = r.parse_type("float64");
    const BuiltinOverload *o = r.find_overload("add", {f64, f64});
    REQUIRE(o);
    CHECK(o->signature() == "add(a: float64, b: float64) -> float64");
    CHECK(r.find_overload("add", {f32, f64}) == nullptr);
    CHECK(r.find_overload("nonexistent", {f32}) == nullptr);
}

TEST_CASE("identity covers parameter names, type codes, result, namespace and function") {
    Registry r;
    const BuiltinOverload o =
        add(r, "p", spec("_f", {{"a", "float32"}, {"b", "vec3"}}, "float64", "ns::inner::fn"));
    CHECK(o.identity() == "_f(a:f4,b:v3f4,)->f8@ns::inner::fn");
    CHECK(add(r, "p", spec("_v", {}, "", "::v")).identity() == "_v()->void@::v");
}

TEST_CASE("repeating an identical registration inside one init records it once") {
    Registry r;
    add(r, "a", spec("_f", {{"x", "float32"}}, "float32", "p::f"));
    auto tx = r.begin("b");
    tx.add_builtin(spec("_f", {{"x", "float32"}}, "float32", "p::f"));
    tx.add_builtin(spec("_f", {{"x", "float32"}}, "float32", "p::f"));
    tx.add_builtin(spec("_g", {}, "", "p::g"));
    tx.add_builtin(spec("_g", {}, "", "p::g"));
    CHECK(tx.staged_builtin_count() == 2);
    tx.commit();
    CHECK(r.overloads("_f")[0].owners == std::vector<std::string>{"a", "b"});
    CHECK(r.overloads("_g").size() == 1);
}

TEST_CASE("commit returns what the owner registered, in call order, as the registry's records") {
    Registry r;
    add(r, "a", spec("_shared", {{"x", "float32"}}, "float32", "p::s"));
    auto tx = r.begin("b");
    const BuiltinOverload &first = tx.add_builtin(spec("_b_one", {}, "", "b::one"));
    tx.add_builtin(spec("_shared", {{"x", "float32"}}, "float32", "p::s"));
    tx.add_builtin(spec("_b_one", {{"x", "int32"}}, "", "b::one_i")); // a second overload of a new name
    tx.add_builtin(spec("_b_one", {}, "", "b::one"));                 // repeated: recorded once
    CHECK(first.native_name == "b::one"); // a staged record stays put until commit
    const OverloadList list = tx.commit();
    CHECK(tx.staged_builtin_count() == 0); // moved into the registry, not copied
    REQUIRE(list.size() == 3);
    std::vector<std::string> natives;
    for (const BuiltinOverload &o : list) natives.push_back(o.native_name);
    CHECK(natives == std::vector<std::string>{"b::one", "p::s", "b::one_i"});
    CHECK(&list[0] == &r.overloads("_b_one")[0]);
    CHECK(&list[1] == &r.overloads("_shared")[0]);
    CHECK(&list[2] == &r.overloads("_b_one")[1]);
    CHECK(list[1].owners == std::vector<std::string>{"a", "b"});
    CHECK(r.builtin_count() == 3);

    // An owner registering again what it owns: listed, and owned once.
    auto again = r.begin("a");
    again.add_builtin(spec("_shared", {{"x", "float32"}}, "float32", "p::s"));
    const OverloadList second = again.commit();
    REQUIRE(second.size() == 1);
    CHECK(&second[0] == &r.overloads("_shared")[0]);
    CHECK(second[0].owners == std::vector<std::string>{"a", "b"});

    // The records are live: a later owner sharing one shows in the earlier list.
    add(r, "c", spec("_b_one", {}, "", "b::one"));
    CHECK(list[0].owners == std::vector<std::string>{"b", "c"});
    CHECK_THROWS_AS(list[3], std::out_of_range);
    r.clear();
    CHECK_THAT(message_of<InternalError>([&] { (void)list[0]; }), Catch::Contains("after Registry::clear()"));
    CHECK(OverloadList().empty());
}

TEST_CASE("registering builtins compares each one only with the overloads of its own name") {
    // Every registration used to be compared with every overload staged before
    // it: 100,000 builtins took 42 s. bench/registry measures the time.
    Registry r;
    auto tx = r.begin("many", policy({"_m_"}, {"m::"}));
    constexpr std::size_t n = 20000;
    for (std::size_t i = 0; i < n; ++i)
        tx.add_builtin(spec("_m_f" + std::to_string(i), {{"x", "float32"}}, "float32", "m::f" + std::to_string(i)));
    for (std::size_t i = 0; i < 4; ++i) // four overloads of one name: each compared with its own name only
        tx.add_builtin(spec("_m_over", {{"x", i % 2 ? "float32" : "int32"}, {"y", i < 2 ? "float32" : "float64"}},
                            "float32", "m::over" + std::to_string(i)));
    CHECK(tx.overloads_compared() == 0);
    // The index still finds what is staged: an identical call is one, a different target a conflict.
    CHECK(tx.add_builtin(spec("_m_f7", {{"x", "float32"}}, "float32", "m::f7")).native_name == "m::f7");
    CHECK_THAT(message_of<RegistrationError>(
                   [&] { tx.add_builtin(spec("_m_f9", {{"x", "float32"}}, "float32", "m::other")); }),
               Catch::Contains("conflicting builtin overload _m_f9(x: float32) -> float32") &&
                   Catch::Contains("in the same init"));
    CHECK(tx.overloads_compared() == 2);
    CHECK(tx.staged_builtin_count() == n + 4);
    tx.commit();
    CHECK(r.overloads("_m_over").size() == 4);
    CHECK(r.overloads("_m_f19999").size() == 1);
    // A second owner sharing one of them compares with that name's overload only.
    auto tx2 = r.begin("again", policy({"_m_"}, {"m::"}));
    tx2.add_builtin(spec("_m_f5", {{"x", "float32"}}, "float32", "m::f5"));
    tx2.add_builtin(spec("_m_f5", {{"x", "float32"}}, "float32", "m::f5"));
    CHECK(tx2.overloads_compared() == 2);
    CHECK(tx2.staged_builtin_count() == 1);
}

TEST_CASE("records stay where they are while hundreds more are staged and committed") {
    // add_builtin's reference is valid until commit and overloads()'s until
    // the name gets another overload, however the registry stores records:
    // hundreds of others staged or committed meanwhile must not move them,
    // and a rejected call among them drops its own slot only.
    Registry r;
    auto tx = r.begin("p", policy({"_p_"}, {"p::"}));
    const BuiltinOverload &first = tx.add_builtin(spec("_p_f0", {{"x", "float32"}}, "float32", "p::f0"));
    for (int i = 1; i < 64; ++i)
        tx.add_builtin(spec("_p_f" + std::to_string(i), {{"x", "float32"}}, "float32", "p::f" + std::to_string(i)));
    CHECK_THROWS_AS(tx.add_builtin(spec("_q_f64", {}, "", "p::f64")), RegistrationError); // outside the prefixes
    CHECK(tx.staged_builtin_count() == 64);
    for (int i = 64; i < 300; ++i)
        tx.add_builtin(spec("_p_f" + std::to_string(i), {{"x", "float32"}}, "float32", "p::f" + std::to_string(i)));
    CHECK(first.name == "_p_f0");
    CHECK(first.native_name == "p::f0");
    const OverloadList mine = tx.commit();
    REQUIRE(mine.size() == 300);
    CHECK(mine[64].native_name == "p::f64");
    const BuiltinOverload *kept = &r.overloads("_p_f0")[0];
    const BuiltinOverload *last = &r.overloads("_p_f299")[0];

    auto more = r.begin("q", policy({"_q_"}, {"q::"}));
    for (int i = 0; i < 500; ++i)
        more.add_builtin(spec("_q_f" + std::to_string(i), {{"x", "int32"}}, "", "q::f" + std::to_string(i)));
    more.commit();
    CHECK(&r.overloads("_p_f0")[0] == kept);
    CHECK(&r.overloads("_p_f299")[0] == last);
    CHECK(kept->native_name == "p::f0");
    CHECK(last->params.size() == 1);
    CHECK(r.overloads("_q_f499")[0].native_name == "q::f499");
    CHECK(r.builtin_count() == 800);
    CHECK(r.builtin_names().size() == 800);
}
