// set_guid: add, remove and list the alias (additional) port GUIDs of a port
// through the SA: SubnAdmSet / SubnAdmDelete of a GUIDInfoRecord whose
// component mask names the LID, the block and exactly the one GUID changed
// (the mask comes from the IBA declarations, iba/introspect.h).  The SM then
// programs the port's GUIDInfo table itself.  No SMP is sent.
#include <cstdio>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/config.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/out/print.h"
#include "core/rpc/satransactor.h"
#include "core/rpc/target.h"
#include "iba/introspect.h"
#include "iba/refprint_sa.h"
#include "iba/sa.h"
#include "core/out/log.h"

namespace {

using ibcore::IBPath;

iba::FieldRef field(const char* name) {
  auto f = iba::find_field(iba::SAGUIDInfoRecord::DESC, name);
  if (!f) throw std::logic_error(std::string("no field ") + name + " in GUIDInfoRecord");
  return *f;
}

class SetGuid : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_flag("--delete", delete_, "remove the alias GUID at <index> (SubnAdmDelete)");
    app.add_flag("--list", list_, "print the port's GUIDInfoRecords (every block) and change nothing");
    ibtool::add_common_options(app, config(), ibtool::opt::Gmp | ibtool::opt::Json);
    app.add_option("args", args_, "<port> [<index> [<guid>]]");
  }

  bool reports_errors() const override { return true; }

  int run() override {
    return work();
  }

private:
  int work() {
    size_t want = list_ ? 1 : delete_ ? 2 : 3;
    if (list_ && delete_) throw ibtool::ExitFail{2, "--list and --delete exclude each other"};
    if (args_.size() < want || args_.size() > (delete_ ? 3 : want))
      throw ibtool::ExitFail{2, list_     ? "usage: set_guid --list <port>"
                   : delete_ ? "usage: set_guid --delete <port> <index> [<guid>]"
                             : "usage: set_guid <port> <index> <guid>"};
    IBPath target;
    try {
      target = ibcore::parse_target(args_[0], ibcore::TargetForm{});
    } catch (const std::exception& e) {
      throw ibtool::ExitFail{2, "bad port '" + args_[0] + "': " + e.what()};
    }
    unsigned index = 0;
    uint64_t guid = 0;
    bool have_guid = args_.size() > 2;
    if (!list_) {
      auto i = iba::parse_uint(args_[1]);
      if (!i || *i > 255) throw ibtool::ExitFail{2, "bad index '" + args_[1] + "': a GUID table index is 1..254"};
      index = unsigned(*i);
      if (index == 0) throw ibtool::ExitFail{2, "index 0 is the port's own GUID, set by the SM: alias GUIDs use index 1 and up"};
      if (have_guid) {
        auto g = iba::parse_guid(args_[2]);
        if (!g) throw ibtool::ExitFail{2, "bad GUID '" + args_[2] + "': give 0x0002c90300001491 or 0002:c903:0000:1491"};
        guid = *g;
      }
    }

    auto s = ibtool::open_session(config(), &target);
    ibcore::MadTransactor& mad = *s.mad;
    IBPath sa = ibcore::sa_path_from_config(mad);
    ibcore::SATransactor sat(mad, sa);
    // The port's LID: GUIDs and GIDs through a PathRecord, DR paths through
    // LinkRecords; the SA is asked, never the port.
    IBPath lidpath = ibcore::resolve_for_smp(mad, target);
    uint16_t lid = lidpath.is_dr() ? sat.get_path_lid(lidpath) : lidpath.DLID;
    if (!lid) throw ibcore::Error("no LID for port " + args_[0]);
    IBPath at;
    at.DLID = lid;

    if (list_) return list(mad, sa, lid);

    // The index must fit the port's table (PortInfo.GUIDCap, from the SA).
    iba::SMPPortInfo pi;
    try {
      pi = sat.SubnGet<iba::SMPPortInfo>(at, 0);
    } catch (ibcore::MADError& e) {
      e.annotate("The SA knows no port at LID " + std::to_string(lid) + " (reading its GUIDCap).");
      throw;
    }
    if (index >= pi.GUIDCap())
      throw ibtool::ExitFail{2, "index " + std::to_string(index) + " is beyond the GUID table of LID " + std::to_string(lid) +
                   " (GUIDCap " + std::to_string(pi.GUIDCap()) + ": indexes 1.." +
                   std::to_string(pi.GUIDCap() ? pi.GUIDCap() - 1 : 0) + ")"};

    iba::SAGUIDInfoRecord rec;
    uint64_t mask = put(rec, "LID", lid) | put(rec, "blockNum", index / iba::GUIDINFO_BLOCK);
    std::string slot = "GUIDInfo." + std::string(iba::SMPGUIDInfo::FIELDS[index % iba::GUIDINFO_BLOCK].name);

    if (delete_) {
      // Name exactly the GUID to remove: the one there now.
      auto cur = mad.SubnAdmGet(rec, mask, &sa);
      uint64_t now = iba::guid_at(cur.GUIDInfo(), index % iba::GUIDINFO_BLOCK);
      if (!now) throw ibcore::Error("LID " + std::to_string(lid) + " has no alias GUID at index " + std::to_string(index));
      if (have_guid && guid != now)
        throw ibcore::Error("LID " + std::to_string(lid) + " index " + std::to_string(index) + " holds " + hex(now) +
                            ", not " + hex(guid) + ": nothing deleted");
      guid = now;
    }
    mask |= put(rec, slot.c_str(), guid);

    iba::SAGUIDInfoRecord out;
    try {
      if (delete_) {
        ibcore::MadRequest req;
        req.cls = iba::find_class(iba::mgmt::SUBN_ADM);
        req.method = iba::method::DELETE;
        req.attr_id = iba::AttrId<iba::SAGUIDInfoRecord>::value;
        req.payload = rec.bytes();
        req.comp_mask = mask;
        out = ibcore::MadTransactor::decode<iba::SAGUIDInfoRecord>(mad.call(req, sa));
      } else {
        out = mad.SubnAdmSet(rec, mask, &sa);
      }
    } catch (ibcore::MADError& e) {
      e.annotate(std::string(delete_ ? "The SA refused to delete" : "The SA refused to set") + " alias GUID " +
                 hex(guid) + " at index " + std::to_string(index) + " of LID " + std::to_string(lid) + ".");
      throw;
    }
    uint64_t got = iba::guid_at(out.GUIDInfo(), index % iba::GUIDINFO_BLOCK);
    // The SA answers with the block as it now is: a set it did not take
    // (a GUID already in use elsewhere) comes back as 0.
    if (!delete_ && (got == 0 || (guid && got != guid)))
      throw ibcore::Error("The SA did not take alias GUID " + hex(guid) + " at index " + std::to_string(index) +
                          " of LID " + std::to_string(lid) + " (the record it returned holds " + hex(got) +
                          "; is the GUID in use by another port?)");
    // {"action", "LID", "index", "GUID", "GUIDInfoRecord": {fields}}; the
    // text: the record as saquery prints it.
    ibcore::Printer p;
    p.open_object().str(ibcore::PRINT_JSON, "action", nullptr, delete_ ? "delete" : "set");
    p.uint(ibcore::PRINT_JSON, "LID", nullptr, lid).uint(ibcore::PRINT_JSON, "index", nullptr, index);
    p.guid(ibcore::PRINT_JSON, "GUID", nullptr, delete_ ? guid : got);
    p.attribute("GUIDInfoRecord", iba::SAGUIDInfoRecord::DESC, out.buf.data(), [&] { return iba::ref::sa_print(out); });
    p.close_object().finish();
    return 0;
  }

  int list(ibcore::MadTransactor& mad, const IBPath& sa, uint16_t lid) {
    iba::SAGUIDInfoRecord q;
    auto t = mad.SubnAdmGetTable(q, put(q, "LID", lid), &sa);
    if (t.truncated)
      ibcore::log::warn("W: The SA's GUIDInfoRecord reply was truncated (no RMPP on this transport): showing the %zu "
                   "record(s) that arrived whole.\n",
                   t.records.size());
    if (t.records.empty() && !t.truncated)
      throw ibcore::Error("The SA has no GUIDInfoRecord for LID " + std::to_string(lid));
    // {"action": "list", "LID", "truncated", "records": [{fields}]};
    // the text: each record as saquery prints it.
    ibcore::Printer p;
    p.open_object().str(ibcore::PRINT_JSON, "action", nullptr, "list").uint(ibcore::PRINT_JSON, "LID", nullptr, lid);
    p.boolean(ibcore::PRINT_JSON, "truncated", nullptr, t.truncated).open_array("records");
    for (const auto& r : t.records)
      p.attribute(nullptr, iba::SAGUIDInfoRecord::DESC, r.buf.data(), [&] { return iba::ref::sa_print(r); });
    p.close_array().close_object().finish();
    return 0;
  }

  static uint64_t put(iba::SAGUIDInfoRecord& r, const char* name, uint64_t v) {
    auto f = field(name);
    iba::set_bits(r.raw(), f.bit_off, f.width(), v);
    return iba::component_mask(f);
  }

  static std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(v));
    return b;
  }

  bool delete_ = false, list_ = false;
  std::vector<std::string> args_;
};

}  // namespace

IBTOOL_COMMAND({.name = "set_guid",
                .aliases = {},
                .summary = "add, remove or list the alias port GUIDs of a port through the SA",
                .description =
                    "Programs an alias (additional) port GUID into a port's GUID table through the subnet "
                    "administrator: a SubnAdmSet of the port's GUIDInfoRecord naming the LID, the block "
                    "(index / 8) and the one GUID changed in its component mask.  The SM then writes the "
                    "port's GUIDInfo itself; nothing is sent to the port.  <port> is a LID, a port GUID, a "
                    "GID or a DR path (resolved to a LID through the SA).  <index> is the position in the "
                    "port's GUID table, 1 up to PortInfo:GUIDCap - 1 (index 0 is the port GUID the SM "
                    "owns).  <guid> 0 asks the SM to choose the alias GUID.\n\n"
                    "On success the changed GUIDInfoRecord is printed in saquery's GIR layout (the block "
                    "as the SA now has it) and the status is 0.  --delete removes the alias GUID at "
                    "<index> with SubnAdmDelete (when <guid> is given it must be the one there).  --list "
                    "prints every GUIDInfoRecord of the port, like `saquery GIR <lid>`.\n\n"
                    "Errors: a malformed port, index or GUID, or an index beyond the port's GUIDCap, is a "
                    "usage error (status 2, nothing sent).  An SA that refuses (an SA status such as "
                    "ERR_REQ_INVALID, or a returned record without the GUID, as when it is in use by "
                    "another port) and a port the SA does not know end with the SA's status on stderr "
                    "and a non-zero status.\n\n"
                    "--json (-j; --pretty indents): one document (its members and types: --json-schema).",
                .usage = "[options] <port> <index> <guid> | --delete <port> <index> [<guid>] | --list <port>",
                .examples = "  set_guid 4 1 0x0002c9030000ab01      # alias GUID at index 1 of LID 4\n"
                            "  set_guid 0000:0000:0010:0004 2 0    # index 2 of that port, GUID chosen by the SM\n"
                            "  set_guid --delete 4 1                 # remove it again\n"
                            "  set_guid --list 4                     # the port's GUID blocks",
                .make = [] { return std::make_unique<SetGuid>(); },
                .own = true});
