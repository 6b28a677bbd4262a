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
# The unit tests its shards leave out (a gtest filter; cmake/unit_tests.cmake). The statistical
# calibrations (suites named *Calibration: thousands of seeded comparisons) run in the
# optimised build only: at -O0 under ASan they took 2400 of the 3050 s of CPU here, and the
# code they drive is the code compare's and gate's own unit tests run here. So do the three
# history tests that import sessions of 1500 runs to be killed or cut off mid-write (115,
# 115 and 46 s of the 416 s here): the import code they drive runs under the sanitizers in
# the other writer tests, on sessions of a few runs.
set(STORBED_SANITIZE_SKIP *Calibration.*:*AWriterKilledMidImport*:*AConnectionDroppedMidImport*)
