// The congestion control class (0x21, IBA annex A10) as ibccquery and
// ibccconfig use it (cmd/ibcc): each op reads (or sets) one attribute of
// the target and describes it through a Printer, in the reference's
// "Label:....value" layouts or --json.  Every CC MAD carries the CC_Key.
// Blocks of SwitchPortCongestionSetting hold 32 ports each (A10.4.3.6) and
// are addressed so; the reference's own arithmetic uses 48 a block, which
// only differs on switches with more than 32 ports.  Failures are the
// reference's (RefFail, core/base/error: "operation <op>: <msg>").
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/out/print.h"
#include "core/rpc/rpc.h"
#include "core/transport/path.h"
#include "iba/cc.h"
#include "iba/mad.h"
#include "iba/smp.h"
#include "iba/struct.h"

namespace ibcore::cc {

// One op's run: the target, its GMP path, the op's parameters and output.
struct Ctx {
  MadTransactor& mad;
  IBPath target;                   // as parsed
  IBPath path;                     // the GMP path (PathRecord)
  std::exception_ptr path_error;   // set when the PathRecord failed (LID targets)
  uint64_t cckey = 0;
  std::vector<std::string> params;
  std::string where;               // "Lid N"
  Printer* p = nullptr;    // the op's output (ibccquery: text, or the --json document)
  std::string op;                  // as given on the command line

  // An op's failure: "operation <op>: <msg>", the reference's iberror exit.
  [[noreturn]] void fail(const std::string& msg) const { throw RefFail{"operation " + op + ": " + msg}; }

  // A structure at off of a reply's data, zero padded as dump_at pads.
  static std::vector<uint8_t> padded(const iba::StructDesc& d, const std::vector<uint8_t>& data, size_t off = 0) {
    std::vector<uint8_t> b(d.size, 0);
    if (off < data.size()) std::memcpy(b.data(), data.data() + off, std::min(b.size(), data.size() - off));
    return b;
  }
  // An attribute: {key: its fields}, or text(), the reference's lines.
  template <class F>
  void emit(const char* key, const iba::StructDesc& d, const std::vector<uint8_t>& data, F text) {
    p->attribute(key, d, padded(d, data).data(), text);
  }
  // An element of a table: {"<index_key>": i, its fields}, or text().
  template <class F>
  void element(const char* index_key, unsigned i, const iba::StructDesc& d, const std::vector<uint8_t>& data,
               size_t off, F text) {
    p->open_object().uint(PRINT_JSON, index_key, nullptr, i).fields(d, padded(d, data, off).data());
    p->close_object().lit(text());
  }

  // One CC MAD; returns the reply's data area (from the attribute's data
  // offset to the end of the MAD).  Throws MADError.
  std::vector<uint8_t> call(uint8_t method, uint16_t attr, uint32_t amod, std::span<const uint8_t> payload = {}) {
    if (path_error) std::rethrow_exception(path_error);
    MadRequest r;
    r.cls = iba::find_class(iba::mgmt::CC);
    r.method = method;
    r.attr_id = attr;
    r.amod = amod;
    r.payload = payload;
    PendingMad p;
    p.path = &path;
    p.req_len = build_mad(p.req.data(), r, path, 0);
    // Every CC MAD carries the CC_Key (A10.4.1).
    iba::CCFormat::set_CCKey_at(p.req.data(), cckey);
    mad.engine().submit(p);
    mad.engine().wait(p);
    auto rep = check_reply(p);
    size_t off = attr == iba::AttrId<iba::CCCongestionLogSwitch>::value ? iba::CC_LOG_DATA_OFF : iba::CC_DATA_OFF;
    if (rep.size() < off) return {};
    return std::vector<uint8_t>(rep.begin() + off, rep.end());
  }
  std::vector<uint8_t> get(uint16_t attr, uint32_t amod, const char* what) {
    try {
      return call(iba::method::GET, attr, amod);
    } catch (const MADError& e) {
      report(e);
      fail(what);
    }
  }
  void set(uint16_t attr, uint32_t amod, std::span<const uint8_t> payload, const char* what) {
    try {
      call(iba::method::SET, attr, amod, payload);
    } catch (const MADError& e) {
      report(e);
      fail(what);
    }
  }
  // NodeInfo of the target by SMP (SwitchPortCongestionSetting).
  iba::SMPNodeInfo node_info(const char* what) {
    IBPath sp;
    if (target.is_dr()) {
      sp = target;
    } else {
      sp.DLID = path.DLID;
    }
    try {
      return mad.SubnGet<iba::SMPNodeInfo>(sp);
    } catch (const MADError& e) {
      report(e);
      fail(what);
    }
  }
  std::string header(const char* name) const { return std::string("# ") + name + ": " + where + "\n"; }
};

// An op: its name and alias (matched without case), what it does, its
// parameters after <lid|guid> in the usage.
struct Op {
  const char* name;
  const char* alias;
  void (*fn)(Ctx&);
  const char* params;  // after <lid|guid> in the usage
};

extern const Op QUERY_OPS[9];   // ibccquery's
extern const Op CONFIG_OPS[5];  // ibccconfig's

// "Supported ops (and aliases, case insensitive):" and a line an op.
std::string op_list(std::span<const Op> ops);

}  // namespace ibcore::cc
