#include "weft/registry/types.hpp"
#include "weft/support/error.hpp"

#include <catch2/catch.hpp>

using namespace weft;

TEST_CASE("built-in kernel type names parse to the expected types") {
    CHECK(parse_builtin_type("float32")->name() == "float32");
    CHECK(parse_builtin_type("float")->name() == "float32"); // Python's float is float32 in kernels
    CHECK(parse_builtin_type("int")->name() == "int32");
    CHECK(parse_builtin_type("wp.uint64")->name() == "uint64");
    CHECK(parse_builtin_type("warp.float16")->size() == 2);
    CHECK(parse_builtin_type("wp.bfloat16")->scalar_type() == Scalar::BFloat16);
    CHECK(parse_builtin_type("bfloat16")->size() == 2);
    CHECK(parse_builtin_type("bfloat16")->is_float());

    const auto v3 = parse_builtin_type("vec3");
    REQUIRE(v3);
    CHECK(v3->kind() == Type::Kind::Vector);
    CHECK(v3->rows() == 3);
    CHECK(v3->size() == 12);
    CHECK(v3->alignment() == 4);
    CHECK(parse_builtin_type("vec4d")->size() == 32);
    CHECK(parse_builtin_type("vec2i")->scalar_type() == Scalar::Int32);
    CHECK(parse_builtin_type("mat33")->size() == 36);
    CHECK(parse_builtin_type("mat44d")->size() == 128);
    CHECK(parse_builtin_type("quat")->size() == 16);
    CHECK(parse_builtin_type("quatd")->name() == "quatd");
}

TEST_CASE("unknown or malformed type names are not built-in types") {
    for (const char *bad : {"vec5", "vec", "mat3", "float31", "quati", "mat22i", "Vec3", "", "warp_test::Color"})
        CHECK_FALSE(parse_builtin_type(bad).has_value());
}

TEST_CASE("type codes identify types - names are for people") {
    CHECK(parse_builtin_type("float32")->code() == "f4");
    CHECK(parse_builtin_type("vec3")->code() == "v3f4");
    CHECK(parse_builtin_type("mat22d")->code() == "m22f8");
    CHECK(parse_builtin_type("bfloat16")->code() == "bf2");
    CHECK(Type::vector(Scalar::BFloat16, 3).code() == "v3bf2");
    CHECK(*parse_builtin_type("bfloat16") != *parse_builtin_type("float16"));
    CHECK(*parse_builtin_type("float") == *parse_builtin_type("float32"));
    CHECK(*parse_builtin_type("float32") != *parse_builtin_type("float64"));
    const Type a = Type::native("ns::T", "ntabc", 8, 4);
    const Type b = Type::native("ns::T", "ntabc", 8, 4);
    const Type c = Type::native("ns::T", "ntdef", 8, 4);
    CHECK(a == b);
    CHECK(a != c);
}

TEST_CASE("native names accept '.' as a separator") {
    CHECK(normalize_native_name("warp_test.Color") == "warp_test::Color");
    CHECK(normalize_native_name("a.b.C") == "a::b::C");
    CHECK(normalize_native_name("warp_test::Color") == "warp_test::Color");
}

TEST_CASE("type equality is code equality for every kind") {
    // operator== compares fields instead of codes (bench/frontend); it must
    // still say what comparing code() strings says.
    const Type f4 = Type::scalar(Scalar::Float32), i4 = Type::scalar(Scalar::Int32);
    auto fields = [](const Type &t) { return std::vector<StructLayout::Field>{{"x", t, 0}, {"y", t, 0}}; };
    const std::vector<Type> all{
        f4, i4, Type::scalar(Scalar::Float64),
        Type::vector(Scalar::Float32, 3), Type::vector(Scalar::Float32, 4), Type::vector(Scalar::Float64, 3),
        Type::matrix(Scalar::Float32, 3, 3), Type::matrix(Scalar::Float32, 3, 4), Type::matrix(Scalar::Float64, 3, 3),
        Type::quaternion(Scalar::Float32), Type::quaternion(Scalar::Float64),
        Type::native("ns::T", "ntabc", 8, 4), Type::native("ns::U", "ntabc", 8, 4), Type::native("ns::T", "ntdef", 8, 4),
        Type::array(f4, 1), Type::array(f4, 2), Type::array(i4, 1),
        Type::structure(StructLayout::make("S", fields(f4))), Type::structure(StructLayout::make("S", fields(f4))),
        Type::structure(StructLayout::make("S", fields(i4))), Type::structure(StructLayout::make("R", fields(f4))),
        Type::tuple({f4, i4}), Type::tuple({f4, i4}), Type::tuple({i4, f4}), Type::tuple({f4}),
        Type::void_type(), Type::string()};
    for (const Type &a : all)
        for (const Type &b : all) {
            INFO(a.code() << " vs " << b.code());
            CHECK((a == b) == (a.code() == b.code()));
        }
}

TEST_CASE("a type's kind-specific record is read only through its own kind, and copies share it") {
    // One pointer holds a native type's record, an array's dtype, a tuple's
    // elements or a struct's layout (Type is 32 bytes): reading it as
    // another kind's must fail loudly, not reinterpret the record.
    const Type f4 = Type::scalar(Scalar::Float32);
    const Type native = Type::native("ns::T", "ntabc", 12, 4);
    const Type arr = Type::array(f4, 2);
    const Type tup = Type::tuple({f4, Type::scalar(Scalar::Int32)});
    const Type st = Type::structure(StructLayout::make("S", {{"x", f4, 0}, {"y", native, 0}}));

    CHECK(native.native_name() == "ns::T");
    CHECK(native.code() == "ntabc");
    CHECK(native.size() == 12);
    CHECK(native.alignment() == 4);
    CHECK(f4.native_name().empty());
    CHECK(arr.native_name().empty());
    CHECK(arr.element() == f4);
    CHECK(arr.elements().size() == 1);
    CHECK(tup.elements().size() == 2);
    CHECK(tup.elements()[1].name() == "int32");
    CHECK(st.layout().fields.size() == 2);
    CHECK(st.layout().fields[1].type == native);
    CHECK(st.size() == 16); // float32 at 0, ns::T (align 4) at 4

    CHECK_THROWS_AS(f4.elements(), InternalError);
    CHECK_THROWS_AS(native.element(), InternalError);
    CHECK_THROWS_AS(st.elements(), InternalError);
    CHECK_THROWS_AS(arr.layout(), InternalError);
    CHECK_THROWS_AS(native.layout(), InternalError);
    CHECK_THROWS_WITH(tup.layout(), Catch::Contains("tuple(float32, int32)"));

    // A copy shares the record: a struct's layout pointer is the same object.
    const Type st_copy = st;
    CHECK(st_copy.layout_ptr().get() == &st.layout());
    CHECK(&st_copy.layout() == st.layout_ptr().get());
    const Type native_copy = native;
    CHECK(&native_copy.native_name() == &native.native_name());
    CHECK(native_copy == native);
    CHECK(native == Type::native("ns::Other", "ntabc", 12, 4)); // equal codes: the same type
}
