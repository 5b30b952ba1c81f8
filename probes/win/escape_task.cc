// spawn-escape --technique schtasks: a Task Scheduler 2.0 task runs the beater, so the scheduler starts it.
//
// Microsoft Learn, "Task Scheduler Reference" and the C++ example "Time Trigger Example"
// (ITaskService::Connect, GetFolder("\"), NewTask, IActionCollection::Create(TASK_ACTION_EXEC),
// ITaskFolder::RegisterTaskDefinition with TASK_LOGON_INTERACTIVE_TOKEN), then
// IRegisteredTask::Run instead of a trigger: a task without a trigger never runs by itself, so a
// task left behind by a crash does nothing until deleted (MITRE ATT&CK T1053.005). The task
// engine, not the probe, creates the process: outside the probe's job on Windows.
#include <windows.h>
#include <taskschd.h>
#include <wrl/client.h>

#include "probes/common/win32.h"
#include "probes/win/com_util.h"
#include "probes/win/escape_launch.h"

namespace breakout::probe {

using Microsoft::WRL::ComPtr;

namespace {

HRESULT root_folder(ComPtr<ITaskService>& service, ComPtr<ITaskFolder>* folder, std::string* step) {
  HRESULT hr = ::CoCreateInstance(CLSID_TaskScheduler, nullptr, CLSCTX_INPROC_SERVER, IID_ITaskService,
                                  reinterpret_cast<void**>(service.ReleaseAndGetAddressOf()));
  if (FAILED(hr)) return *step = "CoCreateInstance(TaskScheduler)", hr;
  Variant none;  // local machine, current user
  hr = service->Connect(none.v, none.v, none.v, none.v);
  if (FAILED(hr)) return *step = "ITaskService::Connect", hr;
  const Bstr root(L"\\");
  hr = service->GetFolder(root.get(), folder->GetAddressOf());
  if (FAILED(hr)) *step = "ITaskService::GetFolder(\\)";
  return hr;
}

}  // namespace

HRESULT delete_task(const std::wstring& task_name) {
  ComApartment com;
  ComPtr<ITaskService> service;
  ComPtr<ITaskFolder> folder;
  std::string step;
  HRESULT hr = root_folder(service, &folder, &step);
  if (FAILED(hr)) return hr;
  const Bstr name(task_name);
  return folder->DeleteTask(name.get(), 0);
}

EscapeLaunch launch_via_task(const std::wstring& exe, const std::wstring& args, const std::wstring& task_name) {
  EscapeLaunch l = [&]() -> EscapeLaunch {
    ComApartment com;
    if (FAILED(com.result())) return escape_failed("CoInitializeEx", com.result());
    ComPtr<ITaskService> service;
    ComPtr<ITaskFolder> folder;
    std::string step;
    HRESULT hr = root_folder(service, &folder, &step);
    if (FAILED(hr)) return escape_failed(step, hr);
    ComPtr<ITaskDefinition> task;
    Variant none;
    if (FAILED(hr = service->NewTask(0, task.GetAddressOf()))) return escape_failed("ITaskService::NewTask", hr);
    ComPtr<ITaskSettings> settings;
    if (SUCCEEDED(task->get_Settings(settings.GetAddressOf()))) {
      settings->put_DisallowStartIfOnBatteries(VARIANT_FALSE);  // a laptop runner must not turn this into a skip
      settings->put_StopIfGoingOnBatteries(VARIANT_FALSE);
      const Bstr limit(L"PT2M");  // the scheduler's own bound, beside the beater's --lifetime-ms
      settings->put_ExecutionTimeLimit(limit.get());
    }
    ComPtr<IActionCollection> actions;
    ComPtr<IAction> action;
    ComPtr<IExecAction> exec;
    if (FAILED(hr = task->get_Actions(actions.GetAddressOf()))) return escape_failed("ITaskDefinition::get_Actions", hr);
    if (FAILED(hr = actions->Create(TASK_ACTION_EXEC, action.GetAddressOf())))
      return escape_failed("IActionCollection::Create(TASK_ACTION_EXEC)", hr);
    if (FAILED(hr = action.As(&exec))) return escape_failed("QueryInterface(IExecAction)", hr);
    const Bstr path(exe), arguments(args), name(task_name);
    if (FAILED(hr = exec->put_Path(path.get()))) return escape_failed("IExecAction::put_Path", hr);
    if (FAILED(hr = exec->put_Arguments(arguments.get()))) return escape_failed("IExecAction::put_Arguments", hr);
    ComPtr<IRegisteredTask> registered;
    Variant empty_sddl(std::wstring{});
    hr = folder->RegisterTaskDefinition(name.get(), task.Get(), TASK_CREATE_OR_UPDATE, none.v, none.v,
                                        TASK_LOGON_INTERACTIVE_TOKEN, empty_sddl.v, registered.GetAddressOf());
    if (FAILED(hr)) return escape_failed("ITaskFolder::RegisterTaskDefinition", hr);
    ComPtr<IRunningTask> running;
    hr = registered->Run(none.v, running.GetAddressOf());
    if (FAILED(hr)) {
      EscapeLaunch f = escape_failed("IRegisteredTask::Run", hr);
      f.detail += "; the task was registered";
      return f;
    }
    EscapeLaunch ok;
    ok.started = true;
    ok.detail = "IRegisteredTask::Run accepted";
    return ok;
  }();
  if (!l.started) {
    // Never leave a task behind that did not start (registered or not): host safety.
    const HRESULT d = delete_task(task_name);
    if (d == S_OK) l.detail += "; task deleted";
  }
  return l;
}

}  // namespace breakout::probe
