// The base of the fabric health commands (ibcheck*, ibclear*, ibdatacount*,
// ibidsverify, ibqueryerrors, ibswportwatch, set_port_state, init_all_ports)
// and of the python-rdma subnet tools (ibprint*, ibfindnodesusing):
// their work may fail anywhere (discovery, a MAD, a file), and a failure is
// reported the library's way, one line a layer on stderr, with
// ibcore::report's exit status (reports_errors: the dispatcher does it).
#pragma once

#include <exception>

#include "cmd/registry.h"
#include "core/error.h"

namespace ibtool {

class HealthCommand : public Command {
public:
  int run() final { return work(); }
  bool reports_errors() const final { return true; }

protected:
  // The command itself; returns the exit status.
  virtual int work() = 0;
};

}  // namespace ibtool
