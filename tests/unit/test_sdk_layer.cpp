// The C++ SDK layer's compile-time side: layouts and kernel type names come
// from the compiler. (Its run-time side is exercised by every test plugin.)
#include <weft/plugin.hpp>

#include <catch2/catch.hpp>

#include <cstdint>

namespace sdk_test {
struct Vec {
    float x, y, z;
};
struct Mixed {
    std::uint8_t tag;
    double value;
    Vec v;
};
} // namespace sdk_test
WEFT_KERNEL_TYPE(sdk_test::Vec, "sdk_test::Vec")

TEST_CASE("NativeType takes size, alignment and offsets from the compiler") {
    using sdk_test::Mixed;
    weft::plugin::NativeType<Mixed> t("sdk_test::Mixed",
                                      {WEFT_FIELD(Mixed, tag), WEFT_FIELD(Mixed, value), WEFT_FIELD(Mixed, v)});
    CHECK(t.size() == sizeof(Mixed));
    CHECK(t.alignment() == alignof(Mixed));
    REQUIRE(t.declared().size() == 3);
    CHECK(t.declared()[0].offset == 0);
    CHECK(t.declared()[1].offset == offsetof(Mixed, value));
    CHECK(t.declared()[1].offset == 8);
    CHECK(t.declared()[2].size == 12);
    // Kernel types deduced from member types, the plugin's own types included.
    CHECK(t.declared()[0].type == "uint8");
    CHECK(t.declared()[1].type == "float64");
    CHECK(t.declared()[2].type == "sdk_test::Vec");
    t.expose_all().aggregate();
    REQUIRE(t.exposed().size() == 3);
    CHECK(t.exposed()[2] == std::pair<std::string, std::string>{"v", "sdk_test::Vec"});
    CHECK(t.initializer() == WEFT_INITIALIZER_AGGREGATE);
}

TEST_CASE("kernel type names for C++ scalars") {
    using weft::plugin::kernel_type_name;
    CHECK(std::string(kernel_type_name<float>()) == "float32");
    CHECK(std::string(kernel_type_name<double>()) == "float64");
    CHECK(std::string(kernel_type_name<std::int64_t>()) == "int64");
    CHECK(std::string(kernel_type_name<const std::uint16_t>()) == "uint16");
    CHECK(weft::plugin::result_type_name<void>() == nullptr);
    CHECK(weft::plugin::detail::has_kernel_type<sdk_test::Vec>::value);
    CHECK_FALSE(weft::plugin::detail::has_kernel_type<sdk_test::Mixed>::value);
}

TEST_CASE("descriptor helpers set struct_size") {
    const auto d = weft::plugin::make_desc<weft_builtin_desc>();
    CHECK(d.struct_size == sizeof(weft_builtin_desc));
    CHECK(d.name == nullptr);
    CHECK(d.param_count == 0);
}
