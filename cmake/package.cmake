# What `make install` and the Debian package (`make package`: CPack, DEB) hold: storbed, the
# static storbed-agent, the bundled scenarios, the docs, man pages and bash completion generated
# by storbed itself (`storbed manpage`, `storbed completion`), and the image cache directory.
include(GNUInstallDirs)

install(TARGETS storbed storbed-agent RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/scenarios/ DESTINATION ${CMAKE_INSTALL_DATADIR}/storbed/scenarios
        FILES_MATCHING PATTERN "*.json")
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md")
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/cmake/debian/copyright
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Generated from the built storbed and storbed-agent, so they cannot drift from their --help
# and the field table.
set(STORBED_GENERATED_DOCS ${CMAKE_BINARY_DIR}/generated-docs)
add_custom_command(
  OUTPUT ${STORBED_GENERATED_DOCS}/stamp
  COMMAND ${CMAKE_SOURCE_DIR}/cmake/generate_docs.sh $<TARGET_FILE:storbed>
          $<TARGET_FILE:storbed-agent> ${STORBED_GENERATED_DOCS} ${CMAKE_SOURCE_DIR}/cmake/debian/changelog
  DEPENDS storbed storbed-agent ${CMAKE_SOURCE_DIR}/cmake/generate_docs.sh
          ${CMAKE_SOURCE_DIR}/cmake/debian/changelog
  COMMENT "man pages and bash completion from storbed and storbed-agent")
add_custom_target(generated-docs ALL DEPENDS ${STORBED_GENERATED_DOCS}/stamp)
install(DIRECTORY ${STORBED_GENERATED_DOCS}/man1 DESTINATION ${CMAKE_INSTALL_MANDIR})
install(FILES ${STORBED_GENERATED_DOCS}/storbed
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${STORBED_GENERATED_DOCS}/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The package owns the image cache (storbed uses it when run as root and it exists).
install(DIRECTORY DESTINATION /var/cache/storbed)
install(FILES ${CMAKE_SOURCE_DIR}/cmake/debian/lintian-overrides
        DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME storbed)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME storbed)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "storbed maintainers <maintainers@users.noreply.a-seed-02392a50.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "QEMU/KVM virtual-machine storage testbed")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "storbed boots minimal guests under QEMU (directly or through libvirt) with\n virtio-blk or NVMe disks, runs its agent's IO jobs in them and on the bare\n host, and reports queue depth and latency layer by layer against bare metal,\n with calibrated verdicts for A/B comparisons and nightly histories.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.org/storbed")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The programs storbed runs: QEMU and qemu-img for every guest, mkfs.ext4 for filesystem
# targets; what only some scenarios use is recommended.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qemu-system-x86, qemu-utils, e2fsprogs")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libvirt-daemon-system, xfsprogs, genisoimage, linux-image-amd64")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "fio")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/cmake/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
include(CPack)
