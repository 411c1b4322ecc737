#include "iba/decode.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "iba/cc.h"
#include "iba/introspect.h"
#include "iba/smp.h"

namespace iba {

MadInfo identify_mad(std::span<const uint8_t> mad) {
  MadInfo m;
  if (mad.size() < MAD_HEADER_SIZE) return m;
  MADHeader h;
  h.load(mad);
  m.base_version = uint8_t(h.baseVersion());
  m.mgmt_class = uint8_t(h.mgmtClass());
  m.class_version = uint8_t(h.classVersion());
  m.method = uint8_t(h.method());
  m.status = uint16_t(h.status());
  m.attr_id = uint16_t(h.attributeID());
  m.attr_mod = uint32_t(h.attributeModifier());
  m.tid = h.transactionID();
  m.cls = find_class(m.mgmt_class, m.class_version);
  if (!m.cls) {
    m.cls = find_class(m.mgmt_class, 0);
    m.version_mismatch = m.cls != nullptr;
  }
  if (m.cls) m.attr = find_attr(*m.cls, m.attr_id);
  if (m.attr) {
    // The layout the payload is in (CongestionLog starts early in its MAD).
    size_t off = m.cls->mgmt_class == mgmt::CC && m.attr_id == AttrId<CCCongestionLogSwitch>::value ? CC_LOG_DATA_OFF
                                                                                                   : m.cls->data_off;
    if (mad.size() > off) m.attr = &payload_attr(*m.cls, *m.attr, mad.subspan(off));
  }
  return m;
}

std::string format_label(const MadInfo& m) {
  char b[64];
  std::snprintf(b, sizeof b, "%s(%u.%u)", m.cls ? m.cls->name : "MADFormat", m.mgmt_class, m.class_version);
  return b;
}

std::string attr_label(const MadInfo& m) {
  char b[96];
  if (m.attr)
    std::snprintf(b, sizeof b, "%s(%u)", m.attr->desc->name, m.attr_id);
  else
    std::snprintf(b, sizeof b, "Attribute(0x%04x)", m.attr_id);
  return b;
}

std::string mad_summary(std::span<const uint8_t> mad) {
  if (mad.size() < MAD_HEADER_SIZE) return "short MAD (" + std::to_string(mad.size()) + " bytes)";
  MadInfo m = identify_mad(mad);
  return method_name(m.mgmt_class, m.method) + " " + format_label(m) + " " + attr_label(m);
}

std::string decode_payload(const StructDesc& desc, std::span<const uint8_t> data, uint32_t base_off) {
  std::vector<uint8_t> buf(desc.size, 0);
  std::memcpy(buf.data(), data.data(), std::min(data.size(), buf.size()));
  return dump_detailed(desc, buf.data(), base_off, 0);
}

std::string decode_mad(std::span<const uint8_t> mad) {
  if (mad.size() < MAD_HEADER_SIZE) return mad_summary(mad) + "\n";
  std::vector<uint8_t> buf(MAD_SIZE, 0);
  std::memcpy(buf.data(), mad.data(), std::min(mad.size(), buf.size()));
  MadInfo m = identify_mad(buf);
  std::string out = mad_summary(buf) + "\n";
  if (m.status) {
    char b[16];
    std::snprintf(b, sizeof b, "0x%04x", m.status);
    out += std::string("status ") + b + ": " + status_text(m.mgmt_class, m.status) + "\n";
  }
  if (!m.cls) {
    out += "management class " + std::to_string(m.mgmt_class) + " is unknown: header, then the rest as hex\n";
    out += dump_detailed(MADHeader::DESC, buf.data(), 0, 0);
    for (uint32_t o = MAD_HEADER_SIZE; o < MAD_SIZE; o += 4) {
      char b[32];
      std::snprintf(b, sizeof b, "%3u %02X%02X%02X%02X\n", o, buf[o], buf[o + 1], buf[o + 2], buf[o + 3]);
      out += b;
    }
    return out;
  }
  if (m.version_mismatch)
    out += "class version " + std::to_string(m.class_version) + " is not the known version " +
           std::to_string(m.cls->class_version) + " of " + m.cls->name + ": decoded as that version\n";
  // The payload field of the format: the one starting at data_off (a
  // CongestionLog has a longer one, from CC_LOG_DATA_OFF).
  const StructDesc* format = m.cls->format;
  uint32_t data_off = m.cls->data_off;
  if (m.mgmt_class == mgmt::CC && m.attr_id == AttrId<CCCongestionLogSwitch>::value) {
    format = &CCLogFormat::DESC;
    data_off = CC_LOG_DATA_OFF;
  }
  const FieldDesc* data = nullptr;
  for (const auto& f : format->field_list())
    if (f.bit_off == data_off * 8 && f.kind == Kind::Bytes) data = &f;
  if (!data) return out + dump_detailed(*format, buf.data(), 0, 0);
  if (!m.attr) {
    char b[96];
    std::snprintf(b, sizeof b, "attribute 0x%04x is unknown to %s: payload shown as hex\n", m.attr_id, m.cls->name);
    out += b;
    DumpAs as[] = {{data->name, nullptr, 1, 0, {}}};
    return out + dump_detailed(*format, buf.data(), 0, 0, as);
  }
  const StructDesc* ad = m.attr->desc;
  uint32_t count = 1, stride = 0;
  // Table replies carry several records, attributeOffset 8-byte words apart.
  if (auto off = find_field(*format, "attributeOffset")) {
    uint32_t words = uint32_t(get_uint(*off, buf.data()));
    if (words && (m.method == method::GET_TABLE_RESP || m.method == method::GET_MULTI_RESP ||
                  m.method == 0x93 /* GetTraceTableResp */)) {
      stride = words * 8;
      count = m.cls->data_size / stride;
      if (count == 0) count = 1;
    }
  }
  // A generic Notice: its data details in the form of its trap number.
  DumpAs notice_inner[1];
  std::span<const DumpAs> inner;
  if (ad == &MADNotice::DESC) {
    MADNotice n;
    n.load({buf.data() + data_off, std::min<size_t>(MADNotice::SIZE, MAD_SIZE - data_off)});
    if (n.isGeneric()) {
      if (const StructDesc* d = notice_details_desc(uint16_t(n.trapNumber()))) {
        notice_inner[0] = DumpAs{"dataDetails", d, 1, 0, {}};
        inner = notice_inner;
      }
    }
  }
  DumpAs as[] = {{data->name, ad, count, stride, inner}};
  return out + dump_detailed(*format, buf.data(), 0, 0, as);
}

std::string check_mad_size(size_t n) {
  if (n < MAD_HEADER_SIZE)
    return "MAD too short: " + std::to_string(n) + " bytes, a MAD has at least the " +
           std::to_string(MAD_HEADER_SIZE) + " byte header";
  if (n > MAD_SIZE) return "MAD too long: " + std::to_string(n) + " bytes, a MAD has at most " + std::to_string(MAD_SIZE);
  return {};
}

namespace {

std::vector<std::string_view> split_lines(std::string_view t) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i <= t.size()) {
    size_t j = t.find('\n', i);
    if (j == std::string_view::npos) j = t.size();
    out.push_back(t.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::vector<std::string_view> tokens(std::string_view l) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < l.size()) {
    while (i < l.size() && std::isspace(static_cast<unsigned char>(l[i]))) ++i;
    size_t j = i;
    while (j < l.size() && !std::isspace(static_cast<unsigned char>(l[j]))) ++j;
    if (j > i) out.push_back(l.substr(i, j - i));
    i = j;
  }
  return out;
}

bool is_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

bool is_dec(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "[X: ]off WORD [name=value,...]" of a detailed dump; returns the offset.
std::optional<uint32_t> dump_line(std::string_view line, uint32_t& word) {
  auto t = tokens(line);
  size_t k = 0;
  if (!t.empty() && t[0].size() == 2 && t[0][1] == ':' && std::isalpha(static_cast<unsigned char>(t[0][0]))) k = 1;
  if (t.size() < k + 2 || t[k].size() > 3 || !is_dec(t[k]) || t[k + 1].size() != 8 || !is_hex(t[k + 1]))
    return std::nullopt;
  if (t.size() > k + 2 && t[k + 2].find('=') == std::string_view::npos) return std::nullopt;
  uint32_t off = uint32_t(std::stoul(std::string(t[k])));
  if (off >= MAD_SIZE) return std::nullopt;  // nested structures may start at any byte
  word = uint32_t(std::stoul(std::string(t[k + 1]), nullptr, 16));
  return off;
}

}  // namespace

std::optional<std::vector<uint8_t>> parse_mad_text(std::string_view text, std::string* err) {
  auto fail = [&](const std::string& m) -> std::optional<std::vector<uint8_t>> {
    if (err) *err = m;
    return std::nullopt;
  };
  auto lines = split_lines(text);
  // A detailed dump: words at their offsets, other lines (summary, "+ data")
  // ignored.
  std::vector<uint8_t> dump(MAD_SIZE, 0);
  size_t dump_lines = 0, other = 0;
  for (auto l : lines) {
    uint32_t w = 0;
    if (auto off = dump_line(l, w)) {
      for (uint32_t k = 0; k < 4 && *off + k < MAD_SIZE; ++k) dump[*off + k] = uint8_t(w >> (24 - 8 * k));
      ++dump_lines;
    } else if (!tokens(l).empty()) {
      ++other;
    }
  }
  // Plain hex needs every token to be hex; a dump has at least one line
  // with a field or an offset that plain hex cannot have.
  bool plain_ok = true;
  std::vector<uint8_t> bytes;
  for (auto l : lines) {
    auto t = tokens(l);
    if (t.empty()) continue;
    if (t[0] == "SMP" && t.size() > 1 && t[1].substr(0, 6) == "status") continue;  // smpdump's status line
    for (auto tok : t) {
      // Separators inside a token: colons and commas.
      size_t i = 0;
      while (i <= tok.size()) {
        size_t j = tok.find_first_of(":,", i);
        if (j == std::string_view::npos) j = tok.size();
        std::string_view h = tok.substr(i, j - i);
        i = j + 1;
        if (h.empty()) {
          if (j == tok.size()) break;
          continue;
        }
        if (h.size() > 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) h.remove_prefix(2);
        if (!is_hex(h) || h.size() % 2) {
          plain_ok = false;
          break;
        }
        for (size_t k = 0; k < h.size(); k += 2)
          bytes.push_back(uint8_t(std::stoul(std::string(h.substr(k, 2)), nullptr, 16)));
        if (j == tok.size()) break;
      }
      if (!plain_ok) break;
    }
    if (!plain_ok) break;
  }
  if (dump_lines && (!plain_ok || other)) {
    return dump;  // a dump leaves out zero words: the whole MAD
  }
  if (!plain_ok) {
    // Point at the first offending token.
    for (auto l : lines)
      for (auto tok : tokens(l)) {
        std::string t(tok);
        bool ok = true;
        for (char c : t)
          if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != ',' && c != 'x' && c != 'X') ok = false;
        if (!ok) return fail("not hex: '" + t + "'");
      }
    return fail("hex digits must come in pairs (whole bytes)");
  }
  return bytes;
}

std::string dump_mad(std::span<const uint8_t> mad) {
  if (mad.size() < MADHeader::SIZE) return "(short MAD of " + std::to_string(mad.size()) + " bytes)\n";
  const ClassDesc* c = find_class(uint8_t(MADHeader::mgmtClass_at(mad.data())), uint8_t(MADHeader::classVersion_at(mad.data())));
  std::vector<uint8_t> buf(mad.begin(), mad.end());
  if (!c) {
    buf.resize(MADHeader::SIZE);
    return dump_detailed(MADHeader::DESC, buf.data()) + "payload " + hex_bytes(mad.subspan(MADHeader::SIZE)) + "\n";
  }
  buf.resize(std::max<size_t>(buf.size(), c->format->size));
  std::string s = dump_detailed(*c->format, buf.data());
  if (const AttrDesc* a = find_attr(*c, uint16_t(MADHeader::attributeID_at(buf.data())))) {
    s += "+ " + std::string(a->desc->name) + "\n";
    if (c->data_off + a->desc->size <= buf.size()) s += dump_detailed(*a->desc, buf.data() + c->data_off, c->data_off, 1);
  }
  return s;
}

}  // namespace iba
