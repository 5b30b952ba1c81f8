// Registry host objects: bounded value snapshots of one HKCU key before and after, diffed; RAII cleanup.
#include "harness/host/win/registry_key.h"

#include <windows.h>

#include <cstring>
#include <map>
#include <optional>
#include <vector>


#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/sha256.h"
#include "harness/core/text.h"
#include "harness/platform/win/unique_hkey.h"
#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

// Hostile-input bounds: a sandbox may fill the key before the harness reads it back.
constexpr DWORD kMaxValues = 1024;
constexpr DWORD kMaxData = 64 * 1024;  // bytes of one value's data read back (longer: digest of what was read)

struct RegValue {
  DWORD type = 0;
  std::string data;  // raw bytes, at most kMaxData
  bool operator==(const RegValue&) const = default;
};
using RegValues = std::map<std::wstring, RegValue>;

// The key's values; nullopt when the key does not exist (or cannot be opened).
std::optional<RegValues> snapshot_values(const std::wstring& subkey) {
  UniqueHkey key;
  if (::RegOpenKeyExW(HKEY_CURRENT_USER, subkey.c_str(), 0, KEY_QUERY_VALUE, key.out()) != ERROR_SUCCESS)
    return std::nullopt;
  RegValues out;
  for (DWORD i = 0; i < kMaxValues; ++i) {
    wchar_t name[16384];  // value names: at most 16383 characters (Microsoft Learn, "Registry Element Size Limits")
    DWORD name_len = static_cast<DWORD>(std::size(name));
    std::string data(kMaxData, '\0');
    DWORD data_len = kMaxData;
    RegValue v;
    LSTATUS st = ::RegEnumValueW(key.get(), i, name, &name_len, nullptr, &v.type,
                                 reinterpret_cast<BYTE*>(data.data()), &data_len);
    if (st == ERROR_NO_MORE_ITEMS) break;
    if (st == ERROR_MORE_DATA) {  // too long to keep: its name and type still count, its data as a marker
      name_len = static_cast<DWORD>(std::size(name));  // the name is undefined after ERROR_MORE_DATA: ask again
      st = ::RegEnumValueW(key.get(), i, name, &name_len, nullptr, &v.type, nullptr, nullptr);
      if (st != ERROR_SUCCESS) win::throw_last_error("RegEnumValueW", static_cast<DWORD>(st));
      data = "<more than 64 KiB>";
      data_len = static_cast<DWORD>(data.size());
    } else if (st != ERROR_SUCCESS) {
      win::throw_last_error("RegEnumValueW", static_cast<DWORD>(st));
    }
    data.resize(data_len);
    v.data = std::move(data);
    out[std::wstring(name, name_len)] = std::move(v);
  }
  return out;
}

std::string utf16le(const std::string& ascii) {
  std::string out;
  for (char c : ascii) out += {c, '\0'};
  return out;
}

bool holds(const RegValue& v, const std::string& nonce) {
  return v.data.find(nonce) != std::string::npos || v.data.find(utf16le(nonce)) != std::string::npos;
}

// Data for the record: REG_SZ as text, anything else as its length and digest.
std::string describe(const RegValue& v) {
  if ((v.type == REG_SZ || v.type == REG_EXPAND_SZ) && v.data.size() % 2 == 0) {
    std::wstring w(v.data.size() / 2, L'\0');
    std::memcpy(w.data(), v.data.data(), w.size() * 2);
    while (!w.empty() && w.back() == L'\0') w.pop_back();
    return printable_excerpt(win::narrow(w), 256);
  }
  return "type " + std::to_string(v.type) + ", " + std::to_string(v.data.size()) + " bytes, sha256 " +
         sha256_hex(v.data).substr(0, 16);
}

class RegistryKey : public HostObject {
 public:
  // exclusive: the key is the harness's alone, so every difference is the probe's.
  RegistryKey(std::wstring subkey, bool create, bool exclusive, const HostObjectSetup& s)
      : subkey_(std::move(subkey)), exclusive_(exclusive), nonce_(s.nonce),
        value_name_(L"breakout-" + win::wide(s.nonce.substr(0, 8))) {
    UniqueHkey key;
    DWORD disposition = 0;
    const LSTATUS st = ::RegCreateKeyExW(HKEY_CURRENT_USER, subkey_.c_str(), 0, nullptr, REG_OPTION_NON_VOLATILE,
                                         KEY_SET_VALUE, nullptr, key.out(), &disposition);
    if (st != ERROR_SUCCESS) win::throw_last_error("RegCreateKeyExW HKCU\\" + win::narrow(subkey_), static_cast<DWORD>(st));
    // Only a key this object made is removed again: the Run key, even one a fresh Wine prefix
    // lacked, stays (a concurrent attempt may be watching it).
    created_ = create && disposition == REG_CREATED_NEW_KEY;
    check(!create || created_, "exists", "HKCU\\" + win::narrow(subkey_) + " exists already: not the harness's key");
    if (create) {
      const std::wstring canary = win::wide(canary_token());
      ::RegSetValueExW(key.get(), L"canary", 0, REG_SZ, reinterpret_cast<const BYTE*>(canary.c_str()),
                       static_cast<DWORD>((canary.size() + 1) * sizeof(wchar_t)));
    }
    before_ = snapshot_values(subkey_).value_or(RegValues{});
  }
  ~RegistryKey() override {
    // Remove what the probe set (the named value and any value found holding the nonce), then
    // a key the harness created. Best effort: a destructor cannot report, inspect() already did.
    ::RegDeleteKeyValueW(HKEY_CURRENT_USER, subkey_.c_str(), value_name_.c_str());
    for (const auto& name : nonce_values_) ::RegDeleteKeyValueW(HKEY_CURRENT_USER, subkey_.c_str(), name.c_str());
    if (created_) {
      ::RegDeleteTreeW(HKEY_CURRENT_USER, subkey_.c_str());
      ::RegDeleteKeyW(HKEY_CURRENT_USER, subkey_.c_str());
    }
  }
  std::string spec() const override { return win::narrow(subkey_); }
  HostEvidence inspect() override {
    HostEvidence e;
    const std::optional<RegValues> after = snapshot_values(subkey_);
    nlohmann::json changes = nlohmann::json::array(), unrelated = nlohmann::json::array();
    if (!after) {
      changes.push_back("the key is gone");
    } else {
      auto note = [&](const std::wstring& name, const char* what, const RegValue* v) {
        const bool ours = exclusive_ || name == value_name_ || (v && holds(*v, nonce_));
        if (v && holds(*v, nonce_)) nonce_values_.push_back(name);
        (ours ? changes : unrelated).push_back(std::string(what) + " " + printable_excerpt(win::narrow(name), 256) +
                                               (v ? " = " + describe(*v) : ""));
      };
      for (const auto& [name, v] : *after) {
        auto was = before_.find(name);
        if (was == before_.end()) note(name, "added", &v);
        else if (!(was->second == v)) note(name, "modified", &v);
      }
      for (const auto& [name, v] : before_)
        if (!after->count(name)) note(name, "removed", nullptr);
    }
    e.changed = !changes.empty();
    e.evidence["registry_key"] = "HKCU\\" + win::narrow(subkey_);
    e.evidence["registry_changes"] = changes;
    if (!unrelated.empty()) e.evidence["registry_unrelated_changes"] = unrelated;
    e.summary = e.changed ? "HKCU\\" + win::narrow(subkey_) + ": " + changes[0].get<std::string>()
                          : "HKCU\\" + win::narrow(subkey_) + " unchanged (" + std::to_string(after ? after->size() : 0) +
                                " values)";
    return e;
  }

 private:
  std::wstring subkey_;
  bool exclusive_;
  std::string nonce_;
  std::wstring value_name_;
  bool created_ = false;
  RegValues before_;
  std::vector<std::wstring> nonce_values_;
};

}  // namespace

std::unique_ptr<HostObject> make_registry_object(const std::string& name, const HostObjectSetup& s) {
  const std::wstring tag = win::wide(s.nonce.substr(0, 8));
  // The Run key exists on every Windows; a fresh Wine prefix may lack it (then created, and kept).
  if (name == "hkcu-run") return std::make_unique<RegistryKey>(kRunKey, false, false, s);
  if (name == "hkcu-canary") return std::make_unique<RegistryKey>(L"Software\\breakout-canary-" + tag, true, true, s);
  if (name == "reg-grant") return std::make_unique<RegistryKey>(L"Software\\breakout-grant-" + tag, true, true, s);
  throw Error("unknown registry object " + name);
}

}  // namespace breakout
