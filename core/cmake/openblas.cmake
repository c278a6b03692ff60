# OpenBLAS from the scipy-openblas32 wheel (symbols carry a scipy_ prefix): asks the build's Python
# where the wheel keeps its headers and library and defines the imported target ember::openblas.
execute_process(
  COMMAND ${Python_EXECUTABLE} -c
    "import scipy_openblas32 as o, os; print(o.get_include_dir()); print(o.get_lib_dir()); print(os.path.join(o.get_lib_dir(), o.get_library(fullname=True)))"
  OUTPUT_VARIABLE _OB_OUT OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_VARIABLE _OB_ERR RESULT_VARIABLE _OB_RESULT)
if(NOT _OB_RESULT EQUAL 0)
  message(FATAL_ERROR "ember needs the scipy-openblas32 wheel at build time (pip install scipy-openblas32) "
                      "in the Python at ${Python_EXECUTABLE}:\n${_OB_ERR}")
endif()
string(REPLACE "\n" ";" _OB_OUT "${_OB_OUT}")
list(GET _OB_OUT 0 EMBER_OPENBLAS_INCLUDE_DIR)
list(GET _OB_OUT 1 EMBER_OPENBLAS_LIB_DIR)
list(GET _OB_OUT 2 EMBER_OPENBLAS_LIBRARY)
message(STATUS "OpenBLAS (scipy-openblas32): ${EMBER_OPENBLAS_LIBRARY}")

if(NOT TARGET ember::openblas)
  add_library(ember::openblas SHARED IMPORTED)
  set_target_properties(ember::openblas PROPERTIES
    IMPORTED_LOCATION "${EMBER_OPENBLAS_LIBRARY}"
    IMPORTED_NO_SONAME OFF
    INTERFACE_INCLUDE_DIRECTORIES "${EMBER_OPENBLAS_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "BLAS_SYMBOL_PREFIX=scipy_")
endif()

# At run time ember/__init__.py (ember/_openblas.py) loads the wheel's library before importing
# _C, wherever the wheel is importable, so the NEEDED entry resolves by soname. The consumer's
# INSTALL_RPATH (core/CMakeLists.txt, from EMBER_OPENBLAS_LIB_DIR) is the fallback for C++ users.
