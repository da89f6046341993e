# Writes OUT: a C++ source holding every runtime header (HEADERS, relative to
# ROOT) as text, so generated code compiles against exactly the headers this
# libweft was built with, wherever it is installed.
set(body "")
foreach(rel ${HEADERS})
  file(READ ${ROOT}/${rel} text)
  string(APPEND body "    {\"${rel}\", R\"weft_rt_text(${text})weft_rt_text\"},\n")
endforeach()
file(WRITE ${OUT}.tmp "// Generated from host/rt/include by embed_runtime_headers.cmake. Do not edit.
#include \"weft/codegen/runtime_headers.hpp\"

namespace weft::codegen {

const std::vector<EmbeddedHeader> &runtime_headers() {
    static const std::vector<EmbeddedHeader> headers{
${body}    };
    return headers;
}

} // namespace weft::codegen
")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
