# Writes OUT: a C++ source defining NAME() that returns the bytes of the
# object file IN (built by the build's own Clang), to be linked in process.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n    " bytes "${bytes}")
file(WRITE "${OUT}.tmp" "// Generated from ${SOURCE_NAME} by embed_object.cmake. Do not edit.
#include <cstddef>
#include <string_view>

namespace weft::backend::cpu {

std::string_view ${NAME}() {
    static const unsigned char bytes[] = {
    ${bytes}};
    return {reinterpret_cast<const char *>(bytes), sizeof bytes};
}

} // namespace weft::backend::cpu
")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
