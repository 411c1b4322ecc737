// topogen: print a generated topology (ibsim net format) on stdout.
//   topogen fattree 4 | topogen irregular | topogen irregular-wide
//   topogen example net.2sw2path4hca | topogen examples (list them)
#include <cstdio>
#include <exception>
#include <string>

#include "test/testbed/topology.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: topogen fattree K | irregular | irregular-wide | example NAME | examples | size SPEC...\n");
    return 2;
  }
  std::string spec;
  for (int i = 1; i < argc; ++i) spec += (i > 1 ? " " : "") + std::string(argv[i]);
  try {
    if (spec == "examples") {
      for (const auto& n : testbed::example_names()) std::printf("%s\n", n.c_str());
      return 0;
    }
    if (spec.rfind("size ", 0) == 0) {
      auto s = testbed::topo_size(testbed::generate(spec.substr(5)));
      std::printf("nodes %d switches %d hcas %d ports %d\n", s.nodes, s.switches, s.hcas, s.ports);
      return 0;
    }
    std::fputs(testbed::generate(spec).c_str(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "topogen: %s\n", e.what());
    return 1;
  }
  return 0;
}
