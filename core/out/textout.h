// A flat output buffer for the big text outputs (ibnetdiscover's topology,
// iblinkinfo, dump_fts): text is appended with a few formatting helpers (no
// printf parsing, no per-line allocation) and written to the FILE in 64 kB
// pieces.
//
//   ibcore::TextOut o(stdout);
//   o.put("lid ").dec(lid).put(" guid 0x").hex0(guid, 16).put('\n');
//   o.flush();   // also done by the destructor
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace ibcore {

namespace textout_detail {
// A byte in 2 hex digits, 0..999 in 3 decimal digits (the row path's
// LIDs and ports).
inline constexpr char HEX2[] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
inline constexpr char DEC3[] =
    "000001002003004005006007008009010011012013014015016017018019020021022023024025026027028029030031"
    "032033034035036037038039040041042043044045046047048049050051052053054055056057058059060061062063"
    "064065066067068069070071072073074075076077078079080081082083084085086087088089090091092093094095"
    "096097098099100101102103104105106107108109110111112113114115116117118119120121122123124125126127"
    "128129130131132133134135136137138139140141142143144145146147148149150151152153154155156157158159"
    "160161162163164165166167168169170171172173174175176177178179180181182183184185186187188189190191"
    "192193194195196197198199200201202203204205206207208209210211212213214215216217218219220221222223"
    "224225226227228229230231232233234235236237238239240241242243244245246247248249250251252253254255"
    "256257258259260261262263264265266267268269270271272273274275276277278279280281282283284285286287"
    "288289290291292293294295296297298299300301302303304305306307308309310311312313314315316317318319"
    "320321322323324325326327328329330331332333334335336337338339340341342343344345346347348349350351"
    "352353354355356357358359360361362363364365366367368369370371372373374375376377378379380381382383"
    "384385386387388389390391392393394395396397398399400401402403404405406407408409410411412413414415"
    "416417418419420421422423424425426427428429430431432433434435436437438439440441442443444445446447"
    "448449450451452453454455456457458459460461462463464465466467468469470471472473474475476477478479"
    "480481482483484485486487488489490491492493494495496497498499500501502503504505506507508509510511"
    "512513514515516517518519520521522523524525526527528529530531532533534535536537538539540541542543"
    "544545546547548549550551552553554555556557558559560561562563564565566567568569570571572573574575"
    "576577578579580581582583584585586587588589590591592593594595596597598599600601602603604605606607"
    "608609610611612613614615616617618619620621622623624625626627628629630631632633634635636637638639"
    "640641642643644645646647648649650651652653654655656657658659660661662663664665666667668669670671"
    "672673674675676677678679680681682683684685686687688689690691692693694695696697698699700701702703"
    "704705706707708709710711712713714715716717718719720721722723724725726727728729730731732733734735"
    "736737738739740741742743744745746747748749750751752753754755756757758759760761762763764765766767"
    "768769770771772773774775776777778779780781782783784785786787788789790791792793794795796797798799"
    "800801802803804805806807808809810811812813814815816817818819820821822823824825826827828829830831"
    "832833834835836837838839840841842843844845846847848849850851852853854855856857858859860861862863"
    "864865866867868869870871872873874875876877878879880881882883884885886887888889890891892893894895"
    "896897898899900901902903904905906907908909910911912913914915916917918919920921922923924925926927"
    "928929930931932933934935936937938939940941942943944945946947948949950951952953954955956957958959"
    "960961962963964965966967968969970971972973974975976977978979980981982983984985986987988989990991"
    "992993994995996997998999";
}  // namespace textout_detail

class TextOut {
public:
  explicit TextOut(FILE* f) : f_(f), b_(new char[CAP]) {}
  // Into a string instead (appended at each flush): a fragment kept to be
  // written again (Printer::cached).
  explicit TextOut(std::string& s) : f_(nullptr), s_(&s), b_(new char[CAP]) {}
  TextOut(const TextOut&) = delete;
  TextOut& operator=(const TextOut&) = delete;
  ~TextOut() { flush(); }

  // Write what is buffered to the FILE (not fflush: the FILE keeps its own
  // buffering).
  void flush() {
    if (n_) {
      if (s_) s_->append(b_.get(), n_);
      else std::fwrite(b_.get(), 1, n_, f_);
    }
    n_ = 0;
  }
  FILE* file() const { return f_; }

  TextOut& put(char c) {
    room(1);
    b_[n_++] = c;
    return *this;
  }
  TextOut& put(std::string_view s) {
    if (s.size() > CAP - n_) {
      flush();
      if (s.size() > CAP) {
        if (s_) s_->append(s);
        else std::fwrite(s.data(), 1, s.size(), f_);
        return *this;
      }
    }
    std::memcpy(b_.get() + n_, s.data(), s.size());
    n_ += s.size();
    return *this;
  }
  TextOut& put(const char* s) { return put(std::string_view(s)); }
  TextOut& put(const std::string& s) { return put(std::string_view(s)); }

  // Decimal in exactly `digits` digits, zero-padded (printf %0<digits>u;
  // v must fit).
  TextOut& dec0(uint64_t v, int digits) {
    room(size_t(digits));
    char* w = b_.get() + n_;
    n_ += size_t(digits);
    if (digits == 3 && v < 1000) {  // (the row path's ports: a table, no division)
      std::memcpy(w, textout_detail::DEC3 + 3 * v, 3);
      return *this;
    }
    for (int i = digits - 1; i >= 0; --i, v /= 10) w[i] = char('0' + v % 10);
    return *this;
  }
  // Decimal (printf %u / %d).
  TextOut& dec(uint64_t v) {
    char t[24];
    int k = 0;
    do {
      t[k++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    room(size_t(k));
    while (k) b_[n_++] = t[--k];
    return *this;
  }
  TextOut& sdec(int64_t v) {
    if (v < 0) {
      put('-');
      return dec(uint64_t(0) - uint64_t(v));
    }
    return dec(uint64_t(v));
  }
  // Right-aligned in a field of `width` (printf %<width>s / %<width>d).
  TextOut& rpad(std::string_view s, size_t width) {
    if (s.size() < width) spaces(width - s.size());
    return put(s);
  }
  TextOut& rdec(uint64_t v, size_t width) {
    size_t digits = 1;
    for (uint64_t x = v / 10; x; x /= 10) ++digits;
    if (digits < width) spaces(width - digits);
    return dec(v);
  }
  TextOut& spaces(size_t k) {
    while (k) {
      size_t m = k < 64 ? k : 64;
      put(std::string_view("                                                                ", m));
      k -= m;
    }
    return *this;
  }
  // Lower-case hex without padding (printf %x / PRIx64).
  TextOut& hex(uint64_t v) {
    int digits = 1;
    for (uint64_t x = v >> 4; x; x >>= 4) ++digits;
    return hex0(v, digits);
  }
  // Lower-case hex in exactly `digits` digits (printf %0<digits>x).
  TextOut& hex0(uint64_t v, int digits) {
    room(size_t(digits));
    char* w = b_.get() + n_;
    n_ += size_t(digits);
    int i = digits;
    for (; i >= 2; i -= 2, v >>= 8) std::memcpy(w + i - 2, textout_detail::HEX2 + 2 * (v & 0xff), 2);
    if (i) w[0] = "0123456789abcdef"[v & 15];
    return *this;
  }
  // Room for k more bytes (k at most 64 kB) at the end of the buffer, to be
  // written in place and then kept with advance(k): for text patched after
  // it is copied (dump_fts rows: a cached line with its LID and port
  // written in).
  char* reserve(size_t k) {
    room(k);
    return b_.get() + n_;
  }
  void advance(size_t k) { n_ += k; }

  // Anything else (rare lines only).
  TextOut& printf(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    return *this;
  }
  TextOut& vprintf(const char* fmt, va_list ap) {
    char t[512];
    va_list aq;
    va_copy(aq, ap);
    int k = std::vsnprintf(t, sizeof t, fmt, aq);
    va_end(aq);
    if (k < 0) return *this;
    if (size_t(k) < sizeof t) return put(std::string_view(t, size_t(k)));
    std::string big(size_t(k) + 1, '\0');
    std::vsnprintf(big.data(), big.size(), fmt, ap);
    big.resize(size_t(k));
    return put(big);
  }

private:
  static constexpr size_t CAP = size_t(1) << 16;
  void room(size_t k) {
    if (n_ + k > CAP) flush();
  }
  FILE* f_;
  std::string* s_ = nullptr;
  std::unique_ptr<char[]> b_;
  size_t n_ = 0;
};

}  // namespace ibcore
