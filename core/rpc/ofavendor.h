// The OpenFabrics vendor classes' servers (ping 0x32, sysstat 0x33): what
// they answer, the loop that answers, and how a client reads a reply's
// text.  Shared by ibping and ibsysstat (cmd/), which keep only their
// options and their output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/transport/transport.h"

namespace ibcore::ofa {

// "host.domain": the host name and the NIS domain name as getdomainname
// reports it ("(none)" when unset; no dot when it is empty), which is what
// both servers answer.
std::string host_and_domain();

// One line per processor of a /proc/cpuinfo text:
// "cpu N: model <model name> MHZ <cpu MHz>\n", each value as it follows the
// ':' (its leading blank kept).
std::string cpu_lines(std::string_view text);
// cpu_lines() of this machine's /proc/cpuinfo.
std::string cpu_info();

// A reply's text: the NUL terminated string at the start of the data area.
std::string text_of(std::span<const uint8_t> data);

// Text as a reply payload of n bytes (cut to leave the terminating NUL).
std::vector<uint8_t> payload_of_text(const std::string& s, size_t n);

// The server loop both commands share: register for (cls, version 1, Get,
// oui), answer every request with answer(attribute id) as the reply text
// (payload_size bytes), refuse what the class does not define with an error
// reply, drop MADs of other classes or OUIs (under umad2sim a server that
// is the node's SM client is handed MADs of any class).  SIGINT/SIGTERM end
// it cleanly (status 0): the port is closed, so a simulator detaches it.
int serve(Transport& t, uint8_t cls, uint32_t oui, size_t payload_size,
          const std::function<std::string(uint16_t attr)>& answer);

}  // namespace ibcore::ofa
