# Writes version.cc with the checkout's git revision at build time, not only at configure
# time: a manifest, the environment fingerprint and `--version` name the revision that was
# built. configure_file leaves an unchanged file alone, so nothing recompiles until HEAD moves.
#   cmake -DSOURCE_DIR=... -DIN=version.cc.in -DOUT=.../version.cc -DPROJECT_VERSION=... -P git_revision.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE STORBED_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT STORBED_GIT_REVISION)
  set(STORBED_GIT_REVISION "unknown")
endif()
configure_file(${IN} ${OUT} @ONLY)
