// Errors of the library (python-rdma's model, seeds/000): every failure is an
// ibcore::Error; MAD failures are MADError, which stacks one message per
// layer so that a failed path query deep inside a command still says what
// the command was trying to do:
//
//   try { ... } catch (ibcore::MADError& e) {
//     e.annotate("Failed getting path record for end port " + gid);
//     throw;
//   }
//   ...
//   catch (const std::exception& e) { return ibcore::report(e); }
//
// prints (innermost last)
//   E: Failed getting path record for end port fe80::10:1.
//   E: +RPC SubnAdmGet(1) SAFormat(3.2) SAPathRecord(53) got class specific error 3 (ERR_NO_RECORDS)
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace ibcore {

// Root of everything the library throws on purpose.
class Error : public std::exception {
public:
  explicit Error(std::string msg) : msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  // "E: <what>\n" (and for subclasses more, per level): the lines report()
  // writes.
  virtual std::string dump_str(int level = 0) const;

protected:
  std::string msg_;
};

// A system call failed.  err is the positive errno, func the call's name.
class SysError : public Error {
public:
  SysError(int err, std::string func, std::string msg = {});
  int err() const { return err_; }
  const std::string& func() const { return func_; }

private:
  int err_;
  std::string func_;
};

// A MAD RPC (or the handling of an incoming MAD) failed.  The throw site
// fills in what it knows; higher layers annotate().
class MADError : public Error {
public:
  explicit MADError(std::string msg) : Error(std::move(msg)) { layers_.push_back(msg_); }

  // Stack a message for the layer above ("Failed getting ... for X.").
  MADError& annotate(std::string msg);
  // The messages, outermost first, innermost (the throw site) last.
  const std::vector<std::string>& layers() const { return layers_; }

  // Level 0: one line a layer ("E: outer", "E: +inner").  Level 1 adds the
  // summary of the request/reply/path.  Level 2 adds decoded dumps of the
  // request and reply MADs.
  std::string dump_str(int level = 0) const override;

  // Context, filled where known (empty = unknown).
  std::vector<uint8_t> req;   // the whole request MAD as sent
  std::vector<uint8_t> rep;   // the whole reply MAD as received
  std::string path;           // description of the destination path
  uint16_t status = 0;        // the reply's 16-bit status (0 if none)
  // For an incoming request: the status to put in the error reply.
  uint16_t reply_status = 0;
  // Whether the destination is known to exist (the SA knows its LID): the
  // M_Key hint of a timed-out SMP (report()) is given only when it is, and
  // a destination known to be absent is said to be so instead.
  enum class Target : uint8_t { Unknown, Exists, Absent };
  Target target = Target::Unknown;

protected:
  std::vector<std::string> layers_;
};

// The reply carried a non-zero status (generic or class specific).
class MADClassError : public MADError {
public:
  MADClassError(std::string msg, uint8_t mgmt_class, uint16_t status)
      : MADError(std::move(msg)), mgmt_class(mgmt_class) {
    this->status = status;
  }
  uint8_t mgmt_class;
  // The class specific code (status bits 8..14, IBA 13.4.7) or 0.
  unsigned class_code() const { return (status >> 8) & 0x7f; }
};

// No reply after every retry.
class MADTimeoutError : public MADError {
public:
  using MADError::MADError;
};

// A failure said the way the reference tools say theirs: "<tool>: iberror:
// failed: <msg>" on stdout (on stderr with --json), status 255.  The
// library throws it where it fails as a command (core/fabric/portstate);
// the dispatcher writes it (cmd/registry.h RefFail).
struct RefFail {
  std::string msg;
};
// Report e (our E: lines, after what stdout holds) and throw RefFail{msg}.
[[noreturn]] void ref_fail(const std::exception& e, std::string msg);
// A plain failure with the reference's status (saquery's errno values):
// "E: <msg>" on stderr when msg is not empty (cmd/registry.h ExitFail).
struct ExitFail {
  int status;
  std::string msg = {};
};

// Write e as a diagnostic the way every command does (E: lines; MADError
// detail by -v: log::verbosity(); core/out/log) and return the exit status
// the reference tools use for such a failure (255: their IBEXIT).
int report(const std::exception& e);
// The lines report() writes.
std::string report_text(const std::exception& e);
// The exit status alone.
int exit_status(const std::exception& e);

}  // namespace ibcore
