// A scripted in-memory Transport for the core RPC and scheduler tests: it
// records every MAD sent and answers through a responder function; replies
// can be held back and released in any order.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <thread>
#include <vector>

#include "core/base/config.h"
#include "core/transport/transport.h"

namespace coretest {

struct Sent {
  std::array<uint8_t, 256> mad;
  ibcore::IBPath path;
  int timeout_ms;
};

class FakeTransport : public ibcore::Transport {
public:
  // What to do with a sent MAD: push replies with reply() (or nothing = the
  // MAD is lost).
  std::function<void(FakeTransport&, const Sent&)> responder;
  std::vector<Sent> sent;
  std::deque<ibcore::RecvMad> inbox;
  bool shuffle = false;     // deliver queued replies in random order
  std::mt19937 rng{42};
  int recv_calls = 0;
  // Called when recv() finds nothing queued (the client is waiting): a
  // test "network" can deliver held replies here.
  std::function<void(FakeTransport&)> on_idle;

  int client_agent(uint8_t, uint8_t) override { return 7; }
  int server_agent(uint8_t, uint8_t, uint32_t, uint32_t) override { return 8; }
  void send(int, const uint8_t* mad, size_t len, const ibcore::IBPath& path, int timeout_ms) override {
    Sent s;
    s.mad.fill(0);
    std::memcpy(s.mad.data(), mad, len);
    s.path = path;
    s.timeout_ms = timeout_ms;
    sent.push_back(s);
    if (responder) responder(*this, sent.back());
  }
  bool recv(ibcore::RecvMad& out, int timeout_ms) override {
    ++recv_calls;
    if (inbox.empty() && on_idle) on_idle(*this);
    if (inbox.empty()) {
      if (timeout_ms != 0) std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms < 0 ? 5 : std::min(timeout_ms, 5)));
      return false;
    }
    size_t i = shuffle ? std::uniform_int_distribution<size_t>(0, inbox.size() - 1)(rng) : 0;
    out = inbox[i];
    inbox.erase(inbox.begin() + long(i));
    return true;
  }
  uint16_t sm_lid() const override { return 1; }

  // Queue a reply to s: the request turned into a GetResp with the given
  // status and payload written at data_off.
  void reply(const Sent& s, uint16_t status = 0, const void* payload = nullptr, size_t n = 0,
             size_t data_off = 64) {
    ibcore::RecvMad r;
    r.data = s.mad;
    r.data[3] |= 0x80;
    uint16_t st = status;
    if (r.data[1] == 0x81) st |= 0x8000;  // D bit of a returning DR SMP
    r.data[4] = uint8_t(st >> 8);
    r.data[5] = uint8_t(st);
    if (payload) std::memcpy(r.data.data() + data_off, payload, n);
    r.len = 256;
    inbox.push_back(r);
  }
};

inline uint32_t tid_low(const Sent& s) {
  return uint32_t(s.mad[12]) << 24 | uint32_t(s.mad[13]) << 16 | uint32_t(s.mad[14]) << 8 | s.mad[15];
}

}  // namespace coretest
