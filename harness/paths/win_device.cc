// Win32 names with a meaning of their own: legacy DOS devices and 8.3 short names.
#include <algorithm>
#include <array>

#include "harness/paths/win_path.h"

namespace breakout::winpath {

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

// "Naming Files, Paths, and Namespaces": "Do not use the following reserved names for the
// name of a file: CON, PRN, AUX, NUL, COM1 ... COM9, COM¹, COM², COM³, LPT1 ... LPT9, LPT¹,
// LPT², and LPT³. Also avoid these names followed immediately by an extension; for example,
// NUL.txt and NUL.tar.gz are both equivalent to NUL." RtlIsDosDeviceName_U also ignores
// trailing spaces and a ':' suffix, and knows CONIN$ and CONOUT$ (Forshaw, "DOS device paths").
std::string dos_device(std::string_view component) {
  std::string_view base = component.substr(0, std::min(component.find_first_of(".:"), component.size()));
  while (!base.empty() && base.back() == ' ') base.remove_suffix(1);
  const std::string u = upper(base);
  for (const char* name : {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"})
    if (u == name) return u;
  if (u.size() < 4 || (u.compare(0, 3, "COM") != 0 && u.compare(0, 3, "LPT") != 0)) return "";
  const std::string_view digit = std::string_view(u).substr(3);
  if (digit.size() == 1 && digit[0] >= '1' && digit[0] <= '9') return u;
  // ISO 8859-1 superscripts in UTF-8: "¹" C2 B9, "²" C2 B2, "³" C2 B3.
  for (const std::string_view sup : {"\xc2\xb9", "\xc2\xb2", "\xc2\xb3"})
    if (digit == sup) return u;
  return "";
}

// 8.3 aliases (GetShortPathNameW): up to six characters, '~', a number, an optional
// extension of up to three. Any long name of the directory may own one, so the
// model cannot say which without the volume.
bool may_be_short_name(std::string_view c) {
  const std::size_t tilde = c.find('~');
  if (tilde == std::string_view::npos || tilde == 0 || tilde > 6) return false;
  std::size_t i = tilde + 1;
  const std::size_t digits_from = i;
  while (i < c.size() && c[i] >= '0' && c[i] <= '9') ++i;
  if (i == digits_from || i - digits_from > 6) return false;
  if (i == c.size()) return true;
  return c[i] == '.' && c.size() - i - 1 <= 3 && c.find('.', i + 1) == std::string_view::npos;
}

}  // namespace breakout::winpath
