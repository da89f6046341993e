#include "test_support.hpp"

#include "weft/support/error.hpp"
#include "weft/registry/registry.hpp"

#include <catch2/catch.hpp>

using namespace weft;
using weft::test::message_of;

namespace {

NativeTypeSpec color_spec() {
    NativeTypeSpec s;
    s.native_name = "warp_test::Color";
    s.size = 12;
    s.alignment = 4;
    s.fields = {{"r", 0, 4, 0}, {"g", 4, 4, 0}, {"b", 8, 4, 0}};
    s.exposed = {{"r", "float32"}, {"g", "float32"}, {"b", "float32"}};
    s.initializer = Initializer::Aggregate;
    return s;
}

NativeTypeInfo add(Registry &r, const std::string &owner, const NativeTypeSpec &s) {
    auto tx = r.begin(owner);
    NativeTypeInfo t = tx.add_native_type(s);
    tx.commit();
    return t;
}

std::string rejection(const NativeTypeSpec &s) {
    Registry r;
    auto tx = r.begin("p");
    return message_of<RegistrationError>([&] { tx.add_native_type(s); });
}

} // namespace

TEST_CASE("a native type registers with its schema code") {
    Registry r;
    const NativeTypeInfo t = add(r, "wt_color", color_spec());
    CHECK(t.code.size() == 18);
    CHECK(t.code.substr(0, 2) == "nt");
    CHECK(t.digest.size() == 64);
    CHECK(t.code.substr(2) == t.digest.substr(0, 16));
    CHECK_FALSE(t.opaque());
    REQUIRE(r.native_type("warp_test::Color"));
    CHECK(r.native_type("warp_test.Color") == r.native_type("warp_test::Color"));
    CHECK(r.parse_type("warp_test.Color").code() == t.code);
    CHECK(r.parse_type("warp_test::Color").size() == 12);
    CHECK(t.describe() == "size 12, align 4, aggregate, fields r: float32 @0, g: float32 @4, b: float32 @8");
}

TEST_CASE("an exposed field that is not declared is rejected") {
    NativeTypeSpec s = color_spec();
    s.initializer = Initializer::None;
    s.exposed.push_back({"a", "float32"});
    CHECK_THAT(rejection(s), Catch::Contains("native type 'warp_test::Color': exposed field 'a' is not a declared field"));
}

TEST_CASE("an int16-sized field exposed as int32 is rejected") {
    NativeTypeSpec s;
    s.native_name = "warp_test::Short";
    s.size = 4;
    s.alignment = 2;
    s.fields = {{"v", 0, 2, 0}, {"w", 2, 2, 0}};
    s.exposed = {{"v", "int32"}};
    CHECK_THAT(rejection(s), Catch::Contains("exposed field 'v': its storage is 2 bytes but kernel type int32 is 4 bytes"));
}

TEST_CASE("bit-fields are rejected") {
    NativeTypeSpec s;
    s.native_name = "warp_test::Flags";
    s.size = 4;
    s.alignment = 4;
    s.fields = {{"bits", 0, 4, 3}};
    CHECK_THAT(rejection(s), Catch::Contains("field 'bits' is a bit-field (3 bits); bit-field layouts are not supported"));
}

TEST_CASE("an aggregate must expose every declared field in declaration order") {
    SECTION("reordered") {
        NativeTypeSpec s = color_spec();
        s.exposed = {{"g", "float32"}, {"r", "float32"}, {"b", "float32"}};
        CHECK_THAT(rejection(s), Catch::Contains("initializer=aggregate requires every declared field exposed in "
                                                 "declaration order; exposed field 1 is 'g', declared field 1 is 'r'"));
    }
    SECTION("partial") {
        NativeTypeSpec s = color_spec();
        s.exposed.pop_back();
        CHECK_THAT(rejection(s), Catch::Contains("field 'b' is not exposed"));
    }
    SECTION("no fields at all") {
        NativeTypeSpec s = color_spec();
        s.exposed.clear();
        CHECK_THAT(rejection(s), Catch::Contains("field 'r' is not exposed"));
    }
    SECTION("without the aggregate policy, a partial exposure is fine") {
        NativeTypeSpec s = color_spec();
        s.exposed.pop_back();
        s.initializer = Initializer::None;
        CHECK(rejection(s).empty());
    }
}

TEST_CASE("layout facts are checked") {
    NativeTypeSpec s = color_spec();
    s.alignment = 3;
    CHECK_THAT(rejection(s), Catch::Contains("alignment 3 is not a power of two"));
    s = color_spec();
    s.size = 10;
    s.alignment = 4;
    CHECK_THAT(rejection(s), Catch::Contains("size 10 is not a multiple of its alignment 4"));
    s = color_spec();
    s.fields[2].offset = 10;
    CHECK_THAT(rejection(s), Catch::Contains("field 'b' at offset 10 with size 4 extends past the type's size 12"));
    s = color_spec();
    s.fields[1].name = "r";
    CHECK_THAT(rejection(s), Catch::Contains("field 'r' is declared twice"));
    s = color_spec();
    s.native_name = "warp_test::Bad-Name";
    CHECK_THAT(rejection(s), Catch::Contains("is not a valid qualified C++ identifier"));
    s = color_spec();
    s.native_name = "vec3";
    CHECK_THAT(rejection(s), Catch::Contains("the name is a built-in kernel type"));
}

TEST_CASE("the same schema through two different descriptors is accepted with the same code") {
    Registry r;
    const NativeTypeInfo first = add(r, "a", color_spec());
    // Another descriptor object, with another doc string, from another owner.
    NativeTypeSpec other = color_spec();
    other.doc = "reloaded";
    const NativeTypeInfo second = add(r, "b", other);
    CHECK(second.code == first.code);
    CHECK(r.native_type_count() == 1);
    CHECK(r.native_type("warp_test::Color")->owners == std::vector<std::string>{"a", "b"});
}

TEST_CASE("the same name with another schema is a different definition, naming both owners") {
    Registry r;
    add(r, "wt_color", color_spec());
    NativeTypeSpec doubles = color_spec();
    doubles.size = 24;
    doubles.alignment = 8;
    doubles.fields = {{"r", 0, 8, 0}, {"g", 8, 8, 0}, {"b", 16, 8, 0}};
    doubles.exposed = {{"r", "float64"}, {"g", "float64"}, {"b", "float64"}};
    auto tx = r.begin("other_color");
    const std::string msg = message_of<RegistrationError>([&] { tx.add_native_type(doubles); });
    CHECK_THAT(msg, Catch::Contains("native type 'warp_test::Color' has a different definition"));
    CHECK_THAT(msg, Catch::Contains("plugin 'wt_color' registered size 12"));
    CHECK_THAT(msg, Catch::Contains("plugin 'other_color' registers size 24"));
    // A different initializer policy alone is a different schema.
    NativeTypeSpec plain = color_spec();
    plain.initializer = Initializer::None;
    CHECK_THAT(message_of<RegistrationError>([&] { tx.add_native_type(plain); }),
               Catch::Contains("different definition"));
}

TEST_CASE("nested native types are exposed by type code") {
    Registry r;
    auto tx = r.begin("wt");
    const NativeTypeInfo color = tx.add_native_type(color_spec());
    NativeTypeSpec pixel;
    pixel.native_name = "warp_test::Pixel";
    pixel.size = 16;
    pixel.alignment = 4;
    pixel.fields = {{"color", 0, 12, 0}, {"index", 12, 4, 0}};
    pixel.exposed = {{"color", "warp_test::Color"}, {"index", "int32"}};
    pixel.initializer = Initializer::Aggregate;
    const NativeTypeInfo p = tx.add_native_type(pixel); // Color is only staged: the transaction resolves it
    tx.commit();
    REQUIRE(p.exposed.size() == 2);
    CHECK(p.exposed[0].type.code() == color.code);
    CHECK(p.exposed[0].offset == 0);
    CHECK(p.exposed[1].offset == 12);

    // A nested type of the same name but another schema changes the outer schema.
    Registry r2;
    auto tx2 = r2.begin("wt");
    NativeTypeSpec color2 = color_spec();
    color2.initializer = Initializer::None;
    tx2.add_native_type(color2);
    const NativeTypeInfo p2 = tx2.add_native_type(pixel);
    CHECK(p2.code != p.code);
}

TEST_CASE("an opaque type has no exposed fields") {
    Registry r;
    NativeTypeSpec image;
    image.native_name = "warp_test::Image";
    image.size = 8;
    image.alignment = 8;
    image.fields = {{"handle", 0, 8, 0}};
    const NativeTypeInfo t = add(r, "wt", image);
    CHECK(t.opaque());
    CHECK(t.describe() == "size 8, align 8, no initializer, opaque");
}

TEST_CASE("padded types keep their real size") {
    Registry r;
    NativeTypeSpec padded;
    padded.native_name = "warp_test::Padded";
    padded.size = 8;
    padded.alignment = 4;
    padded.fields = {{"tag", 0, 1, 0}, {"value", 4, 4, 0}};
    padded.exposed = {{"tag", "uint8"}, {"value", "uint32"}};
    padded.initializer = Initializer::Aggregate;
    const NativeTypeInfo t = add(r, "wt", padded);
    CHECK(t.size == 8);
    CHECK(t.exposed[1].offset == 4);
}

TEST_CASE("a differentiable native type's declaration is checked at registration") {
    Registry r;
    NativeTypeSpec spec;
    spec.native_name = "acme::Mixed";
    spec.size = 8;
    spec.alignment = 4;
    spec.fields = {{"x", 0, 4, 0}, {"n", 4, 4, 0}};
    spec.exposed = {{"x", "float32"}, {"n", "int32"}};
    spec.differentiable = true;
    {
        auto t = r.begin("acme");
        CHECK_THROWS_WITH(t.add_native_type(spec),
                          Catch::Contains("native type 'acme::Mixed': differentiable, but exposed field 'n' is int32"));
        spec.exposed = {};
        CHECK_THROWS_WITH(t.add_native_type(spec), Catch::Contains("a differentiable native type needs exposed fields"));
        spec.exposed = {{"x", "float32"}};
        spec.differentiable = false;
        spec.adjoint_accumulate = "acme::acc";
        CHECK_THROWS_WITH(t.add_native_type(spec),
                          Catch::Contains("adjoint_accumulate is given but the type is not differentiable"));
        spec.adjoint_accumulate.clear();
        CHECK(t.add_native_type(spec).code.rfind("nt", 0) == 0);
        t.commit();
    }
    // The same type declared differentiable is another schema: a conflict.
    spec.differentiable = true;
    auto t = r.begin("acme2");
    CHECK_THROWS_WITH(t.add_native_type(spec), Catch::Contains("has a different definition"));
}
