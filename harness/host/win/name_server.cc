// Windows: the harness makes no external host, so there is no name server (docs/windows.md).
#include "harness/host/name_server.h"

namespace breakout {

struct NameServer::Impl {};

NameServer::NameServer(const ExternalHost*, const std::filesystem::path&)
    : why_not_("the harness makes no external host on Windows, so it runs no name server (docs/windows.md)") {}
NameServer::~NameServer() = default;
std::vector<LaunchSpec::BindOver> NameServer::bind_over() const { return {}; }
std::vector<std::string> NameServer::names_containing(const std::string&) const { return {}; }
std::string NameServer::address() const { return ""; }

}  // namespace breakout
