// Node name map files in the reference's format (infiniband-diags'
// --node-name-map): one node a line, "GUID name", the GUID in any strtoull
// form (0x hex, decimal), the name optionally in double quotes; '#' starts
// a comment; blank lines are ignored; the first entry of a GUID wins.
//
//   ibcore::NodeNameMap m = ibcore::NodeNameMap::open(cfg.node_name_map);
//   std::string name = m.remap(node.guid, node.description());
//
// Without a file name the default map (/etc/rdma/ib-node-name-map) is used
// when it exists.  A file that cannot be read or parsed gives the
// reference's WARNING lines on stderr and an empty map (names then come
// from the node descriptions), as the reference tools do.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ibcore {

constexpr const char* DEFAULT_NODE_NAME_MAP = "/etc/rdma/ib-node-name-map";

class NodeNameMap {
public:
  // Open a map file (empty name: the default file if present).  Warnings go
  // to stderr; never throws.
  static NodeNameMap open(const std::string& file);
  // Parse map text.  Returns false (and sets *bad_line) on a malformed line.
  bool parse(std::string_view text, std::string* bad_line = nullptr);

  // The mapped name, or the node description cleaned the reference's way
  // (non-printable characters become spaces).
  std::string remap(uint64_t guid, std::string_view nodedesc) const;
  const std::string* find(uint64_t guid) const;
  size_t size() const { return names_.size(); }

private:
  std::unordered_map<uint64_t, std::string> names_;
};

// Non-printable characters of a node description become spaces (at most 64
// characters, up to the first NUL).
std::string clean_nodedesc(std::string_view d);

}  // namespace ibcore
