# STORBED_SANITIZE=ON: every object under ASan+UBSan, for the unit tests and the fuzzers.
# UBSan stops at the first report (no recover) so a test that trips it fails instead of
# printing a line nobody reads. Under clang the objects also carry libFuzzer's coverage
# hooks (fuzzer-no-link): one build serves the unit tests and the fuzzers, and the hooks
# are no-ops in a binary that does not link libFuzzer.
# Every `make test` compiles this build, so it is tuned for compile time: at -O1 UBSan's
# checks double clang's time on an nlohmann-heavy file (result.cc: 44 s at -O1, 23 s at
# -O0 on this 2-core machine). Reports need only line tables, not full debug info.
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O0 -gline-tables-only")
set(CMAKE_C_FLAGS_RELWITHDEBINFO "-O0 -gline-tables-only")
set(STORBED_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
                           -fno-omit-frame-pointer)
add_compile_options(${STORBED_SANITIZE_FLAGS})
add_link_options(-fsanitize=address,undefined)
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  add_compile_options(-fsanitize=fuzzer-no-link)
  set(STORBED_FUZZ ON)
else()
  message(STATUS "storbed: ${CMAKE_CXX_COMPILER_ID} has no libFuzzer; fuzz targets skipped")
  set(STORBED_FUZZ OFF)
endif()
