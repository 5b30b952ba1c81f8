// Registry secrets: a volatile key the harness creates with one value, the token to find in the output; RAII removal.
#include "harness/host/win/registry_secret.h"

#include <windows.h>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/platform/win/unique_hkey.h"
#include "harness/platform/win/win_util.h"
#include "shared/own_token.h"

namespace breakout {

namespace {

// The value's data as the harness reads it back (evidence only; bounded: the probe may have
// replaced it with anything).
std::optional<std::wstring> read_back(HKEY root, const std::wstring& subkey) {
  wchar_t data[1024] = {};
  DWORD size = sizeof(data) - sizeof(wchar_t);  // room for a terminator RegGetValueW may need to add
  if (::RegGetValueW(root, subkey.c_str(), kSecretValueName, RRF_RT_REG_SZ, nullptr, data, &size) != ERROR_SUCCESS)
    return std::nullopt;
  return std::wstring(data);
}

class RegistrySecret : public HostObject {
 public:
  RegistrySecret(HKEY root, std::string root_name, std::wstring subkey, std::string secret)
      : root_(root), root_name_(std::move(root_name)), subkey_(std::move(subkey)), secret_(std::move(secret)) {
    UniqueHkey key;
    DWORD disposition = 0;
    // Volatile: held in memory only, so a harness killed before its destructor leaves no canary
    // behind past logoff (HKCU) or shutdown (HKLM) (Microsoft Learn, "RegCreateKeyExW", REG_OPTION_VOLATILE).
    const LSTATUS st = ::RegCreateKeyExW(root_, subkey_.c_str(), 0, nullptr, REG_OPTION_VOLATILE, KEY_SET_VALUE, nullptr,
                                         key.out(), &disposition);
    if (st != ERROR_SUCCESS) win::throw_last_error("RegCreateKeyExW " + path(), static_cast<DWORD>(st));
    created_ = disposition == REG_CREATED_NEW_KEY;
    check(created_, "exists", path() + " exists already: not the harness's key");
    const std::wstring w = win::wide(secret_);
    const LSTATUS set = ::RegSetValueExW(key.get(), kSecretValueName, 0, REG_SZ, reinterpret_cast<const BYTE*>(w.c_str()),
                                         static_cast<DWORD>((w.size() + 1) * sizeof(wchar_t)));
    if (set != ERROR_SUCCESS) {  // no destructor runs for a half-made object: remove the key here
      ::RegDeleteKeyW(root_, subkey_.c_str());
      win::throw_last_error("RegSetValueExW " + path() + "\\secret", static_cast<DWORD>(set));
    }
  }
  ~RegistrySecret() override {
    // Best effort: a destructor cannot report, and inspect() already judged.
    if (created_) {
      ::RegDeleteTreeW(root_, subkey_.c_str());
      ::RegDeleteKeyW(root_, subkey_.c_str());
    }
  }
  std::string spec() const override { return path(); }
  HostEvidence inspect() override {
    HostEvidence e;
    e.token = secret_;  // seen in the output = the value was read: nothing else holds it
    const std::optional<std::wstring> now = read_back(root_, subkey_);
    const bool intact = now && win::narrow(*now) == secret_;
    e.evidence["registry_key"] = path();
    e.evidence["registry_value"] = "secret";
    e.evidence["registry_secret_intact"] = intact;  // evidence only: a read class judges the output
    e.summary = path() + "\\secret holds " + (secret_.rfind(kOwnTokenPrefix, 0) == 0 ? "the own token" : "a canary") +
                (intact ? "" : " (no longer intact afterwards)");
    return e;
  }

 private:
  std::string path() const { return root_name_ + "\\" + win::narrow(subkey_); }

  HKEY root_;
  std::string root_name_;
  std::wstring subkey_;
  std::string secret_;
  bool created_ = false;
};

}  // namespace

std::unique_ptr<HostObject> make_registry_secret(const std::string& name, const HostObjectSetup& s) {
  const std::wstring tag = win::wide(s.nonce.substr(0, 8));
  if (name == "hkcu-secret")
    return std::make_unique<RegistrySecret>(HKEY_CURRENT_USER, "HKCU", L"Software\\breakout-secret-" + tag, canary_token());
  if (name == "hklm-secret")
    return std::make_unique<RegistrySecret>(HKEY_LOCAL_MACHINE, "HKLM", L"Software\\breakout-secret-" + tag, canary_token());
  if (name == "reg-grant-read")
    return std::make_unique<RegistrySecret>(HKEY_CURRENT_USER, "HKCU", L"Software\\breakout-grant-read-" + tag,
                                            own_token(s.nonce));
  throw Error("unknown registry secret " + name);
}

std::optional<std::string> registry_secret_unavailable(const std::string& name) {
  if (name != "hklm-secret") return std::nullopt;
  // Asks for the right to create a subkey without creating one. HKLM\Software grants it to
  // Administrators and SYSTEM only, so an unelevated harness is refused here (Microsoft Learn,
  // "Registry Key Security and Access Rights", KEY_CREATE_SUB_KEY).
  UniqueHkey key;
  const LSTATUS st = ::RegOpenKeyExW(HKEY_LOCAL_MACHINE, L"Software", 0, KEY_CREATE_SUB_KEY, key.out());
  if (st == ERROR_SUCCESS) return std::nullopt;
  return "the harness cannot create the machine-wide secret under HKLM\\Software (" +
         win::last_error_text("RegOpenKeyExW KEY_CREATE_SUB_KEY", static_cast<DWORD>(st)) +
         "): run breakout elevated to plant it";
}

}  // namespace breakout
