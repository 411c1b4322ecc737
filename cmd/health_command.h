// The base of the fabric health commands (ibcheck*, ibclear*, ibdatacount*,
// ibidsverify, ibqueryerrors, ibswportwatch, set_port_state, init_all_ports)
// and of the python-rdma subnet tools (ibprint*, ibfindnodesusing):
// their work may fail anywhere (discovery, a MAD, a file), and a failure is
// reported the library's way, one line a layer on stderr, with
// ibcore::report's exit status.
#pragma once

#include <exception>

#include "cmd/registry.h"
#include "core/error.h"

namespace ibtool {

class HealthCommand : public Command {
public:
  int run() final {
    try {
      return work();
    } catch (const std::exception& e) {
      return ibcore::report(e);
    }
  }

protected:
  // The command itself; returns the exit status.
  virtual int work() = 0;
};

}  // namespace ibtool
