// The report's topology picture, laid out by ibtool (deterministic: the
// same subnet gives the same coordinates, whatever order discovery found
// it in).
//
//   - Switches stand in tiers by their distance in hops from the nearest
//     channel adapter (leaf switches tier 1, the next row tier 2, ...), as
//     fat trees and Dragonfly groups are drawn; switches no CA reaches go
//     in a tier above the rest.
//   - A CA whose links all end at switches is folded behind the switch its
//     first linked port reaches: one item, "N hosts", under that switch
//     (its hosts' own positions, a column under it, are kept for the page
//     to draw them when the item is opened); a switch's only such CA is an
//     item of its own under it.  Other CAs and routers are items of their
//     own in the bottom row.
//   - Within a tier the order is by GUID at first, then by the mean
//     position of each switch's neighbours in the tier below (sweeps of
//     the barycentre heuristic: up, the leaves by the tier above, up
//     again), ties by GUID.
//   - Every link becomes part of one edge between the two items holding
//     its ends (parallel links, and a leaf's host links, share an edge).
// Cost: linear in nodes and links per sweep (k=32's fat tree: 9,472 nodes,
// 24,576 links, a few ms).
#pragma once

#include <cstdint>
#include <vector>

#include "core/fabric/subnet.h"
#include "core/report/report.h"

namespace ibcore::reporting {

struct Item {
  enum class Kind : uint8_t { Switch, Hosts, Node };
  Kind kind = Kind::Switch;
  uint32_t node = NO_INDEX;     // Switch, Node: the node; Hosts: the leaf switch
  std::vector<uint32_t> hosts;  // Hosts: the folded CAs, by GUID
  unsigned tier = 0;
  double x = 0, y = 0;
};

struct Edge {
  uint32_t a = 0, b = 0;            // items, a < b
  std::vector<uint32_t> links;      // indices into Data::links
};

struct Layout {
  std::vector<Item> items;
  std::vector<Edge> edges;
  std::vector<uint32_t> item_of;    // node -> the item holding it
  std::vector<unsigned> tier;       // node -> its tier (CAs and routers 0)
  std::vector<double> x, y;         // node -> its own position (a folded host: in its column)
  unsigned depth = 0;               // switch tiers
  double width = 0, height = 0;
};

Layout lay_out(const Subnet& db, const std::vector<Link>& links);

}  // namespace ibcore::reporting
