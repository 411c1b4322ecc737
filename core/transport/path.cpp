#include "core/transport/path.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/base/error.h"
#include "core/out/json.h"
#include "iba/smp.h"
#include "iba/introspect.h"

namespace ibcore {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c); });
}

bool is_hex_prefixed(std::string_view s) {
  return s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
         std::all_of(s.begin() + 2, s.end(), [](char c) { return std::isxdigit((unsigned char)c); });
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace((unsigned char)s.front())) s.remove_prefix(1);
  while (!s.empty() && std::isspace((unsigned char)s.back())) s.remove_suffix(1);
  return std::string(s);
}

[[noreturn]] void bad(std::string_view s, std::string_view why) {
  throw Error("Invalid destination " + std::string(s) + ": " + std::string(why));
}

// Strict integer: decimal, or 0x hex; bounded by max.
bool parse_num(std::string_view s, uint64_t max, uint64_t& out) {
  if (s.empty()) return false;
  uint64_t v = 0;
  if (is_hex_prefixed(s)) {
    if (s.size() > 18) return false;
    for (char c : s.substr(2)) v = v * 16 + uint64_t(std::isdigit((unsigned char)c) ? c - '0' : (std::tolower(c) - 'a' + 10));
  } else if (all_digits(s)) {
    if (s.size() > 19) return false;
    for (char c : s) v = v * 10 + uint64_t(c - '0');
  } else {
    return false;
  }
  if (v > max) return false;
  out = v;
  return true;
}

uint16_t parse_lid(std::string_view orig, std::string_view s) {
  uint64_t v;
  if (!parse_num(s, 0xffff, v)) {
    // A number too big for a LID is most likely a GUID as ibtool prints
    // them (0x0002c90300001491): it stays a LID (the reference's meaning),
    // and the message says how to give a GUID.
    if (parse_num(s, ~0ull, v)) {
      char g[20];
      std::snprintf(g, sizeof g, "%04x:%04x:%04x:%04x", unsigned(v >> 48), unsigned(v >> 32 & 0xffff),
                    unsigned(v >> 16 & 0xffff), unsigned(v & 0xffff));
      bad(orig, "not a LID (for a port GUID give -G " + std::string(s) + ", or write it " + g + ")");
    }
    bad(orig, "not a LID");
  }
  if (v == 0 || v > iba::UNICAST_LID_LAST) bad(orig, "not a unicast LID");
  return uint16_t(v);
}

// "GID%dev/port" or "GID%dev": fill ca/port.
void parse_scope(std::string_view orig, std::string_view scope, IBPath& p) {
  if (scope.empty()) bad(orig, "empty scope after %");
  auto slash = scope.find('/');
  p.ca = std::string(scope.substr(0, slash));
  if (p.ca.empty()) bad(orig, "empty device name in scope");
  if (slash != std::string_view::npos) {
    uint64_t port;
    if (!parse_num(scope.substr(slash + 1), 255, port) || port == 0) bad(orig, "bad port number in scope");
    p.port = int(port);
  }
}

bool looks_like_colon_guid(std::string_view s) {
  // 0002:c903:0000:1491: four groups of 1-4 hex digits, nothing else.
  int groups = 0;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(':', i);
    if (j == std::string_view::npos) j = s.size();
    auto g = s.substr(i, j - i);
    if (g.empty() || g.size() > 4 ||
        !std::all_of(g.begin(), g.end(), [](char c) { return std::isxdigit((unsigned char)c); }))
      return false;
    ++groups;
    i = j + 1;
  }
  return groups == 4;
}

// --- path spec: IBPath(k=v,...) ---
struct Key {
  const char* name;
  void (*set)(IBPath&, std::string_view orig, std::string_view v);
};

uint64_t num(std::string_view orig, std::string_view v, uint64_t max) {
  uint64_t r;
  if (!parse_num(v, max, r)) bad(orig, "bad value " + std::string(v));
  return r;
}
iba::Gid gid(std::string_view orig, std::string_view v) {
  auto g = iba::parse_gid(v);
  if (!g) bad(orig, "bad GID " + std::string(v));
  return *g;
}

const Key KEYS[] = {
    {"ca", [](IBPath& p, std::string_view, std::string_view v) { p.ca = std::string(v); }},
    {"port", [](IBPath& p, std::string_view o, std::string_view v) { p.port = int(num(o, v, 255)); }},
    {"SLID", [](IBPath& p, std::string_view o, std::string_view v) { p.SLID = uint16_t(num(o, v, 0xffff)); }},
    {"DLID", [](IBPath& p, std::string_view o, std::string_view v) { p.DLID = uint16_t(num(o, v, 0xffff)); }},
    {"SL", [](IBPath& p, std::string_view o, std::string_view v) { p.SL = uint8_t(num(o, v, 15)); }},
    {"pkey", [](IBPath& p, std::string_view o, std::string_view v) { p.pkey = uint16_t(num(o, v, 0xffff)); }},
    {"pkey_index",
     [](IBPath& p, std::string_view o, std::string_view v) { p.pkey_index = uint16_t(num(o, v, 0xffff)); }},
    {"qkey", [](IBPath& p, std::string_view o, std::string_view v) { p.qkey = uint32_t(num(o, v, 0xffffffff)); }},
    {"dqpn", [](IBPath& p, std::string_view o, std::string_view v) { p.dqpn = uint32_t(num(o, v, 0xffffff)); }},
    {"sqpn", [](IBPath& p, std::string_view o, std::string_view v) { p.sqpn = uint32_t(num(o, v, 0xffffff)); }},
    {"has_grh", [](IBPath& p, std::string_view o, std::string_view v) { p.has_grh = num(o, v, 1) != 0; }},
    {"SGID", [](IBPath& p, std::string_view o, std::string_view v) { p.SGID = gid(o, v); }},
    {"DGID", [](IBPath& p, std::string_view o, std::string_view v) {
       p.DGID = gid(o, v);
       p.has_grh = true;
     }},
    {"traffic_class",
     [](IBPath& p, std::string_view o, std::string_view v) { p.traffic_class = uint8_t(num(o, v, 255)); }},
    {"flow_label",
     [](IBPath& p, std::string_view o, std::string_view v) { p.flow_label = uint32_t(num(o, v, 0xfffff)); }},
    {"hop_limit", [](IBPath& p, std::string_view o, std::string_view v) { p.hop_limit = uint8_t(num(o, v, 255)); }},
    {"MTU", [](IBPath& p, std::string_view o, std::string_view v) { p.MTU = uint8_t(num(o, v, 63)); }},
    {"rate", [](IBPath& p, std::string_view o, std::string_view v) { p.rate = uint8_t(num(o, v, 63)); }},
    {"packet_life_time",
     [](IBPath& p, std::string_view o, std::string_view v) { p.packet_life_time = uint8_t(num(o, v, 63)); }},
    {"resp_time", [](IBPath& p, std::string_view o, std::string_view v) { p.resp_time = uint8_t(num(o, v, 31)); }},
    {"retries", [](IBPath& p, std::string_view o, std::string_view v) { p.retries = int(num(o, v, 1000)); }},
    {"mkey", [](IBPath& p, std::string_view o, std::string_view v) { p.mkey = num(o, v, ~0ull); }},
    {"smkey", [](IBPath& p, std::string_view o, std::string_view v) { p.smkey = num(o, v, ~0ull); }},
    {"sqpsn", [](IBPath& p, std::string_view o, std::string_view v) { p.sqpsn = uint32_t(num(o, v, 0xffffff)); }},
    {"dqpsn", [](IBPath& p, std::string_view o, std::string_view v) { p.dqpsn = uint32_t(num(o, v, 0xffffff)); }},
    {"min_rnr_timer",
     [](IBPath& p, std::string_view o, std::string_view v) { p.min_rnr_timer = uint8_t(num(o, v, 31)); }},
    {"srdatomic", [](IBPath& p, std::string_view o, std::string_view v) { p.srdatomic = uint8_t(num(o, v, 255)); }},
    {"drdatomic", [](IBPath& p, std::string_view o, std::string_view v) { p.drdatomic = uint8_t(num(o, v, 255)); }},
    {"drPath", [](IBPath& p, std::string_view o, std::string_view v) {
       std::string s(v);
       std::replace(s.begin(), s.end(), ':', ',');
       auto d = parse_dr_path(s);
       if (!d) bad(o, "bad drPath " + std::string(v));
       p.drPath = *d;
     }},
    {"drSLID", [](IBPath& p, std::string_view o, std::string_view v) { p.drSLID = uint16_t(num(o, v, 0xffff)); }},
    {"drDLID", [](IBPath& p, std::string_view o, std::string_view v) { p.drDLID = uint16_t(num(o, v, 0xffff)); }},
};

bool ieq(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower((unsigned char)x) == std::tolower((unsigned char)y);
         });
}

IBPath parse_spec(std::string_view orig, std::string_view s) {
  IBPath p;
  bool dr = false;
  if (s.starts_with("IBDRPath(")) {
    dr = true;
    s.remove_prefix(9);
  } else {
    s.remove_prefix(7);  // "IBPath("
  }
  if (s.empty() || s.back() != ')') bad(orig, "path spec must end with )");
  s.remove_suffix(1);
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string_view::npos) j = s.size();
    std::string kv = trim(s.substr(i, j - i));
    i = j + 1;
    if (kv.empty()) continue;
    auto eq = kv.find('=');
    if (eq == std::string::npos) bad(orig, "expected name=value, got " + kv);
    std::string k = trim(std::string_view(kv).substr(0, eq));
    std::string v = trim(std::string_view(kv).substr(eq + 1));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
    const Key* key = nullptr;
    for (const auto& kk : KEYS)
      if (ieq(kk.name, k)) key = &kk;
    if (!key) bad(orig, "unknown path attribute " + k);
    key->set(p, orig, v);
  }
  if (dr && p.drPath.empty()) p.drPath = {0};
  if (!dr && p.is_dr()) bad(orig, "drPath needs IBDRPath(...)");
  return p;
}

void put(std::string& out, const char* k, uint64_t v, bool hex = false) {
  char b[64];
  std::snprintf(b, sizeof b, hex ? ",%s=0x%llx" : ",%s=%llu", k, (unsigned long long)v);
  out += b;
}

}  // namespace

double iba_time_ms(unsigned exponent) { return 4.096e-3 * double(1ull << std::min(exponent, 31u)); }

double iba_reply_bound_ms(unsigned resp_time, unsigned packet_life) {
  return iba_time_ms(resp_time) + 2 * iba_time_ms(packet_life);
}

int IBPath::mad_timeout_ms(int given_ms) const {
  if (given_ms > 0) return given_ms;
  if (!packet_life_time && !resp_time) return 1000;
  double ms = iba_reply_bound_ms(resp_time.value_or(8), packet_life_time.value_or(0));
  // Never below 100 ms: a busy simulated or real SMA must not look dead.
  return int(std::clamp(ms, 100.0, 60000.0));
}

int IBPath::mad_retries(int port_retries) const { return retries ? *retries : port_retries; }

IBPath& IBPath::reverse(bool for_reply) {
  std::swap(SLID, DLID);
  std::swap(SGID, DGID);
  std::swap(sqpn, dqpn);
  if (is_dr()) {
    std::swap(drSLID, drDLID);
    std::reverse(drPath.begin() + 1, drPath.end());
  }
  if (for_reply) hop_limit = 255;
  return *this;
}

std::optional<std::vector<uint8_t>> parse_dr_path(std::string_view s) {
  std::vector<uint8_t> out{0};
  if (s.empty()) return std::nullopt;
  size_t i = 0;
  bool first = true;
  while (i < s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string_view::npos) j = s.size();
    auto tok = s.substr(i, j - i);
    i = j + 1;
    if (tok.empty()) {
      if (j == s.size() - 1 || j == s.size()) break;  // trailing comma ("0,")
      return std::nullopt;
    }
    uint64_t v;
    if (!all_digits(tok) || tok.size() > 3 || !parse_num(tok, 255, v)) return std::nullopt;
    if (first) {
      first = false;
      if (v != 0) return std::nullopt;  // starts at the local port, 0
      continue;
    }
    if (v == 0) return std::nullopt;  // port 0 is not a hop
    out.push_back(uint8_t(v));
    if (out.size() > 64) return std::nullopt;  // IBA: at most 63 hops
  }
  if (first) return std::nullopt;
  return out;
}

IBPath IBPath::from_string(std::string_view in, Form form) {
  std::string s = trim(in);
  std::string_view sv = s;
  if (sv.empty()) bad(in, "empty");
  if (sv.starts_with("IBPath(") || sv.starts_with("IBDRPath(")) {
    if (form != Form::Auto) bad(in, "a path spec cannot be combined with -L/-G/-D");
    return parse_spec(in, sv);
  }
  IBPath p;
  if (form == Form::DR || (form == Form::Auto && sv.find(',') != std::string_view::npos)) {
    auto d = parse_dr_path(sv);
    if (!d) bad(in, "not a directed route path (e.g. 0,1,4)");
    p.drPath = *d;
    return p;
  }
  // GID forms (a '%' scope, or '::' / more than four groups of colons).
  std::string_view addr = sv;
  auto pct = sv.find('%');
  if (pct != std::string_view::npos) addr = sv.substr(0, pct);
  if (addr.find(':') != std::string_view::npos) {
    if (form == Form::LID) bad(in, "not a LID");
    if (looks_like_colon_guid(addr) && pct == std::string_view::npos) {
      auto g = iba::parse_guid(addr);
      if (!g) bad(in, "not a port GUID");
      p.DGID = iba::Gid::from(DEFAULT_SUBNET_PREFIX, *g);
    } else {
      if (form == Form::GUID) bad(in, "not a port GUID");
      auto g = iba::parse_gid(addr);
      if (!g) bad(in, "not a port GID");
      p.DGID = *g;
      if (pct != std::string_view::npos) parse_scope(in, sv.substr(pct + 1), p);
    }
    p.has_grh = true;
    return p;
  }
  if (pct != std::string_view::npos) bad(in, "a scope (%dev/port) needs a GID");
  if (form == Form::GUID) {
    uint64_t g;
    if (!parse_num(sv, ~0ull, g) || !is_hex_prefixed(sv)) {
      auto pg = iba::parse_guid(sv);
      if (!pg) bad(in, "not a port GUID");
      g = *pg;
    }
    p.DGID = iba::Gid::from(DEFAULT_SUBNET_PREFIX, g);
    p.has_grh = true;
    return p;
  }
  p.DLID = parse_lid(in, sv);
  return p;
}

std::string IBPath::dr_string() const {
  std::string s;
  for (size_t i = 0; i < drPath.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(drPath[i]);
  }
  return s;
}

std::string IBPath::describe() const {
  if (is_dr()) {
    std::string s = "DR path " + dr_string();
    if (drSLID != LID_PERMISSIVE || drDLID != LID_PERMISSIVE) {
      char b[64];
      std::snprintf(b, sizeof b, " (slid %u dlid %u)", drSLID, drDLID);
      s += b;
    }
    return s;
  }
  if (DLID) return "lid " + std::to_string(DLID);
  if (has_grh) return "GID " + DGID.str();
  return "local port";
}

void IBPath::json_dr(JsonOut& j) const {
  j.arr();
  for (uint8_t p : drPath) j.num(p);
  j.end();
}

void IBPath::json(JsonOut& j) const {
  j.obj();
  if (DLID) j.kv("LID", DLID);
  if (is_dr()) {
    j.key("DRPath");
    json_dr(j);
    if (drSLID != LID_PERMISSIVE || drDLID != LID_PERMISSIVE) j.kv("drSLID", drSLID).kv("drDLID", drDLID);
  }
  if (has_grh && !is_dr()) j.ks("GID", DGID.str());
  j.end();
}

std::string IBPath::repr() const {
  const IBPath def = is_dr() ? IBPath(IBDRPath()) : IBPath();
  std::string o;
  if (!ca.empty()) o += ",ca=" + ca;
  if (port) put(o, "port", unsigned(port));
  if (is_dr()) {
    std::string d;
    for (size_t i = 0; i < drPath.size(); ++i) d += (i ? ":" : "") + std::to_string(drPath[i]);
    o += ",drPath=" + d;
    if (drSLID != def.drSLID) put(o, "drSLID", drSLID, true);
    if (drDLID != def.drDLID) put(o, "drDLID", drDLID, true);
  }
  if (SLID != def.SLID) put(o, "SLID", SLID);
  if (DLID != def.DLID) put(o, "DLID", DLID);
  if (SL != def.SL) put(o, "SL", SL);
  if (pkey != def.pkey) put(o, "pkey", pkey, true);
  if (pkey_index) put(o, "pkey_index", *pkey_index);
  if (qkey != def.qkey) put(o, "qkey", qkey, true);
  if (dqpn != def.dqpn) put(o, "dqpn", dqpn);
  if (sqpn != def.sqpn) put(o, "sqpn", sqpn);
  if (SGID != def.SGID) o += ",SGID=" + SGID.str();
  if (DGID != def.DGID) o += ",DGID=" + DGID.str();
  // has_grh after DGID: setting DGID turns it on, this may turn it off.
  if (has_grh != (DGID != def.DGID)) put(o, "has_grh", has_grh);
  if (traffic_class != def.traffic_class) put(o, "traffic_class", traffic_class);
  if (flow_label != def.flow_label) put(o, "flow_label", flow_label, true);
  if (hop_limit != def.hop_limit) put(o, "hop_limit", hop_limit);
  if (MTU != def.MTU) put(o, "MTU", MTU);
  if (rate != def.rate) put(o, "rate", rate);
  if (packet_life_time) put(o, "packet_life_time", *packet_life_time);
  if (resp_time) put(o, "resp_time", *resp_time);
  if (retries) put(o, "retries", unsigned(*retries));
  if (mkey) put(o, "mkey", *mkey, true);
  if (smkey) put(o, "smkey", *smkey, true);
  if (sqpsn != def.sqpsn) put(o, "sqpsn", sqpsn, true);
  if (dqpsn != def.dqpsn) put(o, "dqpsn", dqpsn, true);
  if (min_rnr_timer != def.min_rnr_timer) put(o, "min_rnr_timer", min_rnr_timer);
  if (srdatomic != def.srdatomic) put(o, "srdatomic", srdatomic);
  if (drdatomic != def.drdatomic) put(o, "drdatomic", drdatomic);
  if (!o.empty()) o.erase(0, 1);
  return std::string(is_dr() ? "IBDRPath(" : "IBPath(") + o + ")";
}

}  // namespace ibcore
