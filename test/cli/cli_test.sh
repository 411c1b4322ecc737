#!/usr/bin/env bash
# CLI tests of the dispatcher, the registry-driven help, links and man pages.
# Usage: cli_test.sh IBTOOL SOURCE_DIR TEST_NAME
set -uo pipefail
IBTOOL=$1
SRC=$2
TEST=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Names of registered commands as `ibtool help` lists them.
commands() { "$IBTOOL" help | awk '/^Commands:/{on=1;next} on && /^  [^ ]/{print $1}'; }

case "$TEST" in
help)
  out=$("$IBTOOL" help) || fail "ibtool help exited $?"
  [ -n "$(commands)" ] || fail "ibtool help lists no command"
  # Every listed command has a one-line summary.
  "$IBTOOL" help | awk '/^Commands:/{on=1;next} on && /^  [^ ]/ && NF<2 {bad=1} END{exit bad}' ||
    fail "a command has no summary"
  # No arguments: the list on stdout and a non-zero exit.
  "$IBTOOL" >/dev/null 2>&1 && fail "bare ibtool should exit non-zero"
  # help CMD = CMD --help; `ibtool help CMD` is a result: stdout, status 0.
  for c in $(commands); do
    "$IBTOOL" help "$c" >"$tmp/h1" 2>"$tmp/e1" || fail "ibtool help $c exited $?"
    [ ! -s "$tmp/e1" ] || fail "ibtool help $c wrote to stderr"
    # -h/--help exits as the reference's usage printer does (usage on
    # stderr, 2 for the infiniband-diags tools), or for ibtool's own
    # commands as a shell user expects (stdout, 0): either way the text is
    # the same one.
    "$IBTOOL" "$c" --help >"$tmp/h2" 2>&1
    cmp -s "$tmp/h1" "$tmp/h2" || fail "help $c differs from $c --help"
    grep -q "^Usage: $c " "$tmp/h2" || fail "$c --help has no usage line"
  done
  # ibtool's own commands: `ibtool exporter --help | less` works.
  for c in exporter query decode_mad rdma_bw subnet_diff set_guid init_all_ports set_port_state; do
    "$IBTOOL" "$c" --help >"$tmp/o" 2>"$tmp/e" || fail "$c --help exited $?"
    [ -s "$tmp/o" ] && [ ! -s "$tmp/e" ] || fail "$c --help: the help is not on stdout alone"
  done
  # The reference's commands keep the reference's: usage on stderr, 2.
  for c in perfquery smpquery ibnetdiscover; do
    "$IBTOOL" "$c" --help >"$tmp/o" 2>"$tmp/e"
    rc=$?
    [ $rc -eq 2 ] && [ ! -s "$tmp/o" ] && [ -s "$tmp/e" ] || fail "$c --help: status $rc, or not on stderr"
  done
  ;;
shortopts)
  # No command declares a short option letter twice: --help would list
  # both while the parser gives the letter to one of them (rdma_bw's -t was
  # --tx-depth and --timeout).  The names are the first column of the
  # option lines ("  -t,--timeout <ms>  ...").
  n=0
  for c in $(commands); do
    "$IBTOOL" "$c" --help 2>"$tmp/h" >/dev/null
    shorts=$(sed -n 's/^  \(-[^ ]*\).*/\1/p' "$tmp/h" | tr ',' '\n' | grep -E '^-[^-]$')
    [ -n "$shorts" ] && n=$((n + 1))
    dups=$(echo "$shorts" | sort | uniq -d | tr '\n' ' ')
    [ -z "$dups" ] || fail "$c --help lists $dups more than once"
  done
  [ $n -gt 0 ] || fail "no command lists a short option: the help format changed?"
  ;;
version)
  out=$("$IBTOOL" --version) || fail "--version exited $?"
  [[ "$out" =~ ^ibtool\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "bad version line '$out'"
  for c in $(commands); do
    grep -q "VERSION" <<<"$("$IBTOOL" "$c" -V 2>&1)" || fail "$c -V prints no version"
  done
  ;;
unknown)
  "$IBTOOL" no_such_command >"$tmp/o" 2>"$tmp/e"
  rc=$?
  [ $rc -ne 0 ] || fail "unknown command exited 0"
  [ ! -s "$tmp/o" ] || fail "unknown command wrote to stdout"
  [ "$(wc -l <"$tmp/e")" -eq 1 ] || fail "unknown command: expected one stderr line, got: $(cat "$tmp/e")"
  grep -q "unknown command 'no_such_command'" "$tmp/e" || fail "unclear message: $(cat "$tmp/e")"
  "$IBTOOL" help no_such_command >/dev/null 2>&1 && fail "help of an unknown command exited 0"
  # A typo: the closest name, on the same one line.
  for typo in perfqeury smpqury ibnetdicover; do
    "$IBTOOL" "$typo" >"$tmp/o" 2>"$tmp/e" && fail "$typo exited 0"
    [ "$(wc -l <"$tmp/e")" -eq 1 ] || fail "$typo: expected one stderr line, got: $(cat "$tmp/e")"
  done
  "$IBTOOL" perfqeury 2>"$tmp/e"
  grep -q "did you mean 'perfquery'" "$tmp/e" || fail "perfqeury suggests no perfquery: $(cat "$tmp/e")"
  "$IBTOOL" help ibnetdicover 2>"$tmp/e"
  grep -q "did you mean 'ibnetdiscover'" "$tmp/e" || fail "help ibnetdicover suggests nothing: $(cat "$tmp/e")"
  "$IBTOOL" zzzzzzzzzz 2>"$tmp/e"
  grep -q "did you mean" "$tmp/e" && fail "zzzzzzzzzz got a suggestion"
  ln -s "$IBTOOL" "$tmp/notacommand"
  "$tmp/notacommand" >/dev/null 2>&1 && fail "unknown link name should behave as bare ibtool (exit non-zero)"
  true
  ;;
badvalue)
  # A bad option value: one line and where the help is, not the whole usage
  # (the reference tools print none for a value their getopt took) ...
  for a in "perfquery -Y abc 1" "ibqueryerrors --cache-max-age x" "exporter --transport x" "query --retries x"; do
    c=${a%% *}
    "$IBTOOL" $a >"$tmp/o" 2>"$tmp/e"
    rc=$?
    [ $rc -ne 0 ] || fail "$a exited 0"
    [ ! -s "$tmp/o" ] || fail "$a wrote to stdout"
    [ "$(wc -l <"$tmp/e")" -eq 2 ] || fail "$a: expected two stderr lines, got: $(cat "$tmp/e")"
    [ "$(tail -n 1 "$tmp/e")" = "Try 'ibtool $c --help' for more information." ] || fail "$a: $(cat "$tmp/e")"
  done
  # The texts scripts read, as the getopt parser before CLI11 wrote them: an
  # empty number and a negative one for an unsigned option are refused (not
  # read as 0 or wrapped), the option named as given; status 2.
  while IFS='|' read -r line want; do
    eval "set -- $line"
    "$IBTOOL" "$@" >"$tmp/o" 2>"$tmp/e"
    rc=$?
    [ $rc -eq 2 ] || fail "$line: status $rc: $(cat "$tmp/e")"
    [ "$(head -n 1 "$tmp/e")" = "$want" ] || fail "$line: $(head -n 1 "$tmp/e"), expected $want"
  done <<'CASES'
smpquery -P '' nodeinfo 1|smpquery: invalid value '' for -P
smpquery --Port= nodeinfo 1|smpquery: invalid value '' for --Port
query --retries= x|query: invalid value '' for --retries
perfquery -s -1|perfquery: invalid value '-1' for -s
smpquery -P abc nodeinfo 1|smpquery: invalid value 'abc' for -P
smpquery --Po=1x nodeinfo 1|smpquery: invalid value '1x' for --Port
smpquery -P 08 nodeinfo 1|smpquery: invalid value '08' for -P
set_port_state --disable --enable 1@1|set_port_state: --disable cannot be given with --enable
set_port_state --ena --init 1@1|set_port_state: --enable cannot be given with --init
CASES
  ln -s "$IBTOOL" "$tmp/perfquery"
  "$tmp/perfquery" -Y abc 2>"$tmp/e"
  grep -qx "Try 'perfquery --help' for more information." "$tmp/e" ||
    fail "through a link the help is not named as the link: $(cat "$tmp/e")"
  # ... except where the reference says more or otherwise: -t is the
  # reference's iberror line on stdout and status 255 (for ibtool's own
  # commands, the one line as above).
  for c in perfquery smpquery ibnetdiscover; do
    "$IBTOOL" $c -t abc 1 >"$tmp/o" 2>"$tmp/e"
    rc=$?
    [ $rc -eq 255 ] || fail "$c -t abc: status $rc"
    [ "$(cat "$tmp/o")" = "$c: iberror: failed: Invalid timeout \"abc\".  Timeout requires a positive integer value < 2147483647." ] ||
      fail "$c -t abc: $(cat "$tmp/o")"
    if command -v "$c" >/dev/null; then
      "$c" -t abc 1 >"$tmp/ref" 2>/dev/null
      cmp -s "$tmp/o" "$tmp/ref" || fail "$c -t abc differs from the reference: $(cat "$tmp/ref")"
    fi
  done
  "$IBTOOL" exporter -t 0 >"$tmp/o" 2>"$tmp/e" && fail "exporter -t 0 exited 0"
  grep -q "^Try 'ibtool exporter --help'" "$tmp/e" || fail "exporter -t 0: $(cat "$tmp/e")"
  ;;
badopt)
  for c in $(commands); do
    "$IBTOOL" "$c" --no-such-option >"$tmp/o" 2>"$tmp/e"
    rc=$?
    [ $rc -ne 0 ] || fail "$c --no-such-option exited 0"
    [ ! -s "$tmp/o" ] || fail "$c: usage error wrote to stdout"
    grep -q "no-such-option" "$tmp/e" || fail "$c: error does not name the bad option"
    grep -q "^Usage: $c " "$tmp/e" || fail "$c: bad option does not print the usage"
  done
  ;;
links)
  # The links work where ibtool is not (absolute, or "ibtool" beside it),
  # never take another program's name (an executable on PATH that is not
  # ibtool, as ibverbs-utils' ibv_devices; here a fake one), never replace
  # a file that is not a link to ibtool, and a DIR off PATH is warned of.
  mkdir -p "$tmp/other" && printf '#!/bin/sh\necho other\n' >"$tmp/other/ibv_devices" && chmod +x "$tmp/other/ibv_devices"
  mkdir -p "$tmp/bin" && echo keep >"$tmp/bin/subnet_diff"
  ln -s ibtool "$tmp/bin/exporter"  # (a dangling link of an older --install-links: replaced)
  PATH="$tmp/other:$PATH" "$IBTOOL" --install-links "$tmp/bin" 2>"$tmp/links.err" || fail "--install-links failed"
  grep -q "ibv_devices not linked: $tmp/other/ibv_devices" "$tmp/links.err" ||
    fail "ibv_devices shadowed another program: $(cat "$tmp/links.err")"
  [ ! -e "$tmp/bin/ibv_devices" ] && [ ! -L "$tmp/bin/ibv_devices" ] || fail "ibv_devices was linked over another program's"
  [ "$(cat "$tmp/bin/subnet_diff")" = keep ] || fail "a file that is not a link to ibtool was replaced"
  grep -q "$tmp/bin/subnet_diff not replaced" "$tmp/links.err" || fail "the kept file is not named: $(cat "$tmp/links.err")"
  grep -q "$tmp/bin is not on PATH" "$tmp/links.err" || fail "no warning for a DIR off PATH: $(cat "$tmp/links.err")"
  PATH="$tmp/bin:$PATH" "$IBTOOL" --install-links "$tmp/bin" 2>"$tmp/links2.err" || fail "--install-links again failed"
  grep -q "not on PATH" "$tmp/links2.err" && fail "a DIR on PATH was said to be off it"
  n=0
  for c in $(commands); do
    aliases=$(sed -n 's/^Aliases: //p' <("$IBTOOL" "$c" --help 2>&1))
    for name in $c $aliases; do
      [ "$name" = subnet_diff ] && continue
      if other=$(PATH="$tmp/other:$PATH:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" command -v "$name") &&
        ! [ "$other" -ef "$IBTOOL" ]; then
        [ -L "$tmp/bin/$name" ] && fail "$name linked over $other"
        grep -q "^W: $name not linked" "$tmp/links.err" || fail "$name skipped silently"
        continue
      fi
      [ -L "$tmp/bin/$name" ] || fail "no link for $name"
      # (the help on stderr or, ibtool's own commands, stdout)
      "$tmp/bin/$name" --help >"$tmp/e" 2>&1
      grep -q "^Usage: $name " "$tmp/e" || fail "$name through a link does not run as $name: $(head -2 "$tmp/e")"
      n=$((n + 1))
    done
  done
  [ $n -gt 0 ] || fail "no command to link"
  [ "$(readlink "$tmp/bin/exporter")" = "$(readlink -f "$IBTOOL")" ] ||
    fail "the old dangling link was not replaced: $(readlink "$tmp/bin/exporter")"
  # Beside ibtool a link is relative: the directory may move.
  mkdir -p "$tmp/beside" && cp "$IBTOOL" "$tmp/beside/ibtool"
  "$tmp/beside/ibtool" --install-links "$tmp/beside" 2>/dev/null || fail "--install-links beside ibtool failed"
  [ "$(readlink "$tmp/beside/ibtool" 2>/dev/null)" = "" ] || fail "ibtool itself was replaced"
  for name in $(cd "$tmp/beside" && find . -type l | sed 's|^\./||'); do
    [ "$(readlink "$tmp/beside/$name")" = ibtool ] || fail "$name beside ibtool: $(readlink "$tmp/beside/$name")"
  done
  # ibtool NAME works for aliases too.
  for c in $(commands); do
    aliases=$(sed -n 's/^Aliases: //p' <("$IBTOOL" "$c" --help 2>&1))
    for name in $c $aliases; do
      "$IBTOOL" "$name" --help >"$tmp/e2" 2>&1
      grep -q "^Usage: $name " "$tmp/e2" || fail "ibtool $name --help does not run as $name"
    done
  done
  ;;
manpages)
  "$IBTOOL" --gen-man "$tmp/man" "$SRC/man" || fail "--gen-man failed"
  # A page's own text from man/ goes in before its SEE ALSO.
  for f in "$SRC"/man/*.man; do
    name=$(basename "$f" .man)
    first=$(grep -m1 '^\.SH ' "$f")
    grep -qF "$first" "$tmp/man/$name.8" || fail "$name.8 lacks its own text ($first)"
  done
  # A fragment that names no command is refused.
  mkdir "$tmp/text" && echo ".SH X" >"$tmp/text/no_such_cmd.man"
  "$IBTOOL" --gen-man "$tmp/man2" "$tmp/text" 2>"$tmp/e" && fail "a stale man/ fragment was accepted"
  grep -q "no_such_cmd" "$tmp/e" || fail "the stale fragment is not named"
  [ -s "$tmp/man/ibtool.8" ] || fail "no ibtool.8"
  for c in $(commands); do
    [ -s "$tmp/man/$c.8" ] || fail "no page for $c"
    grep -q "$c" "$tmp/man/ibtool.8" || fail "ibtool.8 does not list $c"
  done
  for p in "$tmp"/man/*.8; do
    grep -q '^\.so ' "$p" && fail "$p is a .so page: man -l cannot read it as a file"
    warnings=$(groff -man -ww -Tutf8 -z "$p" 2>&1)
    [ -z "$warnings" ] || fail "groff warnings for $p: $warnings"
  done
  # Every alias's page reads as a file from anywhere (man -l), and names
  # its command.
  n=0
  for c in $(commands); do
    for a in $(sed -n 's/^Aliases: //p' <("$IBTOOL" "$c" --help 2>&1)); do
      out=$(cd / && MANWIDTH=80 man -l "$tmp/man/$a.8" 2>&1) || fail "man -l $a.8 failed: $out"
      grep -q "another name of" <<<"$out" && grep -q "$c" <<<"$out" || fail "man -l $a.8: $(head -5 <<<"$out")"
      n=$((n + 1))
    done
  done
  [ $n -gt 0 ] || fail "no alias page"
  ls "$tmp"/man/*.pl.8 "$tmp"/man/*.sh.8 >/dev/null 2>&1 || fail "no .pl.8 or .sh.8 page"
  ;;
readme)
  # The README's command table lists exactly the registered commands.
  table=$(sed -n '/<!-- commands:begin -->/,/<!-- commands:end -->/p' "$SRC/README.md" |
    sed -n 's/^| `\([^`]*\)` |.*/\1/p' | sort)
  listed=$(commands | sort)
  [ "$table" = "$listed" ] || fail "README command table out of sync with the registry:
$(diff <(echo "$table") <(echo "$listed"))"
  # The README and docs/ (where its topics moved) name only what exists: a
  # command run in an example is registered, with only options its --help
  # lists, and a source path (bench/, scripts/, test/, core/, ...) names a
  # file, a directory, or a module (its .h or .cpp).
  docs=("$SRC/README.md" "$SRC"/docs/*.md)
  [ ${#docs[@]} -gt 5 ] || fail "docs/ holds no topic files"
  grep -hE '^    ' "${docs[@]}" | grep -oE '(^|[$|] )\s*ibtool [a-z_]+( +-[-a-zA-Z.]+)*' |
    sed -E 's/^.*ibtool //' | sort -u >"$tmp/examples"
  [ -s "$tmp/examples" ] || fail "no ibtool example found in the documentation"
  while read -r c opts; do
    listed_c=$(commands | grep -x -- "$c") || fail "the documentation runs 'ibtool $c', which is no command"
    for o in $opts; do
      o=${o%%=*}
      "$IBTOOL" "$listed_c" --help >"$tmp/help" 2>&1
      grep -qE -- "(^|[ ,])$o([ ,=]|\$)" "$tmp/help" ||
        fail "the documentation runs 'ibtool $c $o', an option its --help does not list"
    done
  done <"$tmp/examples"
  # (a path under another, build/test/model_run, is the build tree's)
  grep -ohE '(^|[^/[:alnum:]_.-])`?(bench|scripts|test|core|iba|cmd|packaging|man|third_party)/[A-Za-z0-9_./*-]*' "${docs[@]}" |
    sed -E 's/^[^a-z]+//' | tr -d '`' | sed 's/[.,;:)]*$//' | sort -u >"$tmp/paths"
  while read -r f; do
    # shellcheck disable=SC2086 # a documented glob (core/health/counters.*)
    [ -n "$(cd "$SRC" && ls -d $f "$f.h" "$f.cpp" 2>/dev/null)" ] || fail "the documentation names $f, which is not in the tree"
  done <"$tmp/paths"
  ;;
completion)
  # The bash completion, generated from the registry: command names after
  # `ibtool`, each command's options after a dash (through ibtool and
  # through a legacy name), files after an option that takes a value; and
  # the options it offers are exactly those --help and the man page list.
  "$IBTOOL" --gen-completion bash "$tmp/ibtool.bash" || fail "--gen-completion bash failed"
  "$IBTOOL" --gen-completion zsh "$tmp/_ibtool" || fail "--gen-completion zsh failed"
  "$IBTOOL" --gen-completion fish >/dev/null 2>&1 && fail "an unknown shell should be refused"
  bash -n "$tmp/ibtool.bash" || fail "the bash completion does not parse"
  if command -v zsh >/dev/null; then zsh -n "$tmp/_ibtool" || fail "the zsh completion does not parse"; fi
  "$IBTOOL" --gen-man "$tmp/man" >/dev/null || fail "--gen-man failed"
  complete_words() {  # complete_words WORD... : what completing the last word offers
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ibtool; printf "%s\n" "${COMPREPLY[@]}"' \
      _ "$tmp/ibtool.bash" "$@"
  }
  complete_words ibtool smpq | grep -x smpquery >/dev/null || fail "ibtool smpq<TAB> does not offer smpquery"
  complete_words ibtool dump_lf | grep -x dump_lfts.sh >/dev/null || fail "legacy names are not offered after ibtool"
  complete_words ibtool perfquery --ext | grep -x -- --extended >/dev/null || fail "perfquery --ext<TAB>"
  complete_words iblinkinfo.pl --node-n | grep -x -- --node-name-map >/dev/null || fail "completion through a legacy name"
  (cd "$tmp" && touch nodemap.txt && complete_words ibnetdiscover --node-name-map node | grep -x nodemap.txt) >/dev/null ||
    fail "no file names after an option that takes a value"
  # An enumerated value: the words CLI11 holds for it, not file names.
  (cd "$tmp" && touch all.txt state.txt nodefile &&
    [ "$(complete_words exporter --port-type '' | sort | tr '\n' ' ')" = "all ca switch " ] &&
    [ "$(complete_words ibtool exporter --down-ports s | tr '\n' ' ')" = "state " ] &&
    [ "$(complete_words exporter --port-type = s | tr '\n' ' ')" = "switch " ] &&
    [ "$(complete_words exporter --once --port-type ca --down-ports '' | sort | tr '\n' ' ')" = "all state " ] &&
    [ "$(complete_words smpquery node | sort | tr '\n' ' ')" = "nodedesc nodeinfo " ] &&
    [ "$(complete_words ibtool smpquery -D port | tr '\n' ' ')" = "portinfo portinfoextended " ] &&
    complete_words smpquery nodeinfo node | grep -x nodefile >/dev/null) ||
    fail "enumerated values: $(cd "$tmp" && complete_words exporter --port-type '' | tr '\n' ' ') /" \
      "$(cd "$tmp" && complete_words smpquery node | tr '\n' ' ')"
  grep -q "port-type) echo 'all switch ca'" "$tmp/_ibtool" || fail "zsh does not offer --port-type's values"
  for c in $(commands); do
    comp=$(complete_words ibtool "$c" - | sort -u)
    help=$("$IBTOOL" "$c" --help 2>&1 | sed -n '/^Options:/,$p' | sed -n 's/^  \(-[^ ]*\).*/\1/p' |
      tr ',' '\n' | grep '^-' | sort -u)
    [ "$comp" = "$help" ] || fail "$c: completion and --help disagree:
$(diff <(echo "$help") <(echo "$comp"))"
    man=$(sed -n '/^\.SH OPTIONS/,/^\.SH [^O]/p' "$tmp/man/$c.8" | sed -n 's/^\.B \(\\-.*\)/\1/p' |
      sed 's/ \\fI.*//; s/ [^\\,][^,]*$//' | tr ',' '\n' | sed 's/^ *//; s/\\-/-/g; s/ .*//' | grep '^-' | sort -u)
    [ "$man" = "$help" ] || fail "$c: man page and --help disagree:
$(diff <(echo "$help") <(echo "$man"))"
    # zsh offers the same words for the command.
    zopts=$(awk -v c="$c" -F') opts=\\(' 'NF > 1 { n = split(substr($1, 3), p, "|");
        for (i = 1; i <= n; i++) if (p[i] == c) { sub(/\); vals=.*/, "", $2); print $2 } }' "$tmp/_ibtool" |
      tr ' ' '\n' | sort -u)
    [ "$zopts" = "$comp" ] || fail "$c: zsh offers other options:
$(diff <(echo "$comp") <(echo "$zopts"))"
  done
  ;;
nodevice)
  # No fabric and no RDMA device (umad2sim not preloaded): every command,
  # bare and with a target, must end with an error status, never a signal
  # (an exception escaping through C frames aborted here once).
  cd "$tmp"
  for c in $(commands); do
    for args in "" "1" "-d 1 1"; do
      # shellcheck disable=SC2086
      env -u LD_PRELOAD -u IBSIM_SOCKNAME timeout 20 "$IBTOOL" "$c" $args </dev/null >/dev/null 2>"$tmp/err"
      st=$?
      [ "$st" -gt 128 ] && [ "$st" -lt 160 ] && fail "'ibtool $c $args' with no device died with status $st: $(head -c 300 "$tmp/err")"
    done
  done
  ;;
badinput)
  # Every command with every kind of bad argument (issue 16): garbage and
  # out-of-range operands, 5,000-character values for every option that
  # takes one and as an operand, and missing, unreadable, binary and
  # directory files for every option and operand that names a file.  No
  # device here (no umad2sim), so commands get as far as their parsing and
  # file reading allow.  Each must end by itself within 20 s (timeout's
  # 124) and not by a signal (128 + N: a crash or an abort; 255 is the
  # reference tools' error status and stays), and an error status must come
  # with a message (on stderr, or where the reference writes it).
  cd "$tmp"
  long=$(printf 'x%.0s' $(seq 5000))
  head -c 4096 "$IBTOOL" >"$tmp/binary"
  printf 'garbage \x01\x02\xff\n' >"$tmp/garbage"
  mkdir -p "$tmp/adir"
  run() {
    # (The exporter serves until stopped unless --once: a scrape instead.)
    local once=()
    [ "$1" = exporter ] && once=(--once)
    env -u LD_PRELOAD -u IBSIM_SOCKNAME timeout 20 "$IBTOOL" "$@" "${once[@]}" </dev/null >"$tmp/out" 2>"$tmp/err"
    st=$?
    what="ibtool $(echo "$*" | cut -c1-80)"
    if [ "$st" -eq 124 ] || { [ "$st" -gt 128 ] && [ "$st" -lt 160 ]; }; then
      fail "'$what' ended with status $st: $(head -c 300 "$tmp/err")"
    fi
    # (some of the reference's error lines go to stdout, "iberror: failed:"
    # and ibstatus' "Fatal error", and ours with them: rows check those)
    if [ "$st" -ne 0 ] && [ ! -s "$tmp/err" ] && [ ! -s "$tmp/out" ]; then
      fail "'$what' failed ($st) without a message"
    fi
    n=$((n + 1))
  }
  n=0
  for c in $(commands); do
    run "$c" '@@@' '%%%' '!!'
    run "$c" 99999999999999999999999 -1 0x
    run "$c" "$long"
    run "$c" "$tmp/binary" "$tmp/garbage"
    # Options that take a value: the word after the names in --help
    # ("  -t,--timeout <ms>").
    for o in $("$IBTOOL" "$c" --help 2>&1 | sed -n 's/^  \(-[^ ]*\) <[^>]*>.*/\1/p' | sed 's/.*,//'); do
      run "$c" "$o" "$long"
      run "$c" "$o" 99999999999999999999999
      run "$c" "$o" /nonexistent/file
      run "$c" "$o" "$tmp/binary"
      run "$c" "$o" "$tmp/adir"
    done
  done
  echo "badinput: $n invocations"
  ;;
config)
  # The config file named in every spelling getopt accepts is read before
  # the rest of the line (issue 27): its CA shows in the error of a run
  # with no device.  The line overrides it wherever -z stands.
  cd "$tmp"
  printf '# test\nCA=conf_ca_from_file\n' >"$tmp/ib.conf"
  run() { env -u LD_PRELOAD -u IBSIM_SOCKNAME -u IBTOOL_COMPAT "$IBTOOL" smpquery "$@" nodeinfo 1 >"$tmp/out" 2>"$tmp/err"; }
  for spelling in "-z $tmp/ib.conf" "-z$tmp/ib.conf" "--config $tmp/ib.conf" "--config=$tmp/ib.conf" \
                  "--conf $tmp/ib.conf" "--conf=$tmp/ib.conf" "--confi $tmp/ib.conf" "-vz $tmp/ib.conf" \
                  "-vz$tmp/ib.conf" "-t 100 -z $tmp/ib.conf -d"; do
    # (word splitting of $spelling on purpose: the paths have no blanks)
    # shellcheck disable=SC2086
    run $spelling
    grep -q conf_ca_from_file "$tmp/err" || fail "smpquery $spelling did not read the file: $(cat "$tmp/err")"
  done
  for spelling in "-C line_ca -z $tmp/ib.conf" "-z $tmp/ib.conf -C line_ca" "--config=$tmp/ib.conf --Ca=line_ca"; do
    # shellcheck disable=SC2086
    run $spelling
    grep -q line_ca "$tmp/err" && ! grep -q conf_ca_from_file "$tmp/err" ||
      fail "smpquery $spelling: the command line should win over the file: $(cat "$tmp/err")"
  done
  # A word that is another option's value names no file (-C takes "-z").
  run -C -z "$tmp/ib.conf"
  grep -q conf_ca_from_file "$tmp/err" && fail "smpquery -C -z FILE read FILE as a config file"
  # --co is ambiguous (--config, --compat, ...): an error, not a guess.
  run --co "$tmp/ib.conf" && fail "--co should be refused"
  grep -q "ambiguous" "$tmp/err" || fail "--co: $(cat "$tmp/err")"
  # The output level: a bad value from the option or the environment is one
  # error and a non-zero exit; a bad value in the file is ignored, as the
  # reference ignores bad values there.
  run --compat 45 && fail "--compat 45 should be refused"
  grep -q "'45' is not one of 44, current" "$tmp/err" || fail "--compat 45: $(cat "$tmp/err")"
  IBTOOL_COMPAT=bogus "$IBTOOL" smpquery nodeinfo 1 >"$tmp/out" 2>"$tmp/err" && fail "IBTOOL_COMPAT=bogus should be refused"
  grep -q "IBTOOL_COMPAT: 'bogus' is not one of 44, current" "$tmp/err" || fail "IBTOOL_COMPAT=bogus: $(cat "$tmp/err")"
  printf 'compat=bogus\nCA=conf_ca_from_file\n' >"$tmp/bad.conf"
  run -z "$tmp/bad.conf"
  grep -q conf_ca_from_file "$tmp/err" || fail "compat=bogus in the file: $(cat "$tmp/err")"
  ;;
startup)
  # What ld.so does at every start of every command (docs/performance.md):
  # it loads each library of DT_NEEDED and looks symbols up in that order.
  # No libm (a libm call anywhere in our code brings it back: 39k
  # instructions of smpquery nodeinfo), libc first (-14k), libstdc++
  # static.  Registered for the GCC build without sanitizers only.
  needed=$(readelf -d "$IBTOOL" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p') || fail "readelf failed"
  [ -n "$needed" ] || fail "no DT_NEEDED read from $IBTOOL"
  for lib in $needed; do
    case "$lib" in
      libm.so*) fail "ibtool needs libm: $(nm -D --undefined-only "$IBTOOL" | awk '{print $2}' |
                  grep -E '^(round|lround|llround|floor|ceil|pow|exp|log|sqrt|fmod|trunc|nearbyint|rint)' | tr '\n' ' ')" ;;
      libstdc++*) fail "ibtool links libstdc++ dynamically" ;;
    esac
  done
  [ "$(echo "$needed" | head -1)" = libc.so.6 ] || fail "libc.so.6 is not first in DT_NEEDED: $(echo $needed)"
  ;;
jsonschema)
  # --json-schema: the schema of the document the same run writes, derived
  # from it (core/out/jsonschema.h): decode_mad's NodeInfo needs no fabric.
  nodeinfo=$(printf '01 01 02 01 00 00 00 00 00 00 00 00 00 02 c9 03 00 00 14 91 00 02 c9 03 00 00 14 92 00 01 00 00 00 00 00 00 00 00 00 00')
  echo "$nodeinfo" | "$IBTOOL" decode_mad --attr NodeInfo --json >"$tmp/doc" || fail "decode_mad --json exited $?"
  echo "$nodeinfo" | "$IBTOOL" decode_mad --attr NodeInfo --json-schema >"$tmp/schema" 2>"$tmp/err" ||
    fail "decode_mad --json-schema exited $?: $(cat "$tmp/err")"
  python3 - "$tmp/doc" "$tmp/schema" <<'PY' || fail "the schema does not describe the document"
import json, sys
doc, schema = (json.load(open(f)) for f in sys.argv[1:3])
assert schema["$schema"].startswith("https://json-schema.org/"), schema
def check(v, s, where):
    t = s["type"] if isinstance(s["type"], list) else [s["type"]]
    kind = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null", float: "number"}.get(type(v), "integer")
    assert kind in t or (kind == "integer" and "number" in t), (where, kind, t)
    if isinstance(v, dict):
        assert list(v) == list(s["properties"]), (where, list(v), list(s["properties"]))
        assert s["required"] == list(v), where
        for k, x in v.items(): check(x, s["properties"][k], where + "." + k)
    if isinstance(v, list):
        for x in v: check(x, s["items"], where + "[]")
check(doc, schema, "$")
assert schema["properties"]["data"]["properties"]["nodeGUID"]["format"] == "guid"
PY
  [ ! -s "$tmp/err" ] || fail "--json-schema wrote on stderr: $(cat "$tmp/err")"
  # --pretty indents it; a run that fails keeps its status and leaves stdout empty.
  grep -q '^  "type": "object",$' <<<"$(echo "$nodeinfo" | "$IBTOOL" decode_mad --attr NodeInfo --json-schema --pretty)" ||
    fail "--json-schema --pretty is not indented"
  echo "zz" | "$IBTOOL" decode_mad --attr NodeInfo --json-schema >"$tmp/out" 2>/dev/null && fail "bad input should fail"
  [ ! -s "$tmp/out" ] || fail "a failed --json-schema run wrote on stdout: $(cat "$tmp/out")"
  # Help says where the schema is, not the schema.
  # (grep -q reads from a variable: in a pipe it may exit before help is written,
  # and pipefail would count the SIGPIPE.)
  help=$("$IBTOOL" help ibqueryerrors)
  grep -q -- '--json-schema' <<<"$help" || fail "ibqueryerrors --help does not name --json-schema"
  grep -q 'nodesChecked' <<<"$help" && fail "ibqueryerrors --help still spells its schema out"
  ;;
*)
  fail "unknown test $TEST"
  ;;
esac
echo "ok $TEST"
