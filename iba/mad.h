// MAD formats (the 256-byte packets of each management class) and the
// registry of classes and their attributes, used by the RPC layer (which
// attribute goes with which method), by decode_mad and by the tracer.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "iba/struct.h"

namespace iba {

constexpr size_t MAD_SIZE = 256;

// --- management classes, methods, status -------------------------------------
namespace mgmt {
enum : uint8_t {
  SUBN_LID_ROUTED = 0x01,
  SUBN_DIRECTED_ROUTE = 0x81,
  SUBN_ADM = 0x03,
  PERF = 0x04,
  BM = 0x05,
  DEV_MGT = 0x06,
  COM_MGT = 0x07,
  SNMP = 0x08,
  VENDOR_OUI_MIN = 0x30,  // 0x30-0x4f: vendor classes with an OUI (RMPP capable)
  VENDOR_OUI_MAX = 0x4f,
  VENDOR_MIN = 0x09,      // 0x09-0x0f: vendor classes without an OUI
  VENDOR_MAX = 0x0f,
  CC = 0x21,
  OFA_VENDOR = 0x32,      // the OFA class ibping/ibsysstat use (with OUI 0x001405)
};
// The vendor classes whose MADs carry an OUI (and may use RMPP).
constexpr bool vendor_oui(uint8_t c) { return c >= VENDOR_OUI_MIN && c <= VENDOR_OUI_MAX; }
}  // namespace mgmt

namespace method {
enum : uint8_t {
  GET = 0x01,
  SET = 0x02,
  SEND = 0x03,
  TRAP = 0x05,
  REPORT = 0x06,
  TRAP_REPRESS = 0x07,
  GET_TABLE = 0x12,
  GET_TRACE_TABLE = 0x13,
  GET_MULTI = 0x14,
  DELETE = 0x15,
  RESPONSE = 0x80,  // OR'd into the request method
  GET_RESP = 0x81,
  REPORT_RESP = 0x86,
  GET_TABLE_RESP = 0x92,
  GET_MULTI_RESP = 0x94,
  DELETE_RESP = 0x95,
};
}  // namespace method

// Bit for a request method in AttrDesc::methods.
constexpr uint32_t mbit(uint8_t m) { return uint32_t(1) << (m & 0x1f); }
constexpr uint32_t M_GET = mbit(method::GET), M_SET = mbit(method::SET), M_SEND = mbit(method::SEND),
                   M_TRAP = mbit(method::TRAP), M_REPORT = mbit(method::REPORT),
                   M_TRAP_REPRESS = mbit(method::TRAP_REPRESS), M_GET_TABLE = mbit(method::GET_TABLE),
                   M_GET_TRACE_TABLE = mbit(method::GET_TRACE_TABLE), M_GET_MULTI = mbit(method::GET_MULTI),
                   M_DELETE = mbit(method::DELETE);

// --- headers -----------------------------------------------------------------------
#define IBA_FIELDS_MADHeader(F, A, S, SA) \
  F(baseVersion, 0, 8, Uint)              \
  F(mgmtClass, 8, 8, Hex)                 \
  F(classVersion, 16, 8, Uint)            \
  F(method, 24, 8, Hex)                   \
  F(status, 32, 16, Hex)                  \
  F(classSpecific, 48, 16, Hex)           \
  F(transactionID, 64, 64, Hex)           \
  F(attributeID, 128, 16, Hex)            \
  F(reserved144, 144, 16, Rsv)            \
  F(attributeModifier, 160, 32, Hex)
IBA_STRUCT(MADHeader, 24, IBA_FIELDS_MADHeader);

#define IBA_FIELDS_RMPPHeader(F, A, S, SA) \
  F(RMPPVersion, 0, 8, Uint)               \
  F(RMPPType, 8, 8, Uint)                  \
  F(RRespTime, 16, 5, Uint)                \
  F(RMPPFlags, 21, 3, Hex)                 \
  F(RMPPStatus, 24, 8, Uint)               \
  F(data1, 32, 32, Uint)                   \
  F(data2, 64, 32, Uint)
IBA_STRUCT(RMPPHeader, 12, IBA_FIELDS_RMPPHeader);

// RMPPType values and RMPPFlags bits (IBA 13.6.2.1), and what a segment's
// PayloadLength counts of its data (its 256 bytes less the MAD and RMPP
// headers and the SA's or vendor class's fields before the data).
namespace rmpp {
enum : uint8_t { DATA = 1, ACK = 2, STOP = 3, ABORT = 4 };
enum : uint8_t { ACTIVE = 0x1, FIRST = 0x2, LAST = 0x4 };
constexpr size_t SEG_DATA = 220;
// The classes whose MADs carry an RMPP header.
constexpr bool in_class(uint8_t mgmt_class) { return mgmt_class == mgmt::SUBN_ADM || mgmt::vendor_oui(mgmt_class); }
}  // namespace rmpp

// SMP, LID routed (IBA 14.2.1.1).
#define IBA_FIELDS_SMPFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)              \
  F(MKey, 192, 64, Hex)                   \
  F(reserved256, 256, 256, Rsv)           \
  F(data, 512, 512, Bytes)                \
  F(reserved1024, 1024, 1024, Rsv)
IBA_STRUCT(SMPFormat, 256, IBA_FIELDS_SMPFormat);

// SMP, directed route (IBA 14.2.1.2).
#define IBA_FIELDS_SMPFormatDirected(F, A, S, SA) \
  F(baseVersion, 0, 8, Uint)                      \
  F(mgmtClass, 8, 8, Hex)                         \
  F(classVersion, 16, 8, Uint)                    \
  F(method, 24, 8, Hex)                           \
  F(D, 32, 1, Uint)                               \
  F(status, 33, 15, Hex)                          \
  F(hopPointer, 48, 8, Uint)                      \
  F(hopCount, 56, 8, Uint)                        \
  F(transactionID, 64, 64, Hex)                   \
  F(attributeID, 128, 16, Hex)                    \
  F(reserved144, 144, 16, Rsv)                    \
  F(attributeModifier, 160, 32, Hex)              \
  F(MKey, 192, 64, Hex)                           \
  F(drSLID, 256, 16, Lid)                         \
  F(drDLID, 272, 16, Lid)                         \
  F(reserved288, 288, 224, Rsv)                   \
  F(data, 512, 512, Bytes)                        \
  A(initialPath, 1024, 8, Uint, 64)               \
  A(returnPath, 1536, 8, Uint, 64)
IBA_STRUCT(SMPFormatDirected, 256, IBA_FIELDS_SMPFormatDirected);

// SA (IBA 15.2.1.1).
#define IBA_FIELDS_SAFormat(F, A, S, SA) \
  S(hdr, 0, MADHeader)             \
  S(rmpp, 192, RMPPHeader)         \
  F(SMKey, 288, 64, Hex)                 \
  F(attributeOffset, 352, 16, Uint)      \
  F(reserved368, 368, 16, Rsv)           \
  F(componentMask, 384, 64, Hex)         \
  F(data, 448, 1600, Bytes)
IBA_STRUCT(SAFormat, 256, IBA_FIELDS_SAFormat);

// --- attributes and classes ----------------------------------------------------------
// The attribute ID of a structure used as a MAD attribute.  Declared next to
// the structure with IBA_ATTR_ID(type, id).
template <class T>
struct AttrId;
#define IBA_ATTR_ID(type, id)                      \
  template <>                                      \
  struct AttrId<type> {                            \
    static constexpr uint16_t value = id;          \
  }

// The ID of T's attribute: iba::attr_id<iba::SMPPortInfo> (0x0015).
template <class T>
inline constexpr uint16_t attr_id = AttrId<T>::value;

struct AttrDesc {
  uint16_t id;
  const StructDesc* desc;
  uint32_t methods;  // request methods allowed (mbit of each)
  // For a variant (ClassDesc::variants): whether an attribute payload is in
  // this layout.  nullptr: only the context can tell (the caller names it).
  bool (*applies)(std::span<const uint8_t> payload) = nullptr;
};
// An entry of a class's attribute table: IBA_ATTR(SMPNodeInfo, M_GET).
#define IBA_ATTR(type, methods) ::iba::AttrDesc{::iba::AttrId<type>::value, &type::DESC, methods, nullptr}
// Another layout of a registered attribute (same ID and methods).
#define IBA_VARIANT(type, methods, applies) \
  ::iba::AttrDesc{::iba::AttrId<type>::value, &type::DESC, methods, applies}

struct ClassDesc {
  const char* name;          // format name, e.g. "SMPFormat"
  uint8_t mgmt_class;
  uint8_t class_version;
  const StructDesc* format;  // the whole-MAD structure
  uint32_t data_off;         // byte offset of the attribute payload
  uint32_t data_size;        // bytes of payload in one MAD
  std::span<const AttrDesc> attrs;  // one structure per attribute ID
  // Other layouts of attributes in attrs, for attributes whose layout
  // depends on the device or the payload (CongestionLog of a switch or a
  // CA, ...): found by name and by payload_attr(), never by ID alone.
  std::span<const AttrDesc> variants = {};
};

// All known classes.  For vendor classes the OUI is part of the format.
std::span<const ClassDesc* const> all_classes();
// The GMP classes (SA, PM, CC, vendor, DevMgt, BM, SNMP, CM), defined in
// iba/classes_gmp.cpp; all_classes() includes them.
std::span<const ClassDesc* const> gmp_classes();
const ClassDesc* find_class(uint8_t mgmt_class, uint8_t class_version = 0);  // 0 = any version
const AttrDesc* find_attr(const ClassDesc& c, uint16_t attr_id);
const AttrDesc* find_attr(const ClassDesc& c, std::string_view struct_name);  // case-insensitive, variants too
// The layout of a payload of attribute a: the variant of a whose applies()
// accepts the payload, else a itself.
const AttrDesc& payload_attr(const ClassDesc& c, const AttrDesc& a, std::span<const uint8_t> payload);

// Names for the tracer and errors: "SubnGet(1)", "SMPFormat(1.1)".
std::string method_name(uint8_t mgmt_class, uint8_t method);
std::string status_text(uint8_t mgmt_class, uint16_t status);  // e.g. "class specific error 3 (ERR_NO_RECORDS)"

}  // namespace iba
