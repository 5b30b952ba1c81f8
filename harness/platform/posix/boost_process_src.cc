// The one translation unit that compiles Boost.Process v2's out-of-line code (src.hpp).
//
// Every TU that includes Boost.Process v2 headers must see the same two macros,
// or the ODR breaks (process_v2::filesystem would be boost::filesystem in one TU
// and std::filesystem in another). posix/run_process.cc defines them identically.
#ifndef BOOST_PROCESS_V2_SEPARATE_COMPILATION
#define BOOST_PROCESS_V2_SEPARATE_COMPILATION 1
#endif
#ifndef BOOST_PROCESS_USE_STD_FS
#define BOOST_PROCESS_USE_STD_FS 1
#endif

// Boost 1.81's process/v2 headers use these without including them.
#include <boost/optional.hpp>
#include <boost/type_traits.hpp>

#include <boost/process/v2/src.hpp>
