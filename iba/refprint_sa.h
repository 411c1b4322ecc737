// SA records printed exactly as the reference saquery prints them: a
// header line ("NodeRecord dump:"), then "\t\tLabel.......value" lines
// padded with dots to a per-record width, with sub-headers ("\tRID") and
// tables (forwarding blocks, P_Keys, SL2VL) in between.  Like
// iba/refprint_smp.h, each layout is a table of iba::ref::Line rows over the
// record's declaration, the fields found by name through introspection.
//
//   std::fputs(iba::ref::sa_print(node_record).c_str(), stdout);
//   std::fputs(iba::ref::sa_dump(SAPortInfoRecord::DESC, rec.raw(), iba::ref::SA_ISSM).c_str(), stdout);
//
// Rows of an SaLayout: a Line with a label and a field is a dotted line; a
// Line with no field prints its label as a literal line; a Line with no
// label prints whatever its formatter returns (tables, nested dumps).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "iba/compat.h"
#include "iba/refprint.h"
#include "iba/sa.h"

namespace iba::ref {

struct SaLayout {
  const char* header;           // first line, without the newline
  size_t width;                 // labels are padded with dots to this width
  std::span<const Line> lines;
};

struct SaPrintOptions {
  bool show_keys = false;  // saquery -K: print SM_Key and M_Key values
  Compat compat = Compat::Diags44;  // PortInfoRecord's PortInfo: as smp_print's
};

// The default saquery layout of a record (and of the SA's ClassPortInfo),
// nullptr when there is none.  Layouts exist for NodeRecord, PortInfoRecord,
// SL2VL, VLArbitration, Link, Path, MCMember, LFT, MFT, GUIDInfo,
// SwitchInfo, SMInfo, Service, InformInfo and P_KeyTable records.
const SaLayout* sa_layout(const StructDesc& desc, const SaPrintOptions& opt = {});

// saquery's other layouts: -s (IsSM ports), -g (multicast groups), -m
// (multicast members; the caller appends the NodeDescription line with
// sa_dotted).
extern const SaLayout SA_ISSM;
extern const SaLayout SA_MC_GROUP;
extern const SaLayout SA_MC_MEMBER;

// Every row of a layout over buf (desc's bytes).  Throws std::logic_error
// for a row naming a field desc does not have (a bug in the table).
std::string sa_dump(const StructDesc& desc, const uint8_t* buf, const SaLayout& layout);

// The record in its default layout.  Throws std::invalid_argument for a
// structure saquery has no layout for.
std::string sa_print(const StructDesc& desc, std::span<const uint8_t> data, const SaPrintOptions& opt = {});
template <class T>
std::string sa_print(const T& v, const SaPrintOptions& opt = {}) {
  return sa_print(T::DESC, v.bytes(), opt);
}

// One "\t\tlabel.....value" line (with the newline).
std::string sa_dotted(std::string_view label, size_t width, std::string_view value);

}  // namespace iba::ref
