#include "core/fabric/lftbalance.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>

#include "core/base/error.h"
#include "core/base/regex.h"
#include "core/fabric/discovery.h"
#include "core/fabric/routes.h"
#include "core/out/log.h"
#include "core/out/print.h"

namespace ibcore {

namespace {

// The script's reading of a dump, line by line, with its state.
class Balance {
public:
  Balance(const Subnet* db, const NodeNameMap& map, const LftBalanceOptions& o) : db_(db), map_(map), o_(o) {}
  std::vector<SwitchBalance> take() { return std::move(out_); }

  void run(const std::vector<std::string>& lines) {
    // The script's patterns, matched by PCRE2 as Perl matches them.
    static const Regex re_dr("Unicast lids .+ of switch DR path slid .+ guid (.+) \\((.+)\\)");
    static const Regex re_lid("Unicast lids .+ of switch Lid .+ guid (.+) \\((.+)\\)");
    static const Regex re_host(".+ (.+) : \\(.+ portguid .+: '(.+)'\\)");
    static const Regex re_path(".+ (.+) : \\(path #. out of .: portguid .+\\)");
    for (const std::string& line : lines) {
      Regex::Match m;
      if (line.find("Unicast") != std::string::npos) {
        if (!host_ports_.empty()) process_host_ports();
        if (switch_name_) output_switch();
        if (re_dr.search(line, m)) {
          switch_guid_ = m.group(1);
          switch_name_ = m.group(2);
        }
        if (re_lid.search(line, m)) {
          switch_guid_ = m.group(1);
          switch_name_ = m.group(2);
        }
        maybe_hosts_.clear();
        counts_.clear();
        host_ports_.clear();
        lids_per_port_ = 0;
        lids_per_port_calculated_ = 0;
      } else if (line.find("Channel") != std::string::npos || line.find("Router") != std::string::npos) {
        std::optional<std::string> port, host;
        if (re_host.search(line, m)) {
          port = m.group(1);
          host = m.group(2);
        }
        host_ = host;
        ++counts_[port.value_or("")];
        if (!host_ports_.empty()) process_host_ports();
        host_ports_.assign(1, port);
        if (lids_per_port_ == 0) ++lids_per_port_;
        else ++lids_per_port_calculated_;
      } else if (line.find("path") != std::string::npos) {
        std::optional<std::string> port;
        if (re_path.search(line, m)) port = m.group(1);
        ++counts_[port.value_or("")];
        if (lids_per_port_calculated_ == 0) ++lids_per_port_;
        host_ports_.push_back(port);
      } else {
        if (lids_per_port_) ++lids_per_port_calculated_;
      }
    }
    if (!host_ports_.empty()) process_host_ports();
    output_switch();
  }

private:
  // Every host port line of the last host names the same port: the host
  // may hang directly off this switch.
  void process_host_ports() {
    if (host_ports_.size() != lids_per_port_) return;
    double first = perl_number(host_ports_[0]);
    for (auto& p : host_ports_)
      if (perl_number(p) != first) return;
    maybe_hosts_.push_back(host_);
  }

  // The switch port's iblinkinfo line: exists, says "Down", says "Active".
  struct LinkLine {
    bool exists = false, down = false, active = false;
  };
  LinkLine link_line(unsigned port) const {
    LinkLine l;
    if (!db_ || !switch_guid_) return l;
    uint32_t n = db_->node_by_guid(std::strtoull(switch_guid_->c_str(), nullptr, 16));
    if (n == NO_INDEX) return l;
    const Node& sw = db_->node(n);
    if (!sw.is_switch() || port < 1 || port > sw.nports) return l;
    l.exists = true;
    const Port& p = db_->port(sw, port);
    std::string peer;
    if (const Port* r = db_->peer(p)) {
      const Node& rn = db_->node_of(*r);
      peer = map_.remap(rn.guid, rn.description());
    }
    unsigned state = p.has_info ? p.state() : 1;
    l.down = state == 1 || peer.find("Down") != std::string::npos;
    l.active = state == 4 || peer.find("Active") != std::string::npos;
    return l;
  }

  unsigned count(const std::string& port) {
    auto it = counts_.find(port);
    return it == counts_.end() ? 0 : it->second;
  }

  bool directly_connected(const std::string& port) {
    if (count(port) != lids_per_port_ || maybe_hosts_.empty()) return false;
    LinkLine l = link_line(unsigned(std::stoul(port)));
    if (!l.exists || !l.active) return false;
    // The script's name capture never matches iblinkinfo's layout: an
    // undefined name, 0 as a number, is compared with each host's name.
    for (auto& h : maybe_hosts_)
      if (perl_number(h) == 0) return true;
    return false;
  }

  void output_switch() {
    unsigned min_u = 999999, max_u = 0, min2 = 999999, max2 = 0;
    std::vector<std::string> out_ports;
    unsigned on_switch = 0;
    bool unbalanced = false;
    for (unsigned i = 1; i <= 36; ++i) {
      char b[8];
      std::snprintf(b, sizeof b, "%03u", i);
      std::string port = b;
      unsigned c = count(port);
      counts_.emplace(port, 0);
      if (c == 0) {
        LinkLine l = link_line(i);
        if (!l.exists || l.down) continue;
      }
      ++on_switch;
      if (directly_connected(port)) continue;
      out_ports.push_back(port);
      min_u = std::min(min_u, c);
      max_u = std::max(max_u, c);
    }
    if (max_u > min_u + 1) unbalanced = true;
    if (o_.heuristic && unbalanced && on_switch > 12) {
      std::vector<std::string> dbl;
      for (auto& p : out_ports) {
        unsigned c = count(p);
        if (c == max_u || c + 1 == max_u || c == 0) continue;
        dbl.push_back(p);
      }
      long half = long(on_switch / 2), n = long(dbl.size());
      if (n == half || n == half + 1 || n == half - 1) {
        for (auto& p : dbl) {
          min2 = std::min(min2, count(p));
          max2 = std::max(max2, count(p));
        }
        if (!(max2 > min2 + 1)) unbalanced = false;
      }
    }
    if (o_.heuristic && unbalanced && on_switch > 12) {
      bool all_zero = true;
      for (auto& p : out_ports) {
        unsigned c = count(p);
        if (c == max_u || c + 1 == max_u) continue;
        if (c != 0) {
          all_zero = false;
          break;
        }
      }
      if (all_zero) unbalanced = false;
    }
    if (!o_.verbose && !unbalanced) return;
    SwitchBalance sb{switch_guid_.value_or(""), switch_name_.value_or(""), unbalanced, {}};
    for (auto& p : out_ports) sb.ports.push_back({p, count(p)});
    out_.push_back(std::move(sb));
  }

  const Subnet* db_;
  const NodeNameMap& map_;
  LftBalanceOptions o_;
  std::vector<SwitchBalance> out_;
  std::optional<std::string> switch_guid_, switch_name_, host_;
  std::map<std::string, unsigned> counts_;
  std::vector<std::optional<std::string>> maybe_hosts_, host_ports_;
  unsigned lids_per_port_ = 0, lids_per_port_calculated_ = 0;
};

}  // namespace

std::vector<SwitchBalance> lft_balance(const std::vector<std::string>& lines, const Subnet* db, const NodeNameMap& map,
                                       const LftBalanceOptions& o) {
  Balance b(db, map, o);
  b.run(lines);
  return b.take();
}

std::vector<std::string> lft_dump_lines(const Subnet& db, const NodeNameMap& map_) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  if (!f) throw Error("open_memstream failed");
  std::vector<LidDest> dests = lid_dests_from_db(db, map_);
  {
  ibcore::Printer p(f, false, false);
  UnicastDump dump(p, false, false);
  for (uint32_t id : db.reference_order(NodeType::Switch)) {
    const Node& n = db.node(id);
    const SwitchTables* t = db.find_tables(id);
    if (!n.has_swinfo || !t || !t->lft_valid) {
      ibcore::log::error("E: the SA gave no linear forwarding table of switch 0x%016llx\n",
                   (unsigned long long)n.guid);
      continue;
    }
    unsigned top = iba::lft_range(n.switch_info(), 0, 0).last;
    dump.table({n.guid, map_.remap(n.guid, n.description()), 0, {},
                "DR path slid 0; dlid 0; " + dr_path_of(db, id).dr_string()},
               t->lft, 0, top, dests);
  }
  p.finish();
  }
  std::fclose(f);
  std::vector<std::string> lines;
  std::string text(buf, len);
  std::free(buf);
  for (size_t a = 0, b; a < text.size(); a = b + 1) {
    b = text.find('\n', a);
    if (b == std::string::npos) b = text.size();
    lines.push_back(text.substr(a, b - a));
  }
  return lines;
}

}  // namespace ibcore
