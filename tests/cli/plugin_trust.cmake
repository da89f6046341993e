cmake_minimum_required(VERSION 3.20)
# weft plugin sign|verify|digest and --trust on a copy of a test plugin, with
# keys made by the openssl command line as docs/plugin-trust.md says.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/keys ${WORK}/plugin)
file(GLOB files ${PLUGIN}/*)
file(COPY ${files} DESTINATION ${WORK}/plugin)
function(expect_rc want_rc out_re err_re)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REPLACE "\n" " " flat "${out}")
  string(REPLACE "\n" " " flat_err "${err}")
  if(NOT rc EQUAL want_rc OR NOT flat MATCHES "${out_re}" OR NOT flat_err MATCHES "${err_re}")
    message(FATAL_ERROR "command: ${ARGN}\nexit ${rc}, expected ${want_rc}\nexpected stdout: ${out_re}\n"
      "expected stderr: ${err_re}\n--- stdout ---\n${out}\n--- stderr ---\n${err}")
  endif()
endfunction()
expect_rc(0 "" "" openssl genpkey -algorithm ed25519 -out ${WORK}/signer.pem)
expect_rc(0 "" "" openssl pkey -in ${WORK}/signer.pem -pubout -out ${WORK}/keys/signer.pem)

expect_rc(0 "^signed wt_color 1\\.2\\.0: [^ ]*/plugin/plugin\\.toml\\.sig \\(key [0-9a-f]+; manifest, library and 0 other files\\) $" ""
  ${WEFT} plugin sign --key ${WORK}/signer.pem ${WORK}/plugin)
expect_rc(0 "^ok +wt_color 1\\.2\\.0 \\(signed by signer\\.pem\\) 1 plugin: 1 ok, 0 refused \\(policy 'signed'\\) $" ""
  ${WEFT} plugin verify --trusted-keys ${WORK}/keys ${WORK}/plugin)
expect_rc(0 "^plugin wt_color 1\\.2\\.0" "" ${WEFT} plugin inspect --trust signed --trusted-keys ${WORK}/keys ${WORK}/plugin)

# The allow-list is what `plugin digest` prints.
execute_process(COMMAND ${WEFT} plugin digest ${WORK}/plugin OUTPUT_FILE ${WORK}/allowed.txt RESULT_VARIABLE rc)
file(READ ${WORK}/allowed.txt allowed)
if(NOT rc EQUAL 0 OR NOT allowed MATCHES "^[0-9a-f]+  # wt_color 1\\.2\\.0 ")
  message(FATAL_ERROR "plugin digest: exit ${rc}: ${allowed}")
endif()
expect_rc(0 "^plugin wt_color" "" ${WEFT} plugin inspect --trust allow-list --allow-list ${WORK}/allowed.txt ${WORK}/plugin)
expect_rc(0 "^ok +wt_color 1\\.2\\.0 1 plugin: 1 ok, 0 refused \\(policy 'allow-list'\\) $" "" ${WEFT} plugin verify --allow-list ${WORK}/allowed.txt ${WORK}/plugin)
expect_rc(1 "" "weft: error: nothing to verify against: give --trusted-keys DIR or --allow-list FILE" ${WEFT} plugin verify ${WORK}/plugin)
# A configuration file says the same.
file(WRITE ${WORK}/weft.toml "[plugins]\ntrust = \"signed\"\ntrusted_keys = \"keys\"\n")
expect_rc(0 "^plugin wt_color" "" ${WEFT} plugin inspect --config ${WORK}/weft.toml ${WORK}/plugin)

expect_rc(0 "ok +wt_color 1\\.2\\.0 +1 plugin: 1 ok" "" ${WEFT} plugin check --isolate --trust signed --trusted-keys ${WORK}/keys ${WORK}/plugin)

# Keys or a list named without --trust state the policy on every command
# (issue 39: they were ignored, and an unsigned plugin loaded).
file(MAKE_DIRECTORY ${WORK}/plugin/include)
file(WRITE ${WORK}/plugin/include/extra.h "inline int extra() { return 1; }\n")
expect_rc(1 "^REFUSED +wt_color: refused by trust policy 'signed': the file include/extra\\.h is not covered by the signature \\(added since\\) \\([^ ]*/plugin/include/extra\\.h\\)" ""
  ${WEFT} plugin verify --trusted-keys ${WORK}/keys ${WORK}/plugin)
expect_rc(1 "" "weft: error: plugin 'wt_color': refused by trust policy 'signed': the file include/extra\\.h is not covered"
  ${WEFT} plugin inspect --trusted-keys ${WORK}/keys ${WORK}/plugin)
expect_rc(1 "FAILED +wt_color: plugin 'wt_color': refused by trust policy 'allow-list'" ""
  ${WEFT} plugin check --allow-list ${WORK}/allowed.txt ${WORK}/plugin)
expect_rc(1 "" "plugin 'wt_color': refused by trust policy 'signed'"
  ${WEFT} check ${KERNEL} --plugin ${WORK}/plugin --trusted-keys ${WORK}/keys)
expect_rc(1 "" "plugin 'wt_color': refused by trust policy 'signed'"
  ${WEFT} build ${KERNEL} --plugin ${WORK}/plugin --trusted-keys ${WORK}/keys --output-dir ${WORK}/out --cache-dir ${WORK}/cache)
expect_rc(1 "" "weft: error: plugin trust policy 'any' loads every plugin, but trusted keys \\([^)]*/keys\\) are named: set the policy to 'signed' to check them, or name none"
  ${WEFT} plugin inspect --trust any --trusted-keys ${WORK}/keys ${WORK}/plugin)
expect_rc(1 "" "weft: error: trusted keys \\([^)]*/keys\\) and an allow-list are named but no plugin trust policy"
  ${WEFT} plugin inspect --trusted-keys ${WORK}/keys --allow-list ${WORK}/allowed.txt ${WORK}/plugin)
file(REMOVE_RECURSE ${WORK}/plugin/include)
expect_rc(0 "^ok +wt_color" "" ${WEFT} plugin verify --trusted-keys ${WORK}/keys ${WORK}/plugin)

# The manifest edited after signing: refused by both policies, naming the file.
file(READ ${WORK}/plugin/plugin.toml manifest)
string(REPLACE "description = \"" "description = \"Edited. " manifest "${manifest}")
file(WRITE ${WORK}/plugin/plugin.toml "${manifest}")
expect_rc(1 "^REFUSED +wt_color: refused by trust policy 'signed': the manifest does not match its signature \\(sha256 [0-9a-f]+, signed [0-9a-f]+\\) \\([^ ]*/plugin/plugin\\.toml\\) 1 plugin: 0 ok, 1 refused" ""
  ${WEFT} plugin verify --trusted-keys ${WORK}/keys ${WORK}/plugin)
expect_rc(1 "" "weft: error: plugin 'wt_color': refused by trust policy 'signed': the manifest does not match its signature"
  ${WEFT} plugin inspect --trust signed --trusted-keys ${WORK}/keys ${WORK}/plugin)
expect_rc(1 "" "weft: error: plugin 'wt_color': refused by trust policy 'allow-list': its digest [0-9a-f]+ \\(manifest [^ ]*/plugin/plugin\\.toml and this library\\) is not on the allow-list"
  ${WEFT} plugin inspect --trust allow-list --allow-list ${WORK}/allowed.txt ${WORK}/plugin)
# `plugin check --isolate` takes the policy into its helper process.
expect_rc(1 "FAILED +wt_color: plugin 'wt_color': refused by trust policy 'signed': the manifest does not match its signature"
  "" ${WEFT} plugin check --isolate --trust signed --trusted-keys ${WORK}/keys ${WORK}/plugin)
