// ibcacheedit: change node, system image and port GUIDs in a cache file.
// A reference (ibnetdiscover --cache) file is written back byte-identical
// to what infiniband-diags' ibcacheedit writes; an ibtool cache stays an
// ibtool cache.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "cmd/target.h"
#include "core/base/error.h"
#include "core/fabric/netcache.h"
#include "core/base/textfile.h"

namespace {

using namespace ibcore;


std::string hex(uint64_t g) {
  char b[24];
  std::snprintf(b, sizeof b, "%" PRIx64, g);
  return b;
}

// "A:B" or "N:A:B" (any strtoull form).
bool split_guids(const std::string& s, size_t n, std::vector<uint64_t>& out) {
  out.clear();
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    size_t c = i + 1 < n ? s.find(':', pos) : std::string::npos;
    if (i + 1 < n && (c == std::string::npos || c + 1 >= s.size())) return false;
    out.push_back(std::strtoull(s.substr(pos, c == std::string::npos ? std::string::npos : c - pos).c_str(), nullptr, 0));
    pos = c + 1;
  }
  return true;
}

CLI::Validator guids_form(size_t n) {
  return CLI::Validator(
      [n](std::string& s) -> std::string {
        std::vector<uint64_t> v;
        return split_guids(s, n, v) ? std::string() : "invalid input '" + s + "'";
      },
      n == 2 ? "BEFOREGUID:AFTERGUID" : "NODEGUID:BEFOREGUID:AFTERGUID");
}

class IbCacheEdit : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("--switchguid", sw_, "Specify before and after switchguid to edit")
        ->option_text("BEFOREGUID:AFTERGUID")
        ->check(guids_form(2));
    app.add_option("--caguid", ca_, "Specify before and after caguid to edit")
        ->option_text("BEFOREGUID:AFTERGUID")
        ->check(guids_form(2));
    app.add_option("--sysimgguid", sys_, "Specify before and after sysimgguid to edit")
        ->option_text("BEFOREGUID:AFTERGUID")
        ->check(guids_form(2));
    app.add_option("--portguid", port_, "Specify before and after port guid to edit")
        ->option_text("NODEGUID:BEFOREGUID:AFTERGUID")
        ->check(guids_form(3));
    app.add_option("files", files_, "<orig.cache> <new.cache>");
    ibtool::add_common_options(app, config(), ibtool::opt::Config);
  }

  int run() override {
    if (files_.size() < 1) throw ibtool::RefFail{"original cache file not specified"};
    if (files_.size() < 2) throw ibtool::RefFail{"new cache file not specified"};
    Subnet db;
    CacheFormat fmt;
    try {
      std::string text;
      if (!ibcore::read_file(files_[0], text)) throw CacheError("Cannot read cache file " + files_[0]);
      std::vector<uint8_t> bytes(text.begin(), text.end());
      fmt = detect_cache_format(bytes, files_[0]);
      db = decode_cache(bytes, files_[0]);
    } catch (const std::exception& e) {
      ibtool::ref_fail(e, "loading original cached fabric failed");
    }
    // The reference keeps ports in the hash buckets of their loaded GUIDs.
    RefView& ref = db.reference();
    ref.hash_guids.clear();
    for (uint32_t p : ref.port_order) ref.hash_guids.push_back(db.port(p).guid);

    std::vector<uint64_t> v;
    auto rename = [&](NodeType t, uint64_t before, uint64_t after) {
      int found = 0;
      for (uint32_t i : db.reference_order(t)) {
        Node& n = db.node(i);
        if (n.guid != before) continue;
        db.rename_node(i, after);
        if (n.is_switch())
          for (unsigned k = 0; k <= n.nports; ++k)
            if (db.port(n, k).exists) db.set_port_guid(db.port_index(i, k), after);
        ++found;
      }
      return found;
    };
    if (!sw_.empty()) {
      split_guids(sw_, 2, v);
      if (!rename(NodeType::Switch, v[0], v[1])) throw ibtool::RefFail{"switchguid = " + hex(v[0]) + " not found"};
    }
    if (!ca_.empty()) {
      split_guids(ca_, 2, v);
      if (!rename(NodeType::CA, v[0], v[1])) throw ibtool::RefFail{"caguid = " + hex(v[0]) + " not found"};
    }
    if (!sys_.empty()) {
      split_guids(sys_, 2, v);
      int found = 0;
      for (uint32_t i : db.reference_order()) {
        Node& n = db.node(i);
        if (n.system_guid() != v[0]) continue;
        iba::SMPNodeInfo::set_systemImageGUID_at(n.info.data(), v[1]);
        ++found;
      }
      if (!found) throw ibtool::RefFail{"sysimgguid = " + hex(v[0]) + " not found"};
    }
    if (!port_.empty()) {
      split_guids(port_, 3, v);
      int node_found = 0, found = 0;
      for (uint32_t i : db.reference_order()) {
        Node& n = db.node(i);
        if (n.guid != v[0]) continue;
        ++node_found;
        if (n.is_switch()) {
          if (n.guid == v[1]) {
            db.rename_node(i, v[2]);
            for (unsigned k = 0; k <= n.nports; ++k)
              if (db.port(n, k).exists) db.set_port_guid(db.port_index(i, k), v[2]);
            ++found;
          }
        } else {
          for (unsigned k = 1; k <= n.nports; ++k) {
            if (db.port(n, k).exists && db.port(n, k).guid == v[1]) {
              db.set_port_guid(db.port_index(i, k), v[2]);
              ++found;
              break;
            }
          }
        }
      }
      if (!node_found) throw ibtool::RefFail{"nodeguid = " + hex(v[0]) + " not found"};
      if (!found) throw ibtool::RefFail{"portguid = " + hex(v[1]) + " not found"};
    }
    try {
      save_cache(db, files_[1], fmt);
    } catch (const std::exception& e) {
      ibtool::ref_fail(e, "caching new cache data failed");
    }
    return 0;
  }

private:
  std::string sw_, ca_, sys_, port_;
  std::vector<std::string> files_;
};

}  // namespace

IBTOOL_COMMAND({.name = "ibcacheedit",
                .aliases = {},
                .summary = "edit the GUIDs in an ibnetdiscover cache file",
                .description =
                    "Loads a cache written by ibnetdiscover --cache (or an ibtool cache), changes a "
                    "switch, CA, system image or port GUID, and writes the result to a new file in the "
                    "same format.  On switches the port GUIDs follow the switch GUID.",
                .usage = "[options] <orig.cache> <new.cache>",
                .examples = "  ibcacheedit --switchguid 0x200000:0x300000 fabric.cache new.cache",
                .make = [] { return std::make_unique<IbCacheEdit>(); }});
