# Writes OUT: a C++ source whose function NAMESPACE::FUNCTION() returns the
# text of IN, so that libweft carries the file wherever it runs.
file(READ ${IN} text)
file(WRITE ${OUT}.tmp "// Generated from ${NAME} by embed_text.cmake. Do not edit.
#include <string_view>

namespace ${NAMESPACE} {

std::string_view ${FUNCTION}() {
    return R\"weft_text(${text})weft_text\";
}

} // namespace ${NAMESPACE}
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
