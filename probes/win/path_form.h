// Aiming a Windows fs probe through a path form: asks the system what harness/paths/win_spell.h needs and plants the links.
//
//   FormAim aim(r, form, link);                  // --form NAME [--link L]; "": the path as given
//   std::wstring p;
//   if (!aim.spell(target, &p)) { r.emit(); return r.exit_code(); }   // unavailable, or planting failed (in the report)
//   ... the operation on p ...
//   aim.after_op();                              // under Wine: a failure through the form is "unavailable"
//
// Report fields: "form", "spelled"; when the form cannot apply here, "form_state":
// "unavailable" and "form_reason" (the harness skips the attempt when, besides, nothing
// changed outside: harness/attempt/observe.cc). Planting happens inside the workspace
// path the harness passed as --link; the object-manager link lives as long as this object.
//
// Windows only (mingw-w64).
#pragma once

#include <string>

#include "harness/paths/win_spell.h"
#include "probes/common/win32.h"

namespace breakout::probe {

class FormAim {
 public:
  FormAim(ProbeReport& r, std::string form, std::string link);
  FormAim(const FormAim&) = delete;
  FormAim& operator=(const FormAim&) = delete;

  // The spelling of `target` (WTF-8, drive-absolute) to hand the operation; false when the
  // form is unavailable or planting its link failed (both already in the report).
  bool spell(const std::string& target, std::wstring* out);
  // After the operation: Wine enforces no boundary, so there a failure through a form means
  // Wine does not resolve it; the form is reported unavailable with the error (docs/windows.md).
  void after_op();

 private:
  bool plant(const winpath::Spelling& s);
  void unavailable(const std::string& why);

  ProbeReport& r_;
  std::string form_;
  std::string link_;
  UniqueHandle object_link_;  // the \RPC Control symbolic link: a temporary object, gone with its last handle
};

// The Wine version ntdll reports (ntdll!wine_get_version), "" on Windows.
std::string wine_version();

}  // namespace breakout::probe
