// spawn-escape --technique wmi: Win32_Process.Create through WMI, so the WMI provider host starts the beater.
//
// Microsoft Learn, "Create method of the Win32_Process class" and "Example: Calling a Provider
// Method" (IWbemLocator::ConnectServer, CoSetProxyBlanket, GetObject of the class, GetMethod for
// the in-parameters, SpawnInstance, Put CommandLine, ExecMethod, ReturnValue/ProcessId). On
// Windows the process is created by WmiPrvSE.exe, outside the caller's job: the well-known
// lateral/escape path (MITRE ATT&CK T1047). Wine's wbemprox runs the method in the caller's
// process (CreateProcessW there, without STARTF_USESTDHANDLES: docs/windows.md).
#include <windows.h>
#include <wbemidl.h>
#include <wrl/client.h>

#include "probes/common/win32.h"
#include "probes/win/com_util.h"
#include "probes/win/escape_launch.h"

namespace breakout::probe {

using Microsoft::WRL::ComPtr;

EscapeLaunch launch_via_wmi(const std::wstring& command_line) {
  ComApartment com;
  if (FAILED(com.result())) return escape_failed("CoInitializeEx", com.result());
  // Default authentication, impersonation level: WMI refuses to act for an anonymous caller.
  HRESULT hr = ::CoInitializeSecurity(nullptr, -1, nullptr, nullptr, RPC_C_AUTHN_LEVEL_DEFAULT,
                                      RPC_C_IMP_LEVEL_IMPERSONATE, nullptr, EOAC_NONE, nullptr);
  if (FAILED(hr) && hr != RPC_E_TOO_LATE) return escape_failed("CoInitializeSecurity", hr);
  ComPtr<IWbemLocator> locator;
  hr = ::CoCreateInstance(CLSID_WbemLocator, nullptr, CLSCTX_INPROC_SERVER, IID_IWbemLocator,
                          reinterpret_cast<void**>(locator.GetAddressOf()));
  if (FAILED(hr)) return escape_failed("CoCreateInstance(WbemLocator)", hr);
  ComPtr<IWbemServices> services;
  const Bstr ns(L"ROOT\\CIMV2");
  hr = locator->ConnectServer(ns.get(), nullptr, nullptr, nullptr, 0, nullptr, nullptr, services.GetAddressOf());
  if (FAILED(hr)) return escape_failed("IWbemLocator::ConnectServer(ROOT\\CIMV2)", hr);
  hr = ::CoSetProxyBlanket(services.Get(), RPC_C_AUTHN_WINNT, RPC_C_AUTHZ_NONE, nullptr, RPC_C_AUTHN_LEVEL_CALL,
                           RPC_C_IMP_LEVEL_IMPERSONATE, nullptr, EOAC_NONE);
  if (FAILED(hr) && hr != E_NOINTERFACE) return escape_failed("CoSetProxyBlanket", hr);  // in-process (Wine): no proxy

  const Bstr klass(L"Win32_Process"), method(L"Create");
  ComPtr<IWbemClassObject> class_object, in_signature, in_params, out_params;
  hr = services->GetObject(klass.get(), 0, nullptr, class_object.GetAddressOf(), nullptr);
  if (FAILED(hr)) return escape_failed("IWbemServices::GetObject(Win32_Process)", hr);
  hr = class_object->GetMethod(L"Create", 0, in_signature.GetAddressOf(), nullptr);
  if (FAILED(hr)) return escape_failed("IWbemClassObject::GetMethod(Create)", hr);
  if (!in_signature) return escape_failed("IWbemClassObject::GetMethod(Create): no in-parameters", E_UNEXPECTED);
  hr = in_signature->SpawnInstance(0, in_params.GetAddressOf());
  if (FAILED(hr)) return escape_failed("SpawnInstance(Create in-parameters)", hr);
  Variant cmd(command_line);
  hr = in_params->Put(L"CommandLine", 0, &cmd.v, 0);
  if (FAILED(hr)) return escape_failed("Put(CommandLine)", hr);
  hr = services->ExecMethod(klass.get(), method.get(), 0, nullptr, in_params.Get(), out_params.GetAddressOf(), nullptr);
  if (FAILED(hr)) return escape_failed("IWbemServices::ExecMethod(Win32_Process.Create)", hr);
  if (!out_params) return escape_failed("ExecMethod(Win32_Process.Create): no out-parameters", E_UNEXPECTED);

  Variant rv, pid;
  if (FAILED(out_params->Get(L"ReturnValue", 0, &rv.v, nullptr, nullptr)) ||
      FAILED(::VariantChangeType(&rv.v, &rv.v, 0, VT_I4)))
    return escape_failed("Get(ReturnValue)", E_UNEXPECTED);
  if (rv.v.lVal != 0) {
    // 2 access denied, 3 insufficient privilege, 8 unknown failure, 9 path not found, 21 invalid parameter.
    EscapeLaunch l = escape_failed("Win32_Process.Create", S_OK);
    l.detail = "Win32_Process.Create returned " + std::to_string(rv.v.lVal);
    l.unavailable = !wine_version().empty();  // a refusal (2, 3) is the sandbox's answer: judged
    return l;
  }
  EscapeLaunch l;
  l.started = true;
  if (SUCCEEDED(out_params->Get(L"ProcessId", 0, &pid.v, nullptr, nullptr)) &&
      SUCCEEDED(::VariantChangeType(&pid.v, &pid.v, 0, VT_UI4)))
    l.pid = pid.v.ulVal;
  l.detail = "Win32_Process.Create returned 0";
  return l;
}

}  // namespace breakout::probe
