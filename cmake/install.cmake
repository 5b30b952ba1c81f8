# `cmake --install` and CPack (docs/install.md). The layout the binary expects
# (harness/cli/install_layout.h):
#   bin/breakout                         the command
#   libexec/breakout/breakout-probe-*    the probes (not on the user's PATH)
#   share/breakout/{scenarios,spawners,drivers}   suites, policies, attempts, profiles, the driver kit
#   share/doc/breakout/                  README and docs/
# The same tree goes into the .deb (under /usr), the .tar.gz and the Windows zip.
set(BREAKOUT_INSTALL_PROBESDIR libexec/breakout)
set(BREAKOUT_INSTALL_DATADIR share/breakout)

install(TARGETS breakout RUNTIME DESTINATION bin COMPONENT runtime)
install(DIRECTORY scenarios DESTINATION ${BREAKOUT_INSTALL_DATADIR} COMPONENT runtime)
# The profiles and the pins of the npm-installed sandboxes (package.json + lock), never node_modules:
# `npm ci --prefix <prefix>/share/breakout/spawners/tools` installs Codex and srt where the profiles look.
install(DIRECTORY spawners DESTINATION ${BREAKOUT_INSTALL_DATADIR} COMPONENT runtime
        PATTERN node_modules EXCLUDE)
install(DIRECTORY drivers DESTINATION ${BREAKOUT_INSTALL_DATADIR} COMPONENT runtime
        PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(FILES README.md DESTINATION share/doc/breakout COMPONENT runtime)
install(DIRECTORY docs/ DESTINATION share/doc/breakout COMPONENT runtime)

set(CPACK_PACKAGE_NAME breakout)
set(CPACK_PACKAGE_VENDOR "breakout")
set(CPACK_PACKAGE_CONTACT "breakout maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "security test harness and escape-fuzzing suite for sandboxed process spawners")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_INSTALL_DIRECTORY breakout)
set(CPACK_STRIP_FILES ON)
if(WIN32)
  set(CPACK_GENERATOR ZIP)
  set(CPACK_SYSTEM_NAME windows-x86_64)
else()
  set(CPACK_GENERATOR "DEB;TGZ")
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # the .deb installs under /usr (DEB default); the .tar.gz has bin/ at its top
  set(CPACK_DEBIAN_PACKAGE_SECTION utils)
  # What the binary links (ldd build/bin/breakout) and what running a suite needs: python3 for the
  # reference driver and the driver kit; the sandboxes under test are recommended, not required.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.36), libstdc++6 (>= 12), libgcc-s1, libsqlite3-0, python3")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bubblewrap, iproute2, acl, attr")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "firejail, socat, ripgrep, nodejs, npm")
endif()
include(CPack)
