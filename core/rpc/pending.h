// One MAD in flight (PendingMad) and the line of those waiting to go
// (MadLine): what the MAD engine (core/rpc/engine.h) and its flow control
// (core/rpc/flow.h) both handle.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <span>
#include <vector>

#include "core/transport/path.h"
#include "core/transport/transport.h"
#include "iba/mad.h"

namespace ibcore {

// One MAD in flight.  Lives in the caller's storage (the sync call's stack
// or a coroutine frame), so issuing a MAD allocates nothing.  The engine
// links it while outstanding; it must not move until done.
struct PendingMad {
  std::array<uint8_t, iba::MAD_SIZE> req{};
  size_t req_len = 0;
  const IBPath* path = nullptr;   // must outlive the request
  int agent = -1;
  int timeout_ms = 0;
  int tries_left = 0;
  int busy_left = 0;
  // Result: the reply (rep/rep_len; rep_big when RMPP reassembled it
  // beyond 256 bytes) or an error.
  std::array<uint8_t, iba::MAD_SIZE> rep{};
  size_t rep_len = 0;
  std::vector<uint8_t> rep_big;
  std::exception_ptr error;
  bool done = false;
  // Called once when done (the scheduler resumes a coroutine here).
  void (*on_done)(PendingMad*, void*) = nullptr;
  void* ctx = nullptr;

  std::span<const uint8_t> reply() const {
    return rep_big.empty() ? std::span<const uint8_t>(rep.data(), rep_len) : std::span<const uint8_t>(rep_big);
  }

  // engine bookkeeping
  uint32_t slot = 0;
  uint32_t seq = 0;
  PendingMad* next = nullptr;     // wait queue
  bool backoff = false;           // waiting to resend after a BUSY reply
  Clock::time_point sent_at;
  // Flow control (FlowControl, core/rpc/flow.h): the node the MAD goes to (a key
  // made from its path: the directed route, else the DLID; a PMA's own key
  // for a Performance GMP, which only the node cap holds; 0 for other
  // GMPs, which no per-node cap holds), whether its timeout is the engine's to
  // compute (neither -t nor the path gave one), the sends so far and the
  // sequence number of the one before the last (a reply to it after a
  // timeout is late, not lost).
  uint64_t dest = 0;
  uint16_t dest_load = 0;         // ours in flight to dest when it was issued, itself included (0: not counted)
  uint16_t head_load = 0;         // ... and at a hybrid route's head (FlowLimits::head_counts; 0: not counted)
  uint32_t step = 0;              // the widening's step that judges its round trip (FlowLimits::step_whole; 0: none)
  uint32_t w_dest = 0, w_hop = 0; // its processor shares when it was counted in (FlowControl::hold)
  // The keys it was counted in with at a hybrid route's head and within
  // a node cap besides its own (FlowControl::hold): a LID's or a route's
  // node can be learned while it is out, and it is counted out where it
  // was counted in.
  uint64_t head_at = 0, held_in = 0;
  bool adaptive_timeout = false;
  uint16_t sends = 0;
  uint32_t prev_seq = 0;
  // Following a new master SM (MadEngine: an SA MAD that timed out on the
  // SM LID the port knew is sent once more to the SM LID the port's
  // PortInfo gives now): the path it was resent on, and whether it was.
  IBPath sm_path;
  bool sm_followed = false;
  bool was_held = false;          // waited for a cap once (FlowStats::held)
  // The engine's send count at this MAD's last send (what its timer times,
  // and what order is judged by), and (FlowLimits::overtakes) how many sent
  // after it on the same route have been answered.
  uint64_t send_no = 0;
  uint16_t overtaken = 0;
  bool was_overtaken = false;     // its send before the last was taken as lost by order
  bool tail_probe = false;        // its last send was the tail's probe: a reply to the one before completes it too
  // An urgent MAD (IBPath::urgent) waiting for a cap: the keys it holds
  // until it is issued, where no other MAD goes before it
  // (FlowControl::urgent_at_).
  std::vector<uint64_t> urgent_keys;
};

// The MADs waiting to go, in order, linked through PendingMad::next: the
// engine's line (MadEngine), which the flow control puts MADs a cap held
// back at the head of once the cap has room (FlowControl::unpark).
struct MadLine {
  PendingMad* head = nullptr;
  PendingMad* tail = nullptr;

  bool empty() const { return !head; }
  void push_back(PendingMad& p) {
    p.next = nullptr;
    (tail ? tail->next : head) = &p;
    tail = &p;
  }
  // The chain first..last (linked through next) first in line.
  void push_front(PendingMad& first, PendingMad& last) {
    last.next = head;
    head = &first;
    if (!tail) tail = &last;
  }
  void push_front(PendingMad& p) { push_front(p, p); }
  // p after the urgent MADs at the front of the line (IBPath::urgent),
  // before the rest.
  void push_urgent(PendingMad& p) {
    PendingMad* at = nullptr;
    for (PendingMad* q = head; q && q->path && q->path->urgent; q = q->next) at = q;
    if (!at) return push_front(p);
    p.next = at->next;
    at->next = &p;
    if (tail == at) tail = &p;
  }
  // p where it goes: push_urgent when its path says so, else push_back.
  void push(PendingMad& p) {
    if (p.path && p.path->urgent) push_urgent(p);
    else push_back(p);
  }
  PendingMad& pop_front() {
    PendingMad& p = *head;
    head = p.next;
    if (!head) tail = nullptr;
    p.next = nullptr;
    return p;
  }
};

}  // namespace ibcore
