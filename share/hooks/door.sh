#!/bin/sh
# door.sh SECONDS NODE BIN hook AGENT EVENT: one foreground hook call (a tool event, the turn's end) handed to the
# pane's castellan server through its hook door, without a Node start (src/hookdoor/, docs/integrations.md "The hook
# door"). Whatever the door cannot serve runs `NODE BIN hook AGENT EVENT`, the plain bridge, on the payload as read.
# SECONDS: how long the payload may take to arrive (the bridge's own read deadline for this event).
# Installed by src/integrations/command-line.ts doorCommand. POSIX sh plus coreutils (timeout, head, mkfifo).
s=$1
shift
d=${CASTELLAN_SOCKET:-}.door
# The bridge as the plain line runs it: no socket named, an agent castellan started (its own hooks may answer), a
# terminal on stdin, test read deadlines, or no door (an older server, none, a door whose server is gone, a request
# FIFO that is not the server's: `-p` follows a symlink, and one to a FIFO nobody serves cost each call 3 s).
if [ -z "${CASTELLAN_SOCKET:-}" ] || [ -n "${CASTELLAN_AGENT_ID:-}" ] || [ -n "${CASTELLAN_HOOK_READ_MS:-}" ] || [ $# -ne 5 ] || [ -t 0 ] || ! [ -p "$d/in" ] || [ -h "$d/in" ]; then exec "$@"; fi
spid=
{ IFS= read -r spid < "$d/pid"; } 2>/dev/null
case $spid in '' | *[!0-9]*) exec "$@" ;; esac
kill -0 "$spid" 2>/dev/null || exec "$@"

umask 077
r=$d/$$.req p=$d/$$.pay o=$d/$$.out
# Left by an earlier process of this pid (no rm exec on the usual path: the server removes a served request's files).
if [ -e "$r" ] || [ -h "$r" ] || [ -e "$p" ] || [ -h "$p" ] || [ -e "$o" ] || [ -h "$o" ]; then rm -f "$r" "$p" "$o"; fi
trap 'rm -f "$r" "$p" "$o"; exit 129' HUP
trap 'rm -f "$r" "$p" "$o"; exit 130' INT
trap 'rm -f "$r" "$p" "$o"; exit 143' TERM
# The bridge on the payload read (byte for byte): it answers as it always does, and denies what it cannot judge.
# (`command exec`: a redirection that fails must not end the shell; without the payload the bridge reads nothing and denies.)
bridge() {
  command exec 0<"$p" 2>/dev/null || command exec 0</dev/null
  rm -f "$r" "$p" "$o"
  exec "$@"
}

# The payload, capped one byte past the bridge's 8 MiB so the bridge still sees "too big".
timeout "$s" head -c 8388609 >"$p" 2>/dev/null
st=$?
if [ "$st" -eq 124 ]; then
  # Not closed in time: the bridge says so (and denies a tool call) as if it had waited itself.
  n=$(wc -c <"$p")
  rm -f "$r" "$p" "$o"
  CASTELLAN_HOOK_UNCLOSED=${n##* } exec "$@" </dev/null
fi
[ "$st" -eq 0 ] || { rm -f "$r" "$p" "$o"; exec "$@"; }

# The variables the bridge's run reads (src/hookdoor/vars.ts DOOR_VARS, in that order), NUL-terminated, set ones only.
{
  [ -z "${HOME+x}" ] || printf 'HOME=%s\0' "$HOME"
  [ -z "${XDG_STATE_HOME+x}" ] || printf 'XDG_STATE_HOME=%s\0' "$XDG_STATE_HOME"
  [ -z "${CASTELLAN_SOCKET+x}" ] || printf 'CASTELLAN_SOCKET=%s\0' "$CASTELLAN_SOCKET"
  [ -z "${CASTELLAN_SESSION+x}" ] || printf 'CASTELLAN_SESSION=%s\0' "$CASTELLAN_SESSION"
  [ -z "${CASTELLAN_ENV+x}" ] || printf 'CASTELLAN_ENV=%s\0' "$CASTELLAN_ENV"
  [ -z "${CASTELLAN_PANE_ID+x}" ] || printf 'CASTELLAN_PANE_ID=%s\0' "$CASTELLAN_PANE_ID"
  [ -z "${CASTELLAN_AGENT_ID+x}" ] || printf 'CASTELLAN_AGENT_ID=%s\0' "$CASTELLAN_AGENT_ID"
  [ -z "${CASTELLAN_GOAL_ID+x}" ] || printf 'CASTELLAN_GOAL_ID=%s\0' "$CASTELLAN_GOAL_ID"
  [ -z "${CASTELLAN_HOOK_DEBUG+x}" ] || printf 'CASTELLAN_HOOK_DEBUG=%s\0' "$CASTELLAN_HOOK_DEBUG"
  [ -z "${CASTELLAN_CA_CERTS+x}" ] || printf 'CASTELLAN_CA_CERTS=%s\0' "$CASTELLAN_CA_CERTS"
  [ -z "${NODE_EXTRA_CA_CERTS+x}" ] || printf 'NODE_EXTRA_CA_CERTS=%s\0' "$NODE_EXTRA_CA_CERTS"
  # The physical directory, as the bridge's process.cwd() has it.
  if cd -P . 2>/dev/null; then printf 'PWD=%s\0' "$PWD"; fi
} >"$r" || bridge "$@"

# The reply FIFO, open read-write (never blocks), then one request line (< PIPE_BUF: written whole), also read-write
# (a door whose server is gone cannot block the open).
mkfifo "$o" 2>/dev/null || bridge "$@"
command exec 3<>"$o" 2>/dev/null || bridge "$@"
printf 'v1 %s %s %s\n' "$$" "$4" "$5" 1<>"$d/in" 2>/dev/null || bridge "$@"
# Three lines: the exit code (or "fallback"), "o" + stdout, "e" + stderr. The server decides within 1.5 s of the
# request or not at all, so a reply this waits 3 s for is never one the bridge then decides again.
rep=$(timeout 3 head -n 3 <&3) || bridge "$@"
exec 3<&-
nl='
'
case $rep in
  [0-9]*"$nl"o*"$nl"e*) ;;
  *) bridge "$@" ;;
esac
code=${rep%%"$nl"*}
rest=${rep#*"$nl"}
out=${rest%%"$nl"*}
err=${rest#*"$nl"}
out=${out#o}
err=${err#e}
case $code in *[!0-9]*) bridge "$@" ;; esac
[ -z "$out" ] || printf '%s\n' "$out"
[ -z "$err" ] || printf '%s\n' "$err" >&2
exit "$code"
