// rdma_bw: RDMA WRITE bandwidth between two hosts over an RC QP (the
// example python-rdma ships, after perftest's rdma_bw).  With no peer it is
// the server: it waits on a TCP port; the client connects to it, the two
// exchange their LID, QPN, PSN, rkey and buffer address over TCP (perftest's
// "LID:QPN:PSN:RKEY:VADDR" message), complete the path to each other
// through the SA (SL, MTU, rate, packet lifetime), bring their QPs up and
// the client writes the buffer iters times into the server's.  At the end
// the server checks the bytes it received (the client fills its buffer
// with a pattern both ends derive from the client's PSN) and says so.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cmd/common.h"
#include "cmd/registry.h"
#include "core/base/config.h"
#include "core/transport/devices.h"
#include "core/base/error.h"
#include "core/rpc/gmppath.h"
#include "core/out/print.h"
#include "core/rpc/rpc.h"
#include "core/transport/oob.h"
#include "core/transport/open.h"
#include "core/transport/verbs.h"
#include "core/out/log.h"
#include "iba/enums.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace v = ibcore::verbs;

// The bytes the client writes (both ends compute them from the client's PSN).
uint8_t pattern(size_t i, uint32_t psn) { return uint8_t((i * 7 + psn) ^ (i >> 8) ^ (psn >> 8)); }

using ibcore::oob::Dest;
using ibcore::oob::Tcp;
using ibcore::oob::MSG_LEN;
using ibcore::oob::format_dest;
using ibcore::oob::parse_dest;

// --- the command -------------------------------------------------------------------------

class RdmaBw : public ibtool::Command {
public:
  void options(CLI::App& app) override {
    app.add_option("-p,--port", tcp_port_, "TCP port to listen on / connect to (default 18515)")
        ->option_text("<port>");
    app.add_option("-d,--ib-dev", ib_dev_, "RDMA device to use (as -C)")->option_text("<dev>");
    app.add_option("-i,--ib-port", ib_port_, "port of the device to use (as -P)")->option_text("<port>");
    app.add_option("-s,--size", size_, "bytes written by each RDMA WRITE (default 65536)")->option_text("<size>");
    app.add_option("-n,--iters", iters_, "number of RDMA WRITEs (default 1000)")->option_text("<iters>");
    app.add_option("-t,--tx-depth", tx_depth_, "RDMA WRITEs in flight (default 100)")->option_text("<dep>");
    app.add_flag("-b,--bidirectional", bidir_, "both ends write at once");
    // -t is perftest's --tx-depth: the MAD timeout (the SA's PathRecord) is
    // --timeout only.
    ibtool::add_common_options(app, config(), ibtool::opt::Ca | ibtool::opt::Port | ibtool::opt::Verbose |
                                        ibtool::opt::TimeoutLong | ibtool::opt::Retries |
                                        ibtool::opt::Transport | ibtool::opt::Json);
    app.add_option("peer", peer_, "the server's host name or address (none: be the server)");
  }

  int run() override {
    check_args();
    auto& c = config();
    if (!ib_dev_.empty()) c.ca = ib_dev_;
    if (ib_port_) c.port = ib_port_;
    // The end port: the one -d/-i (-C/-P) name, else the first Active port
    // (of the device, or of any device).
    const ibcore::EndPort& ep = ibcore::get_end_port(c.ca, c.port);
    bool server = peer_.empty();

    // The verbs side first: a machine without a device, or a port that
    // cannot carry RC traffic, fails here, before any TCP port is opened.
    v::Context ctx = v::Context::open(ep.ca);
    check_active(ctx, ep, c.port != 0 || (!c.ca.empty() && c.ca != ep.ca));
    // --json: {"role", "device", "port", "local" and "remote" (LID, QPN, PSN,
    // RKey, VAddr), "path", "received", "peerReceivedAsWritten", "sent"},
    // written when the run is over; the text: each line as it is known.
    ibcore::Printer p(stdout, ibcore::Printer::Doc::Whole);
    p.open_object().str(ibcore::PRINT_JSON, "role", nullptr, server ? "server" : "client");
    p.str(ibcore::PRINT_ANY, "device", "Local port: %s", ep.ca).uint(ibcore::PRINT_ANY, "port", " port %d", unsigned(ep.port));
    p.text(", LID 0x%04x\n", unsigned(ep.lid));
    std::fflush(stdout);
    v::PD pd(ctx);
    size_t bytes = size_t(size_);
    // Bidirectional: the first half is what this end sends, the second what
    // it receives; one way, one buffer serves both roles.
    size_t total = bidir_ ? 2 * bytes : bytes;
    std::unique_ptr<uint8_t, void (*)(void*)> buf(static_cast<uint8_t*>(std::aligned_alloc(4096, round_up(total))),
                                                  std::free);
    if (!buf) throw ibcore::SysError(ENOMEM, "aligned_alloc");
    std::memset(buf.get(), 0, total);
    v::MR mr(pd, buf.get(), total, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    v::CQ cq(ctx, int(tx_depth_) * 2 + 2);
    v::QPCaps caps;
    caps.max_send_wr = uint32_t(tx_depth_);
    caps.max_recv_wr = 1;
    v::QP qp(pd, IBV_QPT_RC, cq, cq, caps);

    std::random_device rd;
    Dest loc;
    loc.lid = ep.lid;
    loc.qpn = qp.qpn();
    loc.psn = rd() & 0xffffff;
    loc.rkey = mr.rkey();
    // Where the peer writes: the receive half (or the only buffer).
    loc.vaddr = reinterpret_cast<uintptr_t>(buf.get()) + (bidir_ ? bytes : 0);

    Tcp tcp = server ? Tcp::accept_one(tcp_port_, -1) : Tcp::connect_to(peer_, tcp_port_);
    Dest rem;
    if (server) {
      rem = parse_dest(tcp.read_exact(MSG_LEN, 60).c_str());
      tcp.write_all(format_dest(loc));
    } else {
      tcp.write_all(format_dest(loc));
      rem = parse_dest(tcp.read_exact(MSG_LEN, 60).c_str());
    }

    ibcore::IBPath path = path_to(ep, rem, loc);
    v::QPEnd end;
    end.port_num = uint8_t(ep.port);
    end.access = IBV_ACCESS_REMOTE_WRITE;
    end.dest_qpn = rem.qpn;
    end.lmc = ep.lmc;
    v::bring_up(qp, path, end);
    // Both QPs ready before the first WRITE (one that reaches a QP not yet
    // in RTR is dropped and costs a whole retry timeout).
    tcp.write_all("rdy!");
    if (tcp.read_exact(4, 60) != "rdy!") throw ibcore::Error("The peer did not bring its QP up");

    // --json: the same facts as one document, written when the run ends.
    dest(p, "local", "Local address:  ", loc);
    dest(p, "remote", "Remote address: ", rem);
    p.str(ibcore::PRINT_ANY, "path", "Path to the peer: %s\n", path.repr());
    std::fflush(stdout);

    bool sends = !server || bidir_;
    double secs = 0;
    std::vector<double> peaks;
    if (sends) {
      // The client's pattern goes out (the server's, bidirectional, too:
      // derived from its own PSN so each end can check what it got).
      uint32_t my_pattern = loc.psn;
      for (size_t i = 0; i < bytes; ++i) buf.get()[i] = pattern(i, my_pattern);
      secs = transfer(qp, cq, mr, rem, peaks);
    }
    // Done: each end tells the other, then checks what it received.
    tcp.write_all("done");
    if (tcp.read_exact(4, 600) != "done") throw ibcore::Error("The peer did not finish the transfer");
    int status = 0;
    bool receives = server || bidir_;
    std::string verdict;
    if (receives) {
      const uint8_t* got = buf.get() + (bidir_ ? bytes : 0);
      size_t bad = bytes;
      for (size_t i = 0; i < bytes; ++i)
        if (got[i] != pattern(i, rem.psn)) {
          bad = i;
          break;
        }
      const bool ok = bad == bytes;
      p.open_object("received");
      p.uint(ok ? ibcore::PRINT_ANY : ibcore::PRINT_JSON, "bytes", "Received %u bytes from the peer: all as written\n", bytes);
      p.boolean(ibcore::PRINT_JSON, "asWritten", nullptr, ok);
      if (!ok) {
        p.uint(ibcore::PRINT_ANY, "firstBadByte", "Received data differs from what the peer wrote, first at byte %u", bad);
        p.uint(ibcore::PRINT_ANY, "got", " (0x%02x", got[bad]);
        p.uint(ibcore::PRINT_ANY, "expected", ", not 0x%02x)\n", pattern(bad, rem.psn));
      }
      p.close_object();
      verdict = ok ? "ok  " : "bad ";
      if (!ok) status = 1;
    } else {
      verdict = "none";
    }
    tcp.write_all(verdict);
    std::string theirs = tcp.read_exact(4, 60);
    if (theirs == "bad ") {
      ibcore::log::error("E: the peer found the data it received corrupted\n");
      status = 1;
    }
    p.boolean(ibcore::PRINT_JSON, "peerReceivedAsWritten", nullptr, theirs != "bad ");
    if (sends) {
      double mb = double(bytes) * double(iters_) / 1e6;
      double peak = peaks.empty() ? 0 : *std::max_element(peaks.begin(), peaks.end());
      p.open_object("sent").uint(ibcore::PRINT_ANY, "writes", "Sent %u RDMA WRITEs", uint64_t(iters_));
      p.uint(ibcore::PRINT_ANY, "size", " of %u bytes", uint64_t(size_));
      p.uint(ibcore::PRINT_JSON, "bytes", nullptr, uint64_t(bytes) * uint64_t(iters_)).real(ibcore::PRINT_FP, nullptr, " (%.0f bytes)", mb * 1e6);
      p.real(ibcore::PRINT_ANY, "seconds", " in %.6f s\n", secs);
      p.real(ibcore::PRINT_ANY, "averageMBps", "Bandwidth average: %.2f MB/sec\n", secs > 0 ? mb / secs : 0.0);
      p.real(ibcore::PRINT_ANY, "peakMBps", "Bandwidth peak:    %.2f MB/sec\n", peak).close_object();
    }
    p.close_object().finish();
    return status;
  }

private:
  // One end of the connection: {"LID", "QPN", "PSN", "RKey", "VA"}, or
  // its "<what>LID 0x..., QPN ..." line.
  static void dest(ibcore::Printer& p, const char* key, const char* what, const Dest& d) {
    p.open_object(key).uint(ibcore::PRINT_ANY, "LID", (std::string(what) + "LID 0x%04x").c_str(), d.lid);
    p.uint(ibcore::PRINT_ANY, "QPN", ", QPN 0x%06x", d.qpn).uint(ibcore::PRINT_ANY, "PSN", ", PSN 0x%06x", d.psn);
    p.uint(ibcore::PRINT_ANY, "RKey", ", RKey 0x%08x", d.rkey).guid(ibcore::PRINT_ANY, "VA", ", VAddr 0x%016x\n", d.vaddr);
    p.close_object();
  }
  static size_t round_up(size_t n) { return (n + 4095) / 4096 * 4096; }

  void check_args() const {
    auto bad = [](const std::string& what) { throw ibcore::Error("rdma_bw: " + what); };
    if (tcp_port_ < 1 || tcp_port_ > 65535) bad("the TCP port must be 1 to 65535");
    if (size_ < 1 || size_ > (1ll << 30)) bad("the size must be 1 to 1073741824 bytes");
    if (iters_ < 1 || iters_ > 100000000) bad("the iteration count must be 1 to 100000000");
    if (tx_depth_ < 1 || tx_depth_ > 16384) bad("the tx depth must be 1 to 16384");
    if (ib_port_ < 0 || ib_port_ > 254) bad("the IB port must be 1 to 254");
  }

  // The path to the peer: its LID from the exchange, the rest (SL, MTU,
  // rate, packet lifetime) from the SA; the PSNs are the two ends'.
  // An RC QP on a port that is not Active sends nothing: every WRITE
  // would end in a retry timeout on the peer.  One line naming the device,
  // the port and its state (named: the user chose that port; else no port
  // was Active and get_end_port fell back to the first).
  static void check_active(const v::Context& ctx, const ibcore::EndPort& ep, bool named) {
    ibv_port_attr a = ctx.query_port(uint8_t(ep.port));
    if (a.state == IBV_PORT_ACTIVE) return;
    const char* st = iba::enums::name_of(iba::enums::port_states(), uint32_t(a.state));
    std::string state = st ? st : "in state " + std::to_string(unsigned(a.state));
    std::string where = ep.ca + " port " + std::to_string(ep.port);
    if (named) throw ibcore::Error("rdma_bw: " + where + " is " + state + ", not Active");
    throw ibcore::Error("rdma_bw: no Active port (" + where + ", the first, is " + state + "); name one with -d/-i");
  }

  ibcore::IBPath path_to(const ibcore::EndPort& ep, const Dest& rem, const Dest& loc) {
    ibcore::IBPath want;
    want.DLID = rem.lid;
    ibcore::IBPath path = want;
    try {
      auto t = ibcore::open_transport(ep, config());
      ibcore::MadTransactor mad(*t);
      ibcore::GmpPathResolver res(mad);
      path = res.resolve(want);
    } catch (const ibcore::Error& e) {
      // Without the SA the path is still usable with the defaults (SL 0,
      // MTU 1024, the port's rate): say so and go on.
      ibcore::log::warn("W: no path record from the SA to LID %u (%s); using SL 0 and MTU 1024\n",
                   unsigned(rem.lid), e.what());
    }
    path.SLID = ep.lid;
    path.sqpsn = loc.psn;
    path.dqpsn = rem.psn;
    return path;
  }

  // iters_ RDMA WRITEs of size_ bytes to rem, tx_depth_ in flight; returns
  // the seconds taken and fills peaks with the MB/s of each tenth.
  double transfer(v::QP& qp, v::CQ& cq, const v::MR& mr, const Dest& rem, std::vector<double>& peaks) {
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uintptr_t>(mr.addr());
    sge.length = uint32_t(size_);
    sge.lkey = mr.lkey();
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.rdma.remote_addr = rem.vaddr;
    wr.wr.rdma.rkey = rem.rkey;
    long long posted = 0, done = 0;
    // The peak: the best stretch of the run, each timed from the completion
    // of the one before (the first from the start).  A stretch is a tenth
    // of the run but at least twice the WRITEs in flight: completions come
    // in bursts of up to that many, and a shorter stretch would time a burst.
    long long slice = std::min(iters_, std::max({1ll, iters_ / 10, 2 * tx_depth_}));
    auto t0 = Clock::now(), stall = t0, prev = t0;
    ibv_wc wc[16];
    while (done < iters_) {
      while (posted < iters_ && posted - done < tx_depth_) {
        wr.wr_id = uint64_t(posted);
        ibv_send_wr* badwr = nullptr;
        if (int r = ibv_post_send(qp.get(), &wr, &badwr))
          throw ibcore::SysError(r, "ibv_post_send", "Cannot post RDMA WRITE " + std::to_string(posted));
        ++posted;
      }
      int n = cq.poll(wc, 16);
      auto now = Clock::now();
      if (n == 0) {
        if (now - stall > std::chrono::seconds(30))
          throw ibcore::Error("No RDMA WRITE completed in 30 s (" + std::to_string(done) + " of " +
                              std::to_string(iters_) + " done)");
        continue;
      }
      stall = now;
      for (int i = 0; i < n; ++i)
        if (wc[i].status != IBV_WC_SUCCESS)
          throw ibcore::Error("RDMA WRITE " + std::to_string(wc[i].wr_id) + " failed: " +
                              v::wc_status_text(wc[i].status) + " (status " + std::to_string(int(wc[i].status)) + ")");
      long long before = done;
      done += n;
      // Tenths whose last WRITE completed now.
      if (done / slice > before / slice) {
        double s = std::chrono::duration<double>(now - prev).count();
        long long moved = (done / slice - before / slice) * slice;
        if (s > 0) peaks.push_back(double(moved) * double(size_) / 1e6 / s);
        prev = now;
      }
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
  }

  int tcp_port_ = 18515;
  std::string ib_dev_;
  int ib_port_ = 0;
  long long size_ = 65536;
  long long iters_ = 1000;
  long long tx_depth_ = 100;
  bool bidir_ = false;
  std::string peer_;
};

}  // namespace

IBTOOL_COMMAND({.name = "rdma_bw",
                .aliases = {},
                .summary = "RDMA WRITE bandwidth between two hosts over an RC QP",
                .description =
                    "Measures RDMA WRITE bandwidth between this host and a peer.  Run it with no peer on one host "
                    "(the server: it waits on TCP port -p) and with the server's host name on the other (the "
                    "client).  The two exchange their LID, QPN, PSN, rkey and buffer address over TCP (the message "
                    "perftest's rdma_bw sends), complete the path through the SA, and the client writes its buffer "
                    "-n times; with -b both write at once.  Each end then checks the bytes it received and the "
                    "exit status says whether they were all as written.  Needs a verbs device (uverbs), not umad, "
                    "and an Active port: the one -d/-i name, else the first Active port (named on the first "
                    "line); a port that is not Active is refused before any TCP exchange.  "
                    "--json (-j; --pretty indents): one document (its members and types: --json-schema), written when both "
                    "ends are done.",
                .usage = "[options] [peer]",
                .examples = "rdma_bw -s 1048576 -n 2000\nrdma_bw -s 1048576 -n 2000 server-host",
                .make = [] { return std::make_unique<RdmaBw>(); },
                .own = true});
