// remove_at: readdir and unlinkat below an O_NOFOLLOW directory descriptor, depth first.
#include "harness/platform/posix/remove_at.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

namespace breakout::paths {

void remove_at(int dirfd, const char* name) {
  if (::unlinkat(dirfd, name, 0) == 0 || (errno != EISDIR && errno != EPERM)) return;
  const int fd = ::openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return;
  }
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(d))
    if (std::string_view(e->d_name) != "." && std::string_view(e->d_name) != "..") names.emplace_back(e->d_name);
  for (const auto& n : names) remove_at(::dirfd(d), n.c_str());
  ::closedir(d);
  ::unlinkat(dirfd, name, AT_REMOVEDIR);
}

}  // namespace breakout::paths
