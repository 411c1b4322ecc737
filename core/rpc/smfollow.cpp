#include "core/rpc/smfollow.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>

#include "core/base/config.h"
#include "core/rpc/engine.h"
#include "core/rpc/rpc.h"
#include "iba/enums.h"
#include "iba/introspect.h"
#include "iba/sa.h"
#include "iba/smp.h"
#include "iba/vendor.h"

// Following a new master SM (MadEngine::follow_sm and what it remembers).
namespace ibcore {

namespace {
using madhdr::class_of;
using madhdr::mad_status;
}  // namespace

namespace {

std::mutex g_followed_mu;
std::map<std::string, FollowedSm> g_followed;
std::atomic<bool> g_any_followed{false};  // (no lock for the common case)

std::string port_key(const Transport& t) { return t.local_gid().str() + "/" + std::to_string(t.local_lid()); }

}  // namespace

std::optional<FollowedSm> followed_sm(const Transport& t) {
  if (!g_any_followed.load(std::memory_order_relaxed)) return std::nullopt;
  std::lock_guard<std::mutex> l(g_followed_mu);
  auto it = g_followed.find(port_key(t));
  if (it == g_followed.end()) return std::nullopt;
  return it->second;
}

void forget_followed_sm() {
  std::lock_guard<std::mutex> l(g_followed_mu);
  g_followed.clear();
  g_any_followed = false;
}


void MadEngine::to_followed_sm(PendingMad& p) {
  // A path made before the SM was followed (a resolver's cached SA path):
  // straight to the SM followed, while the port still names the old one.
  if (!p.path->DLID || !t_.settings().sa_path.empty()) return;
  auto f = followed_sm(t_);
  if (!f || p.path->DLID != f->stale_lid || f->stale_lid != t_.sm_lid()) return;
  p.sm_path = *p.path;
  p.sm_path.DLID = f->lid;
  p.sm_path.SL = f->sl;
  p.path = &p.sm_path;
}

bool MadEngine::follow_sm(PendingMad& p) {
  // Only SA MADs on the default SA path (no --sa-path): to the SM LID the
  // port knows, or to the one followed before.  Each at most once.  Not
  // with --sa, which promises that no SMP leaves the port.
  if (p.sm_followed || class_of(p.req.data()) != iba::mgmt::SUBN_ADM || !t_.settings().sa_path.empty() || t_.settings().use_sa ||
      !p.path->DLID)
    return false;
  auto f = followed_sm(t_);
  if (p.path->DLID != t_.sm_lid() && !(f && p.path->DLID == f->lid)) return false;
  if (f && p.path->DLID == f->stale_lid && f->stale_lid == t_.sm_lid()) {
    // Sent to the old SM before another probe found the new one (MADs that
    // timed out one after the other): the answer is known, ask nothing.
    resend_to_sm(p, f->lid, f->sl);
    return true;
  }
  sm_waiters_.push_back(&p);
  if (probe_ && !probe_->done) return true;  // a probe is asking already
  if (!probe_) probe_ = std::make_unique<PendingMad>();
  if (!send_local_smp(*probe_, probe_path_, max_)) {
    // No SMPs from this port (a verbs transport): nothing to ask.
    sm_waiters_.pop_back();
    return false;
  }
  return true;
}


void MadEngine::probe_done() {
  const PendingMad& q = *probe_;
  uint16_t lid = 0;
  uint8_t sl = 0;
  if (!q.error) {
    auto rep = q.reply();
    if (rep.size() >= iba::MADHeader::SIZE && mad_status(rep.data()) == 0) {
      auto pi = decode_reply<iba::SMPPortInfo>(rep);
      lid = uint16_t(pi.masterSMLID());
      sl = uint8_t(pi.masterSMSL());
    }
  }
  std::vector<PendingMad*> waiters;
  waiters.swap(sm_waiters_);
  for (PendingMad* w : waiters) {
    if (!lid || lid == w->path->DLID) {
      fail_final(*w);  // no other SM known: the timeout stands
      continue;
    }
    {
      std::lock_guard<std::mutex> l(g_followed_mu);
      g_followed[port_key(t_)] = FollowedSm{t_.sm_lid(), lid, sl};
      g_any_followed = true;
    }
    resend_to_sm(*w, lid, sl);
  }
}

void MadEngine::resend_to_sm(PendingMad& w, uint16_t lid, uint8_t sl) {
  w.sm_path = *w.path;
  w.sm_path.DLID = lid;
  w.sm_path.SL = sl;
  w.path = &w.sm_path;
  w.sm_followed = true;
  w.tries_left = w.sm_path.mad_retries(t_.settings().retries) + 1;
  ++sm_follows_;
  ++resent_;
  send_or_fail(w);
}


IBPath default_sa_path(const Transport& t) {
  const std::string& s = t.settings().sa_path;
  IBPath p;
  if (!s.empty()) {
    try {
      p = IBPath::from_string(s);
    } catch (const Error& e) {
      throw Error(std::string("--sa-path: ") + e.what());
    }
    if (p.is_dr()) throw Error("Invalid --sa-path " + s + ": SA MADs cannot follow a directed route path");
    if (!p.DLID && !p.has_grh) throw Error("Invalid --sa-path " + s + ": it names no destination");
  } else {
    p.DLID = t.sm_lid();
    p.SL = t.sm_sl();
    // The master SM this process followed, while the port still names the
    // one that stopped answering.
    if (auto f = followed_sm(t); f && f->stale_lid == p.DLID) {
      p.DLID = f->lid;
      p.SL = f->sl;
    }
    if (!p.DLID) throw MADError("No SM LID known for the local port: cannot reach the SA");
  }
  if (!p.dqpn) p.dqpn = 1;
  if (!p.qkey) p.qkey = GSI_QKEY;
  return p;
}

}  // namespace ibcore
