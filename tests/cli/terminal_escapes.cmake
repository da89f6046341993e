cmake_minimum_required(VERSION 3.20)
# Text from manifests, signature files and allow-lists never reaches the
# terminal raw (issue 39): every message the tool prints goes through one
# escaping function. Each command below echoes a field carrying escape
# sequences; its output must hold no ESC or BEL byte, and the escaped form.
string(ASCII 27 ESC)
string(ASCII 7 BEL)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/keys ${WORK}/plugin)
file(GLOB files ${PLUGIN}/*)
file(COPY ${files} DESTINATION ${WORK}/plugin)
function(expect_clean want_rc want_re)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(all "${out}${err}")
  string(FIND "${all}" "${ESC}" esc_at)
  string(FIND "${all}" "${BEL}" bel_at)
  string(REPLACE "\n" " " flat "${all}")
  if(NOT rc EQUAL want_rc OR NOT esc_at EQUAL -1 OR NOT bel_at EQUAL -1 OR NOT flat MATCHES "${want_re}")
    message(FATAL_ERROR "command: ${ARGN}\nexit ${rc}, expected ${want_rc}; ESC at ${esc_at}, BEL at ${bel_at}\n"
      "expected: ${want_re}\n--- output ---\n${all}")
  endif()
endfunction()
execute_process(COMMAND openssl genpkey -algorithm ed25519 -out ${WORK}/signer.pem RESULT_VARIABLE rc)
execute_process(COMMAND openssl pkey -in ${WORK}/signer.pem -pubout -out ${WORK}/keys/signer.pem RESULT_VARIABLE rc2)
if(NOT rc EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "openssl could not make a key")
endif()

# A signature file whose key line sets the window title and clears the screen.
file(SHA256 ${WORK}/plugin/plugin.toml manifest_sha)
file(READ ${WORK}/plugin/plugin.toml manifest)
string(REGEX MATCH "library = \"([^\"]*)\"" _ "${manifest}")
file(SHA256 ${WORK}/plugin/${CMAKE_MATCH_1} library_sha)
string(REPEAT "0" 128 zeros)
file(WRITE ${WORK}/plugin/plugin.toml.sig "weft-plugin-signature 2\nmanifest-sha256 ${manifest_sha}\nlibrary-sha256 ${library_sha}\nkey ${ESC}]0;pwned${BEL}${ESC}[2J\nsignature ${zeros}\n")
expect_clean(1 "REFUSED +wt_color: refused by trust policy 'signed': signed by key \\\\x1B\\]0;pwned\\\\x07\\\\x1B\\[2J, which is not among"
  ${WEFT} plugin verify --trusted-keys ${WORK}/keys ${WORK}/plugin)
expect_clean(1 "signed by key \\\\x1B\\]0;pwned"
  ${WEFT} plugin inspect --trusted-keys ${WORK}/keys ${WORK}/plugin)

# An allow-list line that is an escape sequence.
file(WRITE ${WORK}/allowed.txt "${ESC}[2J${ESC}[31m\n")
expect_clean(1 "allowed\\.txt:1: '\\\\x1B\\[2J\\\\x1B\\[31m' is not a plugin digest"
  ${WEFT} plugin inspect --allow-list ${WORK}/allowed.txt ${WORK}/plugin)

# A manifest whose library field carries escape sequences.
file(REMOVE ${WORK}/plugin/plugin.toml.sig)
string(REGEX REPLACE "library = \"[^\"]*\"" "library = \"lib\\\\u001b[31mred\\\\u0007.so\"" manifest "${manifest}")
file(WRITE ${WORK}/plugin/plugin.toml "${manifest}")
expect_clean(1 "lib\\\\x1B\\[31mred\\\\x07\\.so"
  ${WEFT} plugin inspect ${WORK}/plugin)
expect_clean(1 "lib\\\\x1B\\[31mred\\\\x07\\.so"
  ${WEFT} plugin check ${WORK}/plugin)
