// A small virtual-clock transport for the MAD engine's flow-control tests
// (test/unit/flow_control_test.cpp): one management processor per node
// with a FIFO of capacity Q and a service time, a directed-route SMP
// handled by the processor of every switch it passes (out and back) and of
// its destination, a LID-routed one by its destination's only; a full FIFO
// drops.  A processor may forward faster or slower than it answers
// (Proc::forward), and take background MADs of its own at a steady rate
// from some time on (background(): the SM's sweeps), which take their
// place in its FIFO like the tool's.  Nodes are named by their path (a DR path's hop prefixes, or the
// DLID: the test says which LID is which DR node).  Time passes only in
// recv()'s waits, so every figure is exact and repeatable.  A deliberately
// small stand-in: the hardware-faithful model is test/model (ibmodel).
#pragma once

#include <chrono>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <queue>
#include <string>
#include <vector>

#include "core/transport/transport.h"

namespace flowtest {

class VClockFabric : public ibcore::Transport {
public:
  using ns = std::chrono::nanoseconds;
  struct Proc {
    unsigned q = 4;                 // FIFO capacity (the MAD in service included)
    ns service{std::chrono::microseconds(50)};
    std::deque<ns> leaving;         // when each MAD in the FIFO leaves it
    ns forward{-1};                 // time to forward a directed route's hop (< 0: service)
    unsigned peak = 0;              // most MADs in the FIFO at once
    uint64_t dropped = 0, served = 0;
    ns bg_period{0}, bg_next{0};    // background MADs: one every bg_period from bg_next (0: none)
    uint64_t bg_served = 0, bg_dropped = 0;
  };
  ns hop{std::chrono::microseconds(1)};  // one link hop, one way
  unsigned default_q = 4;
  ns default_service{std::chrono::microseconds(50)};
  ns default_forward{-1};  // (< 0: as the service time)
  // DLID -> the DR node name it reaches (else the LID names its own node).
  std::map<uint16_t, std::string> lid_node;
  // Called for each request that reaches its destination: fill the reply's
  // status / payload (default: status 0, payload unchanged).  Return false
  // to drop it there (a lost MAD).
  std::function<bool(const uint8_t* req, const ibcore::IBPath&, uint8_t* rep)> answer;
  // Requests as sent, with the virtual time of each.
  struct Sent {
    ns at;
    std::array<uint8_t, 256> mad;
    ibcore::IBPath path;
    int timeout_ms;
  };
  std::vector<Sent> sent;
  std::map<std::string, Proc> procs;
  uint64_t drops = 0;

  Proc& proc(const std::string& name) {
    auto it = procs.find(name);
    if (it == procs.end()) {
      it = procs.emplace(name, Proc{}).first;
      it->second.q = default_q;
      it->second.service = default_service;
      it->second.forward = default_forward;
    }
    return it->second;
  }
  ns elapsed() const { return now_; }
  // From now on, one background MAD every period at processor name.
  void background(const std::string& name, ns period) {
    Proc& p = proc(name);
    p.bg_period = period;
    p.bg_next = now_;
  }
  ibcore::Clock::time_point now() const override { return ibcore::Clock::time_point(now_); }

  int client_agent(uint8_t, uint8_t) override { return 1; }
  int server_agent(uint8_t, uint8_t, uint32_t, uint32_t) override { return 2; }
  uint16_t local_lid() const override { return 1; }
  uint16_t sm_lid() const override { return 1; }

  void send(int, const uint8_t* mad, size_t len, const ibcore::IBPath& path, int timeout_ms) override {
    Sent s{now_, {}, path, timeout_ms};
    std::memset(s.mad.data(), 0, s.mad.size());
    std::memcpy(s.mad.data(), mad, len);
    sent.push_back(s);
    // The processors the MAD visits in order: out through each
    // intermediate switch, the destination, back through each.
    std::vector<std::string> visits;
    std::string dest;
    if (path.is_dr()) {
      std::string name = "D0";
      std::vector<std::string> mids;
      for (size_t k = 1; k < path.drPath.size(); ++k) {
        name += "," + std::to_string(path.drPath[k]);
        if (k + 1 < path.drPath.size()) mids.push_back(name);
      }
      dest = name;
      visits = mids;
      visits.push_back(dest);
      for (auto it = mids.rbegin(); it != mids.rend(); ++it) visits.push_back(*it);
    } else {
      auto it = lid_node.find(path.DLID);
      dest = it != lid_node.end() ? it->second : "L" + std::to_string(path.DLID);
      visits.push_back(dest);
    }
    ns t = now_;
    bool lost = false;
    ibcore::RecvMad r;
    r.data = s.mad;
    r.len = 256;
    for (const std::string& v : visits) {
      t += hop;
      Proc& p = proc(v);
      // The background MADs that came before this one (in time order).
      for (; p.bg_period.count() > 0 && p.bg_next <= t; p.bg_next += p.bg_period) {
        while (!p.leaving.empty() && p.leaving.front() <= p.bg_next) p.leaving.pop_front();
        if (p.q && p.leaving.size() >= p.q) {
          ++p.bg_dropped;
          continue;
        }
        p.leaving.push_back((p.leaving.empty() ? p.bg_next : std::max(p.bg_next, p.leaving.back())) + p.service);
        ++p.bg_served;
      }
      while (!p.leaving.empty() && p.leaving.front() <= t) p.leaving.pop_front();
      if (p.q && p.leaving.size() >= p.q) {
        ++p.dropped;
        ++drops;
        lost = true;
        break;
      }
      ns start = p.leaving.empty() ? t : std::max(t, p.leaving.back());
      t = start + (v != dest && p.forward.count() >= 0 ? p.forward : p.service);
      p.leaving.push_back(t);
      p.peak = std::max<unsigned>(p.peak, unsigned(p.leaving.size()));
      ++p.served;
      if (v == dest) {
        r.data[3] |= 0x80;
        if (r.data[1] == 0x81) r.data[4] |= 0x80;  // D bit
        if (answer && !answer(s.mad.data(), path, r.data.data())) {
          lost = true;
          break;
        }
      }
    }
    t += hop;
    const ns deadline = now_ + std::chrono::milliseconds(timeout_ms);
    if (lost || (timeout_ms > 0 && t > deadline)) {
      if (timeout_ms <= 0) return;
      // The kernel hands the send back when its time is up.
      ibcore::RecvMad e;
      e.data = s.mad;
      e.len = 256;
      e.status = ETIMEDOUT;
      push(deadline, e);
      return;
    }
    push(t, r);
  }

  bool recv(ibcore::RecvMad& out, int timeout_ms) override {
    const ns limit = timeout_ms < 0 ? ns::max() : now_ + std::chrono::milliseconds(timeout_ms);
    if (events_.empty() || events_.top().at > limit) {
      if (timeout_ms > 0) now_ = limit;
      return false;
    }
    Ev e = events_.top();
    events_.pop();
    now_ = std::max(now_, e.at);
    out = e.mad;
    return true;
  }

private:
  struct Ev {
    ns at;
    uint64_t seq;
    ibcore::RecvMad mad;
    bool operator>(const Ev& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void push(ns at, const ibcore::RecvMad& m) { events_.push(Ev{at, seq_++, m}); }
  ns now_{std::chrono::seconds(1)};
  uint64_t seq_ = 0;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> events_;
};

}  // namespace flowtest
