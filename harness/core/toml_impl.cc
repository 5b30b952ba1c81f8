// The one translation unit that compiles toml++'s implementation (TOML_HEADER_ONLY=0 everywhere else).
// Building it ourselves keeps toml++ header-only for the mingw-w64 build too.
#define TOML_IMPLEMENTATION
#include <toml++/toml.h>
