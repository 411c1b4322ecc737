// Subnet cache files, two formats, both read and written:
//
//  * ibtool's own (magic "IBTSUBNT", versioned): everything the database
//    holds, including DR paths, switch forwarding tables, the images as
//    received and beside them the reference's view (RefView: its order and
//    first replies; not its first routes), with a checksum so a damaged
//    file is detected.
//  * infiniband-diags' libibnetdisc cache (`ibnetdiscover --cache` /
//    `--load-cache`): little endian, magic 0x8FE7832B version 1.  Files we
//    write are byte-identical to the reference's for the same fabric, and
//    either side loads the other's.  Its images are the reference's first
//    replies (written from the view, core/fabric/reforder.h); a loaded file's view
//    is read back from them, so writing it again gives the same bytes.
//
// Loading detects the format by its magic.  Every malformed, truncated or
// foreign file gives a CacheError naming the file and what is wrong; a
// loader never crashes or reads out of bounds.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/base/error.h"
#include "core/fabric/subnet.h"

namespace ibcore {

class CacheError : public Error {
public:
  using Error::Error;
};

enum class CacheFormat { Ibtool, Reference };

// Serialize / parse (in memory).
std::vector<uint8_t> encode_cache(const Subnet& db, CacheFormat fmt);
// what names the source in error messages (e.g. the file name).
Subnet decode_cache(std::span<const uint8_t> bytes, const std::string& what);
// Which format bytes are in (throws CacheError for neither).
CacheFormat detect_cache_format(std::span<const uint8_t> bytes, const std::string& what);

// Files.  save_cache replaces the file (written to a temporary name first).
void save_cache(const Subnet& db, const std::string& file, CacheFormat fmt);
Subnet load_cache(const std::string& file);

}  // namespace ibcore
