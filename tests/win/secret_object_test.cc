// Read-class host objects (registry-read, device-read): the token is exactly what a reader of the object gets, and nothing is left behind.
#include <gtest/gtest.h>
#include <windows.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "harness/core/error.h"
#include "harness/core/nonce.h"
#include "harness/core/sha256.h"
#include "harness/host/host_objects.h"
#include "harness/host/win/raw_device.h"
#include "harness/host/win/registry_secret.h"
#include "harness/platform/win/raw_read.h"
#include "harness/platform/win/unique_hkey.h"
#include "harness/platform/win/win_util.h"
#include "shared/own_token.h"
#include "tests/win/object_setup.h"

namespace fs = std::filesystem;
using namespace breakout;

namespace {

using win_test::setup_with;

// "HKCU\..." / "HKLM\..." as the probe gets it: the root and the subkey.
std::pair<HKEY, std::wstring> split(const std::string& spec) {
  const std::size_t sep = spec.find('\\');
  return {spec.substr(0, sep) == "HKLM" ? HKEY_LOCAL_MACHINE : HKEY_CURRENT_USER, win::wide(spec.substr(sep + 1))};
}

// What the probe reads (probes/win/reg-read.cc): the value "secret" as text; "" when it cannot.
std::string read_secret(const std::string& spec) {
  const auto [root, subkey] = split(spec);
  wchar_t data[512] = {};
  DWORD size = sizeof(data) - sizeof(wchar_t);
  if (::RegGetValueW(root, subkey.c_str(), L"secret", RRF_RT_REG_SZ, nullptr, data, &size) != ERROR_SUCCESS) return "";
  return win::narrow(data);
}

bool spec_key_exists(const std::string& spec) {
  const auto [root, subkey] = split(spec);
  UniqueHkey key;
  return ::RegOpenKeyExW(root, subkey.c_str(), 0, KEY_QUERY_VALUE, key.out()) == ERROR_SUCCESS;
}

struct Workspace {
  fs::path path = fs::temp_directory_path() / ("breakout-secret-test-" + random_hex(4));
  Workspace() { fs::create_directories(path); }
  ~Workspace() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(fs::path(win::wide(path)), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST(WinRegistrySecret, HkcuSecretIsACanaryOnlyAReaderSeesAndIsRemovedAfterwards) {
  const std::string nonce = random_hex(16), tag = nonce.substr(0, 8);
  std::string spec;
  {
    auto obj = make_host_object("hkcu-secret", setup_with(nonce));
    spec = obj->spec();
    EXPECT_EQ(spec, "HKCU\\Software\\breakout-secret-" + tag);
    const HostEvidence e = obj->inspect();
    EXPECT_EQ(e.token.rfind(kCanaryPrefix, 0), 0u) << e.token;
    EXPECT_EQ(read_secret(spec), e.token) << "the reader's data must be the token, or a read could never decide";
    EXPECT_FALSE(e.changed);
    EXPECT_TRUE(e.token_decides);
    EXPECT_EQ(e.evidence["registry_secret_intact"], true) << e.evidence.dump();
  }
  EXPECT_FALSE(spec_key_exists(spec)) << "the RAII guard left " << spec;
}

TEST(WinRegistrySecret, GrantReadHoldsTheOwnToken) {
  const std::string nonce = random_hex(16);
  std::string spec;
  {
    auto obj = make_host_object("reg-grant-read", setup_with(nonce));
    spec = obj->spec();
    EXPECT_EQ(spec, "HKCU\\Software\\breakout-grant-read-" + nonce.substr(0, 8));
    const HostEvidence e = obj->inspect();
    EXPECT_EQ(e.token, own_token(nonce));
    EXPECT_EQ(read_secret(spec), own_token(nonce));
  }
  EXPECT_FALSE(spec_key_exists(spec)) << "the RAII guard left " << spec;
}

TEST(WinRegistrySecret, HklmSecretOrTheReasonWhyNot) {
  if (const auto why = registry_secret_unavailable("hklm-secret")) {
    EXPECT_NE(why->find("HKLM\\Software"), std::string::npos) << *why;
    GTEST_SKIP() << *why;
  }
  const std::string nonce = random_hex(16);
  std::string spec;
  {
    auto obj = make_host_object("hklm-secret", setup_with(nonce));
    spec = obj->spec();
    EXPECT_EQ(spec, "HKLM\\Software\\breakout-secret-" + nonce.substr(0, 8));
    EXPECT_EQ(read_secret(spec), obj->inspect().token);
  }
  EXPECT_FALSE(spec_key_exists(spec)) << "the RAII guard left " << spec;
}

TEST(WinRegistrySecret, AKeyThatExistsAlreadyIsRefusedAndKept) {
  const std::string nonce = random_hex(16);
  const std::wstring subkey = L"Software\\breakout-secret-" + win::wide(nonce.substr(0, 8));
  UniqueHkey planted;
  ASSERT_EQ(::RegCreateKeyExW(HKEY_CURRENT_USER, subkey.c_str(), 0, nullptr, REG_OPTION_VOLATILE, KEY_SET_VALUE, nullptr,
                              planted.out(), nullptr),
            ERROR_SUCCESS);
  EXPECT_THROW(make_host_object("hkcu-secret", setup_with(nonce)), Error);
  EXPECT_TRUE(spec_key_exists("HKCU\\" + win::narrow(subkey))) << "the harness removed a key it had not made";
  ::RegDeleteKeyW(HKEY_CURRENT_USER, subkey.c_str());
}

TEST(WinRawDevice, OwnDeviceTokenIsTheKeyedDigestOfItsFileAndTheFileGoes) {
  Workspace ws;
  const std::string nonce = random_hex(16);
  std::string spec;
  {
    auto obj = make_host_object("own-device", setup_with(nonce, ws.path));
    spec = obj->spec();
    const std::string content = file_bytes(spec);
    ASSERT_EQ(content.size(), kDeviceDigestBytes) << spec;
    const HostEvidence e = obj->inspect();
    // Computed here from the file's bytes, not through raw_read.h: the probe's digest must equal it.
    EXPECT_EQ(e.token, keyed_sha256_hex(nonce, content));
    // The probe's read path (the same function) gives the same digest.
    const RawRead r = read_leading_bytes(win::wide(spec));
    ASSERT_EQ(r.error, 0u) << r.step;
    EXPECT_EQ(device_digest(nonce, r.data), e.token);
    // Another nonce, another token: a digest printed for one attempt proves nothing for another.
    EXPECT_NE(device_digest(random_hex(16), r.data), e.token);
  }
  EXPECT_FALSE(fs::exists(fs::path(win::wide(spec)))) << "the control's file stayed: " << spec;
}

TEST(WinRawDevice, PhysicalDriveOrTheReasonWhyNot) {
  if (const auto why = raw_device_unavailable("physical-drive")) {
    EXPECT_NE(why->find("PhysicalDrive0"), std::string::npos) << *why;
    EXPECT_NE(why->find("(error "), std::string::npos) << *why;  // the system's own code, not a guess
    EXPECT_THROW(make_host_object("physical-drive", setup_with(random_hex(16))), Error);
    GTEST_SKIP() << *why;
  }
  const std::string nonce = random_hex(16);
  auto obj = make_host_object("physical-drive", setup_with(nonce));
  EXPECT_EQ(obj->spec(), "\\\\.\\PhysicalDrive0");
  const RawRead r = read_leading_bytes(kPhysicalDrive);
  ASSERT_EQ(r.error, 0u) << r.step;
  EXPECT_EQ(obj->inspect().token, keyed_sha256_hex(nonce, r.data.substr(0, kDeviceDigestBytes)));
}
