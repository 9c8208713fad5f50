#!/bin/sh
# agent-state.sh PANE AGENT STATE [MESSAGE]: report an agent's state to castellan, for agents without a hook system.
#
#   PANE     pane id (w1:p2), or "." for the pane this runs in ($CASTELLAN_PANE_ID)
#   AGENT    agent name (letters, digits, . _ -), e.g. aider
#   STATE    idle | working | blocked | done | unknown
#   MESSAGE  optional text for the badge
#
# Sends pane.report_agent (source "hook" unless CASTELLAN_REPORT_SOURCE says cli/api) with a microsecond seq where
# perl can tell the time that finely. POSIX sh and stock macOS tools only (nothing GNU).
# Transport: `nc -U` on the socket when nc can do Unix sockets, else this checkout's
# bin/castellan.js (`api call`), else `castellan` on PATH. With PANE "." outside a castellan pane it does nothing.
# Exit: 0 sent (or nothing to do), 1 not delivered, 2 usage.
set -u

usage() { echo "usage: agent-state.sh PANE AGENT STATE [MESSAGE]   (STATE: idle|working|blocked|done|unknown)" >&2; exit 2; }
[ $# -ge 3 ] && [ $# -le 4 ] || usage

pane=$1 agent=$2 state=$3 message=${4-}
if [ "$pane" = "." ] || [ "$pane" = "self" ]; then
  [ -n "${CASTELLAN_ENV-}" ] && [ -n "${CASTELLAN_PANE_ID-}" ] || exit 0   # not in a castellan pane: nothing to report
  pane=$CASTELLAN_PANE_ID
fi
expr "x$pane" : 'xw[0-9][0-9]*:p[0-9][0-9]*$' >/dev/null || { echo "agent-state.sh: bad pane id '$pane' (like w1:p2)" >&2; exit 2; }
case $state in idle|working|blocked|done|unknown) ;; *) usage;; esac
case $agent in ''|*[!A-Za-z0-9._-]*) echo "agent-state.sh: bad agent name '$agent' (letters, digits, . _ -)" >&2; exit 2;; esac
source=${CASTELLAN_REPORT_SOURCE:-hook}
case $source in hook|cli|api) ;; *) echo "agent-state.sh: CASTELLAN_REPORT_SOURCE must be hook, cli or api" >&2; exit 2;; esac

# JSON string body: control characters dropped, then \ " tab CR LF escaped one character at a time (no gsub:
# awks disagree on backslashes in replacements), at most 2000 bytes.
json_escape() {
  printf '%s' "$1" | tr -d '\000-\010\013\014\016-\037\177' |
    awk 'BEGIN { RS = "\001" } { s = s $0 } END {
      n = length(s); if (n > 2000) n = 2000; o = ""
      for (i = 1; i <= n; i++) {
        c = substr(s, i, 1)
        if (c == "\\") o = o "\\\\"; else if (c == "\"") o = o "\\\""; else if (c == "\t") o = o "\\t"
        else if (c == "\r") o = o "\\r"; else if (c == "\n") o = o "\\n"; else o = o c
      }
      printf "%s", o }'
}

# seq: microseconds since the epoch, from perl's gettimeofday (POSIX sh has no clock finer than a second, and GNU
# date's %N is not on a Mac; perl is, and on Debian in perl-base); without perl, none (the report is then not ordered).
seq=
if command -v perl >/dev/null 2>&1; then
  now=$(perl -MTime::HiRes=gettimeofday -e 'my @t = gettimeofday(); printf "%d%06d", @t' 2>/dev/null)
  case $now in *[!0-9]*|'') ;; *) [ ${#now} -eq 16 ] && seq=$now;; esac
fi

json="{\"pane_id\":\"$pane\",\"agent\":\"$(json_escape "$agent")\",\"state\":\"$state\",\"source\":\"$source\""
[ -n "$message" ] && json="$json,\"message\":\"$(json_escape "$message")\""
[ -n "$seq" ] && json="$json,\"seq\":$seq"
json="$json}"

sock=${CASTELLAN_SOCKET:-}
if [ -z "$sock" ]; then
  session=${CASTELLAN_SESSION:-default}
  if [ "$session" = default ]; then sock=$HOME/.config/castellan/castellan.sock; else sock=$HOME/.config/castellan/$session.sock; fi
fi

# 1. nc with Unix-socket support: one request line, read the reply, done.
if command -v nc >/dev/null 2>&1 && [ -S "$sock" ] && nc -h 2>&1 | grep -q -- '-U'; then
  reply=$(printf '{"id":1,"method":"pane.report_agent","params":%s}\n' "$json" | nc -U -w 1 "$sock" 2>/dev/null | head -n 1)
  case $reply in
    *'"result"'*) exit 0;;
    *'"error"'*) echo "agent-state.sh: $reply" >&2; exit 1;;
  esac
fi

# 2. castellan's own CLI: this checkout's bin first (share/hooks/ -> ../../bin), then castellan on PATH.
here=$(cd "$(dirname "$0")" 2>/dev/null && pwd)
bin=${here:+$here/../../bin/castellan.js}
if [ -n "$bin" ] && [ -f "$bin" ] && command -v node >/dev/null 2>&1; then
  node "$bin" api call pane.report_agent "$json" --timeout-ms 2000 >/dev/null && exit 0
  exit 1
fi
if command -v castellan >/dev/null 2>&1; then
  castellan api call pane.report_agent "$json" --timeout-ms 2000 >/dev/null && exit 0
  exit 1
fi
echo "agent-state.sh: no way to reach castellan (no nc with -U, no node + castellan)" >&2
exit 1
