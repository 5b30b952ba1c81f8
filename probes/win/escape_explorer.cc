// spawn-escape --technique shellexecute: explorer's desktop shell view runs the beater (IShellDispatch2::ShellExecute).
//
// The "launch through explorer" technique: find the desktop's shell window among the shell
// windows (IShellWindows::FindWindowSW with SWC_DESKTOP), reach its shell view (IServiceProvider
// SID_STopLevelBrowser -> IShellBrowser::QueryActiveShellView), take the view's automation
// object (IShellView::GetItemObject(SVGIO_BACKGROUND) -> IShellFolderViewDual::get_Application)
// and call IShellDispatch2::ShellExecute: explorer.exe, the caller of ShellExecute, becomes the
// beater's parent, outside the probe's job. Raymond Chen, The Old New Thing, "How can I launch an
// unelevated process from my elevated process and vice versa?" (2013-11-18); Microsoft Learn,
// "IShellWindows::FindWindowSW", "IShellDispatch2.ShellExecute method". ShellExecuteExW from the
// probe itself is not used as a fallback: it would make the beater the probe's own child, in its
// job — the `background` technique again, not this one.
#include <windows.h>
#include <exdisp.h>
#include <servprov.h>
#include <shldisp.h>
#include <shlguid.h>
#include <shlobj.h>
#include <wrl/client.h>

#include "probes/common/win32.h"
#include "probes/win/com_util.h"
#include "probes/win/escape_launch.h"

namespace breakout::probe {

using Microsoft::WRL::ComPtr;

EscapeLaunch launch_via_explorer(const std::wstring& exe, const std::wstring& args) {
  ComApartment com;
  if (FAILED(com.result())) return escape_failed("CoInitializeEx", com.result());
  ComPtr<IShellWindows> windows;
  HRESULT hr = ::CoCreateInstance(CLSID_ShellWindows, nullptr, CLSCTX_LOCAL_SERVER, IID_IShellWindows,
                                  reinterpret_cast<void**>(windows.GetAddressOf()));
  if (FAILED(hr)) return escape_failed("CoCreateInstance(ShellWindows)", hr);
  Variant desktop = Variant::i4(CSIDL_DESKTOP), empty;
  long hwnd = 0;
  ComPtr<IDispatch> found;
  hr = windows->FindWindowSW(&desktop.v, &empty.v, SWC_DESKTOP, &hwnd, SWFO_NEEDDISPATCH, found.GetAddressOf());
  if (FAILED(hr)) return escape_failed("IShellWindows::FindWindowSW(SWC_DESKTOP)", hr);
  if (hr == S_FALSE || !found) {
    // No desktop shell window: explorer is not the shell here (a server core, a service session).
    EscapeLaunch l = escape_failed("IShellWindows::FindWindowSW(SWC_DESKTOP)", hr);
    l.unavailable = true;
    l.detail = "no desktop shell window (FindWindowSW returned " + hresult_text(hr) + ")";
    return l;
  }
  ComPtr<IServiceProvider> provider;
  ComPtr<IShellBrowser> browser;
  ComPtr<IShellView> view;
  ComPtr<IDispatch> background;
  ComPtr<IShellFolderViewDual> folder_view;
  ComPtr<IDispatch> application;
  ComPtr<IShellDispatch2> shell;
  if (FAILED(hr = found.As(&provider))) return escape_failed("QueryInterface(IServiceProvider)", hr);
  if (FAILED(hr = provider->QueryService(SID_STopLevelBrowser, IID_IShellBrowser,
                                         reinterpret_cast<void**>(browser.GetAddressOf()))))
    return escape_failed("IServiceProvider::QueryService(SID_STopLevelBrowser)", hr);
  if (FAILED(hr = browser->QueryActiveShellView(view.GetAddressOf())))
    return escape_failed("IShellBrowser::QueryActiveShellView", hr);
  if (FAILED(hr = view->GetItemObject(SVGIO_BACKGROUND, IID_IDispatch, reinterpret_cast<void**>(background.GetAddressOf()))))
    return escape_failed("IShellView::GetItemObject(SVGIO_BACKGROUND)", hr);
  if (FAILED(hr = background.As(&folder_view))) return escape_failed("QueryInterface(IShellFolderViewDual)", hr);
  if (FAILED(hr = folder_view->get_Application(application.GetAddressOf())))
    return escape_failed("IShellFolderViewDual::get_Application", hr);
  if (FAILED(hr = application.As(&shell))) return escape_failed("QueryInterface(IShellDispatch2)", hr);
  const Bstr file(exe);
  Variant arguments(args), directory, operation(std::wstring(L"open")), show = Variant::i4(SW_HIDE);
  if (FAILED(hr = shell->ShellExecute(file.get(), arguments.v, directory.v, operation.v, show.v)))
    return escape_failed("IShellDispatch2::ShellExecute", hr);
  EscapeLaunch l;
  l.started = true;
  l.detail = "IShellDispatch2::ShellExecute accepted";
  return l;
}

}  // namespace breakout::probe
