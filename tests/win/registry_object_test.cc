// Registry host objects (class registry-write): the snapshot sees the probe's value, ignores unrelated Run values, and cleans up.
#include <gtest/gtest.h>
#include <windows.h>

#include "harness/core/nonce.h"
#include "harness/host/host_objects.h"
#include "tests/win/object_setup.h"
#include "harness/host/win/registry_key.h"
#include "harness/platform/win/unique_hkey.h"
#include "harness/platform/win/win_util.h"

using namespace breakout;

namespace {

using win_test::setup_with;


// What the probe does (probes/win/reg-write.cc): HKCU\<subkey>, value = data (REG_SZ).
LSTATUS set_value(const std::string& subkey, const std::string& value, const std::string& data) {
  UniqueHkey key;
  LSTATUS st = ::RegOpenKeyExW(HKEY_CURRENT_USER, win::wide(subkey).c_str(), 0, KEY_SET_VALUE, key.out());
  if (st != ERROR_SUCCESS) return st;
  const std::wstring w = win::wide(data);
  return ::RegSetValueExW(key.get(), win::wide(value).c_str(), 0, REG_SZ, reinterpret_cast<const BYTE*>(w.c_str()),
                          static_cast<DWORD>((w.size() + 1) * sizeof(wchar_t)));
}

bool key_exists(const std::string& subkey) {
  UniqueHkey key;
  return ::RegOpenKeyExW(HKEY_CURRENT_USER, win::wide(subkey).c_str(), 0, KEY_QUERY_VALUE, key.out()) == ERROR_SUCCESS;
}

bool value_exists(const std::string& subkey, const std::string& value) {
  return ::RegGetValueW(HKEY_CURRENT_USER, win::wide(subkey).c_str(), win::wide(value).c_str(), RRF_RT_ANY, nullptr,
                        nullptr, nullptr) == ERROR_SUCCESS;
}

}  // namespace

TEST(WinRegistryObject, CanaryKeySeesTheValueAndIsRemovedAfterwards) {
  const std::string nonce = random_hex(16), tag = nonce.substr(0, 8);
  std::string subkey;
  {
    auto obj = make_host_object("hkcu-canary", setup_with(nonce));
    subkey = obj->spec();
    EXPECT_EQ(subkey, "Software\\breakout-canary-" + tag);
    ASSERT_TRUE(key_exists(subkey));
    ASSERT_EQ(set_value(subkey, "breakout-" + tag, nonce), ERROR_SUCCESS);
    const HostEvidence e = obj->inspect();
    EXPECT_TRUE(e.changed) << e.summary;
    EXPECT_NE(e.summary.find("added breakout-" + tag + " = " + nonce), std::string::npos) << e.summary;
  }
  EXPECT_FALSE(key_exists(subkey)) << "the RAII guard left HKCU\\" << subkey;
}

TEST(WinRegistryObject, UntouchedKeyIsUnchanged) {
  auto obj = make_host_object("reg-grant", setup_with(random_hex(16)));
  const HostEvidence e = obj->inspect();
  EXPECT_FALSE(e.changed) << e.summary;
  EXPECT_NE(e.summary.find("unchanged"), std::string::npos) << e.summary;
}

TEST(WinRegistryObject, RunKeyDecidesOnTheProbesValueOnly) {
  const std::string nonce = random_hex(16), tag = nonce.substr(0, 8);
  const std::string run = win::narrow(kRunKey);
  const std::string other = "unrelated-" + tag;
  {
    auto obj = make_host_object("hkcu-run", setup_with(nonce));
    EXPECT_EQ(obj->spec(), run);
    // Another program's autostart value appearing meanwhile is listed, not an escape.
    ASSERT_EQ(set_value(run, other, "C:\\other.exe"), ERROR_SUCCESS);
    HostEvidence e = obj->inspect();
    EXPECT_FALSE(e.changed) << e.summary;
    EXPECT_EQ(e.evidence["registry_unrelated_changes"].size(), 1u) << e.evidence.dump();
    // A value under another name that holds the nonce is the probe's.
    ASSERT_EQ(set_value(run, "renamed-" + tag, "run " + nonce), ERROR_SUCCESS);
    e = obj->inspect();
    EXPECT_TRUE(e.changed) << e.summary;
  }
  EXPECT_FALSE(value_exists(run, "renamed-" + tag)) << "a value holding the nonce stayed in the Run key";
  EXPECT_TRUE(value_exists(run, other)) << "the guard removed a value that was not the probe's";
  ::RegDeleteKeyValueW(HKEY_CURRENT_USER, kRunKey, win::wide(other).c_str());
}

TEST(WinRegistryObject, AValueBeyondTheBoundsStillCounts) {
  const std::string nonce = random_hex(16), tag = nonce.substr(0, 8);
  auto obj = make_host_object("hkcu-canary", setup_with(nonce));
  const std::string big(100 * 1024, 'x');  // more data than the snapshot reads back
  ASSERT_EQ(set_value(obj->spec(), "big", big), ERROR_SUCCESS);
  const HostEvidence e = obj->inspect();
  EXPECT_TRUE(e.changed) << e.summary;
}
