// COM helpers for the Windows probes: apartment, BSTR and VARIANT RAII, HRESULT text, "mechanism absent" HRESULTs.
//
//   ComApartment com;                        // CoInitializeEx for this thread, undone at scope end
//   Microsoft::WRL::ComPtr<IWbemLocator> l;  // interface pointers: WRL's ComPtr (mingw-w64 ships it)
//   Bstr name(L"ROOT\\CIMV2");               // SysAllocString / SysFreeString
//   if (FAILED(hr)) ... hresult_text(hr)     // "0x80004001 (Not implemented)"
//
// Windows only (mingw-w64), header-only.
#pragma once

#include <windows.h>
#include <oleauto.h>

#include <cstdio>
#include <string>

#include "harness/core/wtf8.h"

namespace breakout::probe {

// CoInitializeEx(COINIT_APARTMENTTHREADED) for the calling thread; CoUninitialize only when it succeeded
// (Microsoft Learn, "CoInitializeEx": each successful call, S_FALSE included, needs its CoUninitialize).
class ComApartment {
 public:
  ComApartment() : hr_(::CoInitializeEx(nullptr, COINIT_APARTMENTTHREADED | COINIT_DISABLE_OLE1DDE)) {}
  ~ComApartment() {
    if (SUCCEEDED(hr_)) ::CoUninitialize();
  }
  ComApartment(const ComApartment&) = delete;
  ComApartment& operator=(const ComApartment&) = delete;
  HRESULT result() const { return hr_; }

 private:
  HRESULT hr_;
};

class Bstr {
 public:
  explicit Bstr(const std::wstring& s) : b_(::SysAllocStringLen(s.data(), static_cast<UINT>(s.size()))) {}
  ~Bstr() { ::SysFreeString(b_); }
  Bstr(const Bstr&) = delete;
  Bstr& operator=(const Bstr&) = delete;
  BSTR get() const { return b_; }

 private:
  BSTR b_;
};

// A VARIANT cleared at scope end (VariantClear frees a BSTR or releases an interface it holds).
struct Variant {
  VARIANT v;
  Variant() { ::VariantInit(&v); }
  explicit Variant(const std::wstring& s) : Variant() {
    v.vt = VT_BSTR;
    v.bstrVal = ::SysAllocStringLen(s.data(), static_cast<UINT>(s.size()));
  }
  static Variant i4(long n) {
    Variant x;
    x.v.vt = VT_I4;
    x.v.lVal = n;
    return x;
  }
  Variant(Variant&& o) noexcept : v(o.v) { o.v.vt = VT_EMPTY; }
  ~Variant() { ::VariantClear(&v); }
  Variant(const Variant&) = delete;
  Variant& operator=(const Variant&) = delete;
};

// "0x80004001 (Not implemented)": the HRESULT and, where the system has one, its message.
inline std::string hresult_text(HRESULT hr) {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08lX", static_cast<unsigned long>(hr));
  wchar_t* text = nullptr;
  const DWORD n = ::FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
                                   nullptr, static_cast<DWORD>(hr), 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string out = hex;
  if (n > 0 && text != nullptr) {
    std::wstring w(text, n);
    while (!w.empty() && (w.back() == L'\n' || w.back() == L'\r' || w.back() == L' ' || w.back() == L'.')) w.pop_back();
    out += " (" + wtf8_from_utf16(std::u16string(w.begin(), w.end())) + ")";
  }
  if (text != nullptr) ::LocalFree(text);
  return out;
}

// HRESULTs that say the mechanism is not there at all (no class, no method, no service), as
// opposed to a refusal (E_ACCESSDENIED, WBEM_E_ACCESS_DENIED): only these may make the attempt
// a skip; a refusal is judged. Microsoft Learn, "COM Error Codes", "WMI Error Constants",
// "Task Scheduler Error and Success Constants".
inline bool mechanism_absent(HRESULT hr) {
  switch (static_cast<unsigned long>(hr)) {
    case 0x80004001UL:  // E_NOTIMPL
    case 0x80040154UL:  // REGDB_E_CLASSNOTREG
    case 0x80080005UL:  // CO_E_SERVER_EXEC_FAILURE
    case 0x8004100CUL:  // WBEM_E_NOT_SUPPORTED
    case 0x8004100EUL:  // WBEM_E_INVALID_NAMESPACE
    case 0x80041010UL:  // WBEM_E_INVALID_CLASS
    case 0x80041055UL:  // WBEM_E_METHOD_NOT_IMPLEMENTED
    case 0x80041315UL:  // SCHED_E_SERVICE_NOT_RUNNING
    case 0x80070422UL:  // HRESULT_FROM_WIN32(ERROR_SERVICE_DISABLED)
    case 0x80070424UL:  // HRESULT_FROM_WIN32(ERROR_SERVICE_DOES_NOT_EXIST)
    case 0x80070426UL:  // HRESULT_FROM_WIN32(ERROR_SERVICE_NOT_ACTIVE)
      return true;
    default:
      return false;
  }
}

}  // namespace breakout::probe
