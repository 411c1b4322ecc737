// The one way IBA structures are declared: as data.
//
// A structure is a list of fields (name, bit offset, bit width, kind, and
// for arrays a count, for nested structures the nested type), written once
// as an X-macro list.  IBA_STRUCT turns that list into
//   * a C++ type holding the wire bytes (network order) with typed
//     accessors  x.name()  and  x.set_name(v),
//   * a constexpr field table (iba::StructDesc) that drives everything
//     generic: get/set by dotted name, parsing values from text, printing,
//     detailed dumps and SA component masks (iba/introspect.h).
// Packing is free: the object *is* the wire image.
//
// Declaring a structure:
//
//   #define IBA_FIELDS_SMPNodeInfo(F, A, S, SA)   (each line but the last
//     F(baseVersion,      0,  8, Uint)              ends in a backslash)
//     F(nodeGUID,        96, 64, Guid)
//     F(nodeType,        16,  8, Uint, NODE_TYPE)  (an enumeration: iba/enums.h)
//     A(portBlock,      128, 16, Lid, 4)
//     S(nodeInfo,         0, SMPNodeInfo)
//     SA(records,        64, SAPortInfoRecord, 3)
//   IBA_STRUCT(SMPNodeInfo, 40, IBA_FIELDS_SMPNodeInfo)
//
// Offsets are in bits from the start of the structure, counted the IBA way
// (bit 0 is the most significant bit of byte 0).  Array elements are
// contiguous, each `width` bits.  Reserved space is declared with kind Rsv
// (named reserved<bit offset>), as the IBA tables list it.  A field a later IBA
// version defines in space an earlier one reserves is declared right after
// that reserved field and inside its bits: it is a field like any other,
// but counts as part of the reserved field's SA component, so component
// masks stay the ones existing SAs implement (iba/introspect.cpp).
//
// A scalar field whose values have names (a state, a width, a set of
// capability bits) names its enumeration last: one of iba/enums.h's
// iba::enums::Enumeration objects.  The field then carries it
// (FieldDesc::enumeration), and whatever prints fields generically (the
// JSON writer) shows the name beside the number.
//
// A field the IBA defines only where a capability announces it (a PMA's
// PortXmitWait, a port's extended speeds) names that last (after its
// enumeration, if any): one of iba/enums.h's iba::enums::Validity objects
// (IF_PM_XMIT_WAIT, ...), carried as FieldDesc::validity.  The JSON writer
// shows such a field only where the capability is known to be there
// (iba::field_valid), else null: bytes the agent did not fill are never a
// number.
//
//     F(portXmitWait, 320, 32, Uint, IF_PM_XMIT_WAIT)
//     F(linkSpeedExtActive, 496, 4, Uint, LINK_SPEED_EXT, IF_PORT_EXT_SPEEDS)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

namespace iba {

enum class Kind : uint8_t {
  Uint,    // unsigned integer, up to 64 bits, any alignment
  Int,     // signed (two's complement) integer, up to 64 bits
  Hex,     // unsigned integer best shown in hex (keys, masks, OUIs)
  Guid,    // 64-bit EUI-64
  Gid,     // 128-bit GID
  Lid,     // 16-bit LID
  Str,     // fixed-size NUL padded byte string (width = total bits)
  Bytes,   // opaque bytes (width = total bits)
  Struct,  // a nested structure (width = its size in bits)
  Rsv,     // reserved space: no accessor, not printed; declared where it
           // matters (SA records, whose component masks count it)
};

struct StructDesc;
namespace enums {
struct Enumeration;
// The enumeration a field names, by its number in iba/enums.h's list (0:
// none); defined there.
const Enumeration* enumeration_by_id(uint8_t id);
// The validity a field names, likewise.
struct Validity;
const Validity* validity_by_id(uint8_t id);
}  // namespace enums

// The field tables hold no pointers.  In a position-independent executable
// every pointer in a constant table is a relocation the dynamic loader
// applies at every start, and the ~1000 field names were most of ours
// (bench/smpquery_bench.sh, docs/performance.md).  So a field's name and
// nested structure are stored as offsets from the field itself into the
// table object that holds them (StructTable below), and its enumeration and
// validity as numbers; the members read like the pointers they replace (f.name is a
// C string, f.sub and f.enumeration pointers).  A FieldDesc lives only in
// its table: it cannot be copied (a copy would point elsewhere).
struct FieldName {
  int32_t rel = 0;  // from this member to the NUL-terminated name
  uint16_t len = 0;

  constexpr FieldName() = default;
  FieldName(const FieldName&) = delete;
  FieldName& operator=(const FieldName&) = delete;
  const char* c_str() const { return reinterpret_cast<const char*>(this) + rel; }
  std::string_view view() const { return {c_str(), len}; }
  size_t size() const { return len; }
  operator const char*() const { return c_str(); }
  operator std::string_view() const { return view(); }
  friend bool operator==(const FieldName& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const FieldName& a, const char* b) { return a.view() == std::string_view(b); }
  friend bool operator==(const FieldName& a, const std::string& b) { return a.view() == b; }
  friend std::string operator+(std::string a, const FieldName& b) { return a.append(b.view()); }
  friend std::string operator+(const FieldName& a, std::string_view b) { return std::string(a.view()).append(b); }
};

struct SubStruct {
  int32_t rel = 0;  // from this member to the table's slot holding the StructDesc*, 0: none

  constexpr SubStruct() = default;
  SubStruct(const SubStruct&) = delete;
  SubStruct& operator=(const SubStruct&) = delete;
  const StructDesc* get() const {
    return rel ? *reinterpret_cast<const StructDesc* const*>(reinterpret_cast<const char*>(this) + rel) : nullptr;
  }
  operator const StructDesc*() const { return get(); }
  const StructDesc& operator*() const { return *get(); }
  const StructDesc* operator->() const { return get(); }
};

struct FieldValidity {
  uint8_t id = 0;  // enums::validity_by_id's number, 0: always valid

  const enums::Validity* get() const { return id ? enums::validity_by_id(id) : nullptr; }
  operator const enums::Validity*() const { return get(); }
};

struct FieldEnumeration {
  uint8_t id = 0;  // enums::enumeration_by_id's number, 0: none

  const enums::Enumeration* get() const { return id ? enums::enumeration_by_id(id) : nullptr; }
  operator const enums::Enumeration*() const { return get(); }
  const enums::Enumeration& operator*() const { return *get(); }
  const enums::Enumeration* operator->() const { return get(); }
};

struct FieldDesc {
  FieldName name;
  uint16_t name_len = 0;  // strlen(name)
  uint32_t bit_off = 0;   // offset of element 0, bits from the structure start
  uint32_t width = 0;     // bits per element
  uint16_t count = 0;     // 1 for a scalar, else the array length
  Kind kind = Kind::Uint;
  FieldEnumeration enumeration;  // the names of its values, if any
  FieldValidity validity;        // the capability that makes it valid, if any
  SubStruct sub;                 // for Kind::Struct

  constexpr uint32_t total_bits() const { return width * count; }
};

struct StructDesc {
  const char* name;   // e.g. "SMPNodeInfo"
  uint32_t size;      // bytes
  const FieldDesc* fields;
  uint32_t nfields;

  constexpr std::span<const FieldDesc> field_list() const { return {fields, nfields}; }
};

// What the declaration macros write for each field; turned into a
// StructTable at compile time (these never reach the binary).
struct FieldProto {
  const char* name;
  uint16_t name_len;
  uint32_t bit_off;
  uint32_t width;
  uint16_t count;
  Kind kind;
  const StructDesc* sub;
  uint8_t enumeration;
  uint8_t validity;
};

// A field of T's own list by its exact name, found when compiled (a name T
// does not declare is a compile error): the bits of a constant a module
// works out from a declaration (where an RMPP class's data starts), which
// so costs nothing at start-up, where a lookup by name in a global's
// initializer ran at every start of every command.
struct FieldBits {
  uint32_t off, width;
};
template <class T>
consteval FieldBits field_bits(std::string_view name) {
  for (const FieldProto& f : T::FIELD_PROTOS)
    if (std::string_view(f.name, f.name_len) == name) return {f.bit_off, f.width};
  throw "no field of that name";  // (not constant: a compile error)
}

template <size_t N>
constexpr size_t proto_subs(const FieldProto (&p)[N]) {
  size_t k = 0;
  for (const FieldProto& f : p) k += f.sub != nullptr;
  return k;
}
template <size_t N>
constexpr size_t proto_names(const FieldProto (&p)[N]) {
  size_t m = 0;
  for (const FieldProto& f : p) m += f.name_len + 1u;
  return m;
}

// One structure's fields, the nested structures they name and their names,
// in one object (so that the offsets between them are constants).  It
// holds pointers only when the structure nests others (the slots of subs),
// so most tables are plain constants; the descriptor (StructDesc, its name
// and fields) is an object of its own, and the descriptors lie together.
template <size_t N, size_t K, size_t M>
struct StructTable {
  FieldDesc fields[N];
  const StructDesc* subs[K ? K : 1] = {};
  char names[M] = {};

  constexpr explicit StructTable(const FieldProto (&p)[N]) {
    size_t pos = 0, k = 0;
    for (size_t i = 0; i < N; ++i) {
      const FieldProto& s = p[i];
      FieldDesc& f = fields[i];
      const size_t at = offsetof(StructTable, fields) + i * sizeof(FieldDesc);
      f.name.rel = int32_t(offsetof(StructTable, names) + pos) - int32_t(at + offsetof(FieldDesc, name));
      f.name.len = s.name_len;
      for (size_t c = 0; c < s.name_len; ++c) names[pos + c] = s.name[c];
      pos += s.name_len + 1u;
      f.name_len = s.name_len;
      f.bit_off = s.bit_off;
      f.width = s.width;
      f.count = s.count;
      f.kind = s.kind;
      f.enumeration.id = s.enumeration;
      f.validity.id = s.validity;
      if (s.sub) {
        subs[k] = s.sub;
        f.sub.rel = int32_t(offsetof(StructTable, subs) + k * sizeof(const StructDesc*)) -
                    int32_t(at + offsetof(FieldDesc, sub));
        ++k;
      }
    }
  }
};

struct Gid {
  std::array<uint8_t, 16> raw{};
  uint64_t prefix() const;
  uint64_t guid() const;
  static Gid from(uint64_t prefix, uint64_t guid);
  std::string str() const;  // RFC 4291 form, e.g. fe80::2:c903:0:1491
  bool operator==(const Gid&) const = default;
  auto operator<=>(const Gid&) const = default;
};

// --- bit access on big-endian wire bytes -----------------------------------
inline uint64_t get_bits(const uint8_t* buf, uint32_t bit_off, uint32_t width) {
  if (width == 0) return 0;
  if ((bit_off % 8) == 0 && (width % 8) == 0) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < width / 8; ++i) v = (v << 8) | buf[bit_off / 8 + i];
    return v;
  }
  uint64_t v = 0;
  for (uint32_t i = 0; i < width; ++i) {
    uint32_t b = bit_off + i;
    v = (v << 1) | ((buf[b / 8] >> (7 - b % 8)) & 1u);
  }
  return v;
}

inline void set_bits(uint8_t* buf, uint32_t bit_off, uint32_t width, uint64_t v) {
  if (width == 0) return;
  if ((bit_off % 8) == 0 && (width % 8) == 0) {
    for (uint32_t i = width / 8; i-- > 0;) {
      buf[bit_off / 8 + i] = uint8_t(v);
      v >>= 8;
    }
    return;
  }
  for (uint32_t i = width; i-- > 0;) {
    uint32_t b = bit_off + i;
    uint8_t m = uint8_t(1u << (7 - b % 8));
    buf[b / 8] = (v & 1u) ? (buf[b / 8] | m) : (buf[b / 8] & uint8_t(~m));
    v >>= 1;
  }
}

inline int64_t sign_extend(uint64_t v, uint32_t width) {
  if (width >= 64) return int64_t(v);
  uint64_t m = uint64_t(1) << (width - 1);
  return int64_t((v ^ m) - m);
}

inline std::string get_str(const uint8_t* buf, uint32_t bit_off, uint32_t width) {
  const char* p = reinterpret_cast<const char*>(buf + bit_off / 8);
  size_t n = width / 8;
  return std::string(p, strnlen(p, n));
}

inline void set_str(uint8_t* buf, uint32_t bit_off, uint32_t width, std::string_view s) {
  size_t n = width / 8;
  std::memset(buf + bit_off / 8, 0, n);
  std::memcpy(buf + bit_off / 8, s.data(), s.size() < n ? s.size() : n);
}

inline Gid get_gid(const uint8_t* buf, uint32_t bit_off) {
  Gid g;
  std::memcpy(g.raw.data(), buf + bit_off / 8, 16);
  return g;
}

inline void set_gid(uint8_t* buf, uint32_t bit_off, const Gid& g) {
  std::memcpy(buf + bit_off / 8, g.raw.data(), 16);
}

// Base of every generated structure type.
template <size_t N>
struct Wire {
  static constexpr size_t SIZE = N;
  std::array<uint8_t, N> buf{};
  uint8_t* raw() { return buf.data(); }
  const uint8_t* raw() const { return buf.data(); }
  std::span<const uint8_t> bytes() const { return {buf.data(), N}; }
  // Load from wire bytes (short input is zero padded, long input truncated).
  void load(std::span<const uint8_t> in) {
    buf.fill(0);
    if (!in.empty()) std::memcpy(buf.data(), in.data(), in.size() < N ? in.size() : N);  // (empty: no data pointer)
  }
  void store(std::span<uint8_t> out) const {
    if (!out.empty()) std::memcpy(out.data(), buf.data(), out.size() < N ? out.size() : N);
  }
  bool operator==(const Wire&) const = default;
};

}  // namespace iba

// --- the declaration machinery ------------------------------------------------
// Field table entries.
// A field's last arguments (an enumeration, a validity, or both) as
// pointers to iba/enums.h's objects, for enums::field_tail.
#define IBA_TAIL_PICK(a, b, m, ...) m
#define IBA_TAIL_1(a) &::iba::enums::a
#define IBA_TAIL_2(a, b) &::iba::enums::a, &::iba::enums::b
#define IBA_TAIL_ARGS(...) IBA_TAIL_PICK(__VA_ARGS__, IBA_TAIL_2, IBA_TAIL_1, )(__VA_ARGS__)
#define IBA_FD_F(name, off, width, kind, ...)                                           \
  ::iba::FieldProto{#name, sizeof(#name) - 1, off, width, 1, ::iba::Kind::kind, nullptr, \
                    __VA_OPT__(::iba::enums::field_tail(IBA_TAIL_ARGS(__VA_ARGS__)).enumeration +) 0, \
                    __VA_OPT__(::iba::enums::field_tail(IBA_TAIL_ARGS(__VA_ARGS__)).validity +) 0},
#define IBA_FD_A(name, off, width, kind, count, ...)                                        \
  ::iba::FieldProto{#name, sizeof(#name) - 1, off, width, count, ::iba::Kind::kind, nullptr, \
                    __VA_OPT__(::iba::enums::field_tail(IBA_TAIL_ARGS(__VA_ARGS__)).enumeration +) 0, \
                    __VA_OPT__(::iba::enums::field_tail(IBA_TAIL_ARGS(__VA_ARGS__)).validity +) 0},
#define IBA_FD_S(name, off, type) \
  ::iba::FieldProto{#name, sizeof(#name) - 1, off, uint32_t(type::SIZE * 8), 1, ::iba::Kind::Struct, &type::DESC, 0, 0},
#define IBA_FD_SA(name, off, type, count) \
  ::iba::FieldProto{#name, sizeof(#name) - 1, off, uint32_t(type::SIZE * 8), count, ::iba::Kind::Struct, &type::DESC, 0, 0},

// Typed accessors, chosen by kind.  Scalar fields also get static
// accessors on a wire image held elsewhere (name##_at(bytes),
// set_##name##_at(bytes, v)), for code that keeps raw attribute images (the
// subnet database) and must not copy them to read one field.
#define IBA_ACC_Uint(name, off, width)                                                        \
  uint64_t name() const { return ::iba::get_bits(buf.data(), off, width); }                   \
  auto& set_##name(uint64_t v) {                                                              \
    ::iba::set_bits(buf.data(), off, width, v);                                               \
    return *this;                                                                             \
  }                                                                                           \
  static uint64_t name##_at(const uint8_t* image) { return ::iba::get_bits(image, off, width); } \
  static void set_##name##_at(uint8_t* image, uint64_t v) { ::iba::set_bits(image, off, width, v); }
#define IBA_ACC_Hex(name, off, width) IBA_ACC_Uint(name, off, width)
#define IBA_ACC_Guid(name, off, width) IBA_ACC_Uint(name, off, width)
#define IBA_ACC_Lid(name, off, width) IBA_ACC_Uint(name, off, width)
#define IBA_ACC_Int(name, off, width)                                                         \
  int64_t name() const { return ::iba::sign_extend(::iba::get_bits(buf.data(), off, width), width); } \
  auto& set_##name(int64_t v) {                                                               \
    ::iba::set_bits(buf.data(), off, width, uint64_t(v));                                     \
    return *this;                                                                             \
  }
#define IBA_ACC_Gid(name, off, width)                                                         \
  ::iba::Gid name() const { return ::iba::get_gid(buf.data(), off); }                         \
  auto& set_##name(const ::iba::Gid& v) {                                                     \
    ::iba::set_gid(buf.data(), off, v);                                                       \
    return *this;                                                                             \
  }                                                                                           \
  static ::iba::Gid name##_at(const uint8_t* image) { return ::iba::get_gid(image, off); }
#define IBA_ACC_Str(name, off, width)                                                         \
  std::string name() const { return ::iba::get_str(buf.data(), off, width); }                 \
  auto& set_##name(std::string_view v) {                                                      \
    ::iba::set_str(buf.data(), off, width, v);                                                \
    return *this;                                                                             \
  }
#define IBA_ACC_Bytes(name, off, width)                                                       \
  std::span<const uint8_t> name() const { return {buf.data() + (off) / 8, (width) / 8}; }     \
  std::span<uint8_t> mut_##name() { return {buf.data() + (off) / 8, (width) / 8}; }
#define IBA_ACC_Rsv(name, off, width)
#define IBA_ACC_F(name, off, width, kind, ...) IBA_ACC_##kind(name, off, width)

#define IBA_ACCA_Uint(name, off, width)                                                       \
  uint64_t name(size_t i) const { return ::iba::get_bits(buf.data(), (off) + uint32_t(i) * (width), width); } \
  auto& set_##name(size_t i, uint64_t v) {                                                    \
    ::iba::set_bits(buf.data(), (off) + uint32_t(i) * (width), width, v);                     \
    return *this;                                                                             \
  }                                                                                           \
  static uint64_t name##_at(const uint8_t* image, size_t i) {                                 \
    return ::iba::get_bits(image, (off) + uint32_t(i) * (width), width);                      \
  }                                                                                           \
  static void set_##name##_at(uint8_t* image, size_t i, uint64_t v) {                         \
    ::iba::set_bits(image, (off) + uint32_t(i) * (width), width, v);                          \
  }
#define IBA_ACCA_Hex(name, off, width) IBA_ACCA_Uint(name, off, width)
#define IBA_ACCA_Guid(name, off, width) IBA_ACCA_Uint(name, off, width)
#define IBA_ACCA_Lid(name, off, width) IBA_ACCA_Uint(name, off, width)
#define IBA_ACCA_Int(name, off, width)                                                        \
  int64_t name(size_t i) const {                                                              \
    return ::iba::sign_extend(::iba::get_bits(buf.data(), (off) + uint32_t(i) * (width), width), width); \
  }                                                                                           \
  auto& set_##name(size_t i, int64_t v) {                                                     \
    ::iba::set_bits(buf.data(), (off) + uint32_t(i) * (width), width, uint64_t(v));           \
    return *this;                                                                             \
  }
#define IBA_ACCA_Gid(name, off, width)                                                        \
  ::iba::Gid name(size_t i) const { return ::iba::get_gid(buf.data(), (off) + uint32_t(i) * 128); } \
  auto& set_##name(size_t i, const ::iba::Gid& v) {                                           \
    ::iba::set_gid(buf.data(), (off) + uint32_t(i) * 128, v);                                 \
    return *this;                                                                             \
  }
#define IBA_ACCA_Bytes(name, off, width)                                                      \
  std::span<const uint8_t> name(size_t i) const {                                             \
    return {buf.data() + ((off) + uint32_t(i) * (width)) / 8, (width) / 8};                   \
  }
#define IBA_ACCA_Str(name, off, width)                                                        \
  std::string name(size_t i) const { return ::iba::get_str(buf.data(), (off) + uint32_t(i) * (width), width); }
#define IBA_ACCA_Rsv(name, off, width)
#define IBA_ACC_A(name, off, width, kind, count, ...) IBA_ACCA_##kind(name, off, width)

#define IBA_ACC_S(name, off, type)                                                            \
  type name() const {                                                                         \
    type r;                                                                                   \
    std::memcpy(r.buf.data(), buf.data() + (off) / 8, type::SIZE);                            \
    return r;                                                                                 \
  }                                                                                           \
  auto& set_##name(const type& v) {                                                           \
    std::memcpy(buf.data() + (off) / 8, v.buf.data(), type::SIZE);                            \
    return *this;                                                                             \
  }
#define IBA_ACC_SA(name, off, type, count)                                                    \
  type name(size_t i) const {                                                                 \
    type r;                                                                                   \
    std::memcpy(r.buf.data(), buf.data() + (off) / 8 + i * type::SIZE, type::SIZE);           \
    return r;                                                                                 \
  }                                                                                           \
  auto& set_##name(size_t i, const type& v) {                                                 \
    std::memcpy(buf.data() + (off) / 8 + i * type::SIZE, v.buf.data(), type::SIZE);           \
    return *this;                                                                             \
  }

// Compile-time check that every field lies inside the structure.
#define IBA_CHK_F(name, off, width, kind, ...) static_assert((off) + (width) <= SIZE * 8, #name " out of range");
#define IBA_CHK_A(name, off, width, kind, count, ...) \
  static_assert((off) + (width) * (count) <= SIZE * 8, #name " out of range");
#define IBA_CHK_S(name, off, type) static_assert((off) + type::SIZE * 8 <= SIZE * 8, #name " out of range");
#define IBA_CHK_SA(name, off, type, count) \
  static_assert((off) + type::SIZE * 8 * (count) <= SIZE * 8, #name " out of range");

// Declare structure `type` of `nbytes` bytes from the field list macro `list`.
#define IBA_STRUCT(type, nbytes, list)                                                        \
  struct type : ::iba::Wire<nbytes> {                                                         \
    static constexpr ::iba::FieldProto FIELD_PROTOS[] = {list(IBA_FD_F, IBA_FD_A, IBA_FD_S, IBA_FD_SA)}; \
    static constexpr ::iba::StructTable<std::size(FIELD_PROTOS), ::iba::proto_subs(FIELD_PROTOS),           \
                                        ::iba::proto_names(FIELD_PROTOS)>                                   \
        TABLE{FIELD_PROTOS};                                                                  \
    static constexpr const ::iba::FieldDesc (&FIELDS)[std::size(FIELD_PROTOS)] = TABLE.fields; \
    static constexpr ::iba::StructDesc DESC{#type, nbytes, TABLE.fields, uint32_t(std::size(FIELD_PROTOS))}; \
    static const ::iba::StructDesc& desc() { return DESC; }                                   \
    list(IBA_ACC_F, IBA_ACC_A, IBA_ACC_S, IBA_ACC_SA)                                         \
    list(IBA_CHK_F, IBA_CHK_A, IBA_CHK_S, IBA_CHK_SA)                                         \
  }
