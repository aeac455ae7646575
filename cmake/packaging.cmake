# `cmake --install` and the Debian package (cpack -G DEB): Note [Installed layout] in
# src/util/install_layout.h says where each piece goes and how the binary finds it.

install(TARGETS torchtv RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS torchtv_torch LIBRARY DESTINATION ${TORCHTV_INSTALL_MODULEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/rules ${PROJECT_SOURCE_DIR}/fusions DESTINATION ${TORCHTV_INSTALL_DATADIR})
# The Python packages twice: the binary's own copy, which its captures put first on PYTHONPATH,
# and Debian's system Python's folder, for `import torchtv` (with PREFIX=/usr: the .deb).
foreach(python_dir ${TORCHTV_INSTALL_DATADIR}/python lib/python3/dist-packages)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/capture/torchtv ${PROJECT_SOURCE_DIR}/src/capture/torchtv_capture
          DESTINATION ${python_dir} PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
endforeach()

# The Debian package: torchtv_<version>_amd64.deb, installing under /usr.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME torchtv)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "torchtv maintainers <torchtv@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "translation validation of PyTorch graphs (reference vs production)")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The libraries the binary and the LibTorch module link (dpkg-shlibdeps reads their ELF headers):
# libtorch1.13 (TorchScript import, replay; only the module), libz3-4 (the prover), libsqlite3-0 and
# libhiredis (the proof cache), libzip4 (.pt2 archives), libspdlog/libfmt (logging), libstdc++/libc.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# What no ELF header names: the capture runs pair files with Debian's Python and torch, under
# bubblewrap for untrusted changes (`--sandbox`, the action's default for pull requests from forks).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-torch, bubblewrap")
# graphviz's `dot` draws the HTML report's graphs (without it the report says so and has none).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "graphviz")
# The build tree's debug line tables are not shipped.
set(CPACK_STRIP_FILES ON)
# Only the files above, not the build tree's tests or fuzz targets.
set(CPACK_INSTALL_CMAKE_PROJECTS "${CMAKE_BINARY_DIR};${PROJECT_NAME};ALL;/")
include(CPack)
