// ScheduledTaskGuard on Windows: ITaskFolder::DeleteTask in the Task Scheduler's root folder (scheduled_task.h).
//
// Microsoft Learn, "ITaskService::Connect", "ITaskFolder::DeleteTask". Runs on a harness
// worker thread: the COM apartment is this call's own (CoInitializeEx/CoUninitialize paired;
// RPC_E_CHANGED_MODE means the thread already has one, which is used as it is).
#include "harness/platform/scheduled_task.h"

#include <windows.h>
#include <oleauto.h>
#include <taskschd.h>
#include <wrl/client.h>

#include <cstdio>

#include "harness/platform/win/win_util.h"

namespace breakout {

namespace {

std::string hex(HRESULT hr) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08lX", static_cast<unsigned long>(hr));
  return b;
}

std::string delete_task(const std::wstring& name) {
  using Microsoft::WRL::ComPtr;
  ComPtr<ITaskService> service;
  HRESULT hr = ::CoCreateInstance(CLSID_TaskScheduler, nullptr, CLSCTX_INPROC_SERVER, IID_ITaskService,
                                  reinterpret_cast<void**>(service.GetAddressOf()));
  if (FAILED(hr)) return "not removed: CoCreateInstance(TaskScheduler) " + hex(hr);
  VARIANT none;
  ::VariantInit(&none);
  if (FAILED(hr = service->Connect(none, none, none, none))) return "not removed: ITaskService::Connect " + hex(hr);
  ComPtr<ITaskFolder> folder;
  BSTR root = ::SysAllocString(L"\\"), task = ::SysAllocStringLen(name.data(), static_cast<UINT>(name.size()));
  hr = service->GetFolder(root, folder.GetAddressOf());
  if (SUCCEEDED(hr)) hr = folder->DeleteTask(task, 0);
  ::SysFreeString(root);
  ::SysFreeString(task);
  if (SUCCEEDED(hr)) return "removed";
  // HRESULT_FROM_WIN32(ERROR_FILE_NOT_FOUND): no such task, the usual case.
  if (hr == static_cast<HRESULT>(0x80070002UL)) return "absent";
  return "not removed: ITaskFolder::DeleteTask " + hex(hr);
}

}  // namespace

std::string ScheduledTaskGuard::remove() noexcept {
  if (!outcome_.empty()) return outcome_;
  try {
    const HRESULT init = ::CoInitializeEx(nullptr, COINIT_MULTITHREADED);
    outcome_ = delete_task(win::wide(name_));
    if (SUCCEEDED(init)) ::CoUninitialize();
  } catch (...) {
    outcome_ = "not removed: out of memory";
  }
  return outcome_;
}

}  // namespace breakout
