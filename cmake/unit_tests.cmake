# storbed_unit_tests(target): registers a unit test binary with ctest twice over.
# - Label `unit`: one ctest test per gtest test (gtest_discover_tests), for `ctest -R Name`
#   and a failure named by its test.
# - Label `shard`: the binary in STORBED_UNIT_SHARDS processes (gtest's GTEST_SHARD_INDEX),
#   what `make unit`, `make test` and `make sanitize` run. Starting a test binary costs more
#   than most of its tests: one process per test (1576) took 106 s and 149 s of CPU here, the
#   76 shards 71 s and 92 s (`ctest -j2`); under ASan 312 s against 112-132 s.
# Under STORBED_SANITIZE the shards leave out STORBED_SANITIZE_SKIP (cmake/sanitize.cmake).
set(STORBED_UNIT_SHARDS 4 CACHE STRING "Processes each unit test binary is split into")

function(storbed_unit_tests target)
  gtest_discover_tests(${target} PROPERTIES LABELS unit DISCOVERY_TIMEOUT 30)
  set(filter)
  if(STORBED_SANITIZE_SKIP)
    set(filter --gtest_filter=-${STORBED_SANITIZE_SKIP})
  endif()
  math(EXPR last "${STORBED_UNIT_SHARDS} - 1")
  foreach(index RANGE ${last})
    set(name ${target}.shard${index}of${STORBED_UNIT_SHARDS})
    add_test(NAME ${name} COMMAND ${target} ${filter})
    set_tests_properties(${name} PROPERTIES LABELS shard TIMEOUT 1500
      ENVIRONMENT "GTEST_TOTAL_SHARDS=${STORBED_UNIT_SHARDS};GTEST_SHARD_INDEX=${index}")
  endforeach()
  set_property(GLOBAL APPEND PROPERTY STORBED_UNIT_TEST_TARGETS ${target})
endfunction()
