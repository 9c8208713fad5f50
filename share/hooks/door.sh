#!/bin/sh
# door.sh SECONDS NODE BIN hook AGENT EVENT: one foreground hook call (a tool event, the turn's end) handed to the
# pane's castellan server through its hook door, without a Node start (src/hookdoor/, docs/integrations.md "The hook
# door"). Whatever the door cannot serve runs `NODE BIN hook AGENT EVENT`, the plain bridge, on the payload as read.
# SECONDS: how long the payload may take to arrive (the bridge's own read deadline for this event).
# Installed by src/integrations/command-line.ts doorCommand. POSIX sh (dash, macOS /bin/sh) plus head -c, mkfifo, sleep
# and wc: no timeout(1), which macOS lacks.
#
# Every step that waits on something outside (the payload, the request line into a FIFO the server may not drain, its
# reply) has a deadline, and this shell only ever blocks in `wait` or `read`, which a trapped signal interrupts: a
# builtin's blocked write() is retried on EINTR, so a `printf` into a full FIFO of a stopped server ignored SIGTERM and
# outlived the agent's hook timeout, which agents take as a go-ahead (issue 28). A missed deadline hands the call to the
# bridge, which has deadlines of its own and denies a tool call it cannot judge in time.
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

# The step running in the background (j) and the watchdog guarding it (w): late is set when its deadline passed.
j= w= late=
# A watchdog: SECONDS later it sends this shell ALRM, which interrupts its `wait` (a background subshell's $$ is this
# shell's pid), and with `fifo` also writes a line no reply starts with into the reply FIFO (fd 3): a shell whose `read`
# a trapped signal does not interrupt (bash 3.2, macOS /bin/sh, retries it) still gets a line, then runs the trap. Its
# stdio is /dev/null: a sleep it leaves must never hold the agent's pipes open.
watch() {
  late=
  # Disarmed by USR2, which this shell never traps: one that comes before the trap is set ends the subshell (the
  # default action) before its sleep starts; a signal the parent traps, that early, would run the parent's trap in the
  # child and be lost, and the watchdog would fire after all. (Between `&` and `k=$!` the sleep is left to run out.)
  ( k=
    trap '[ -z "$k" ] || kill "$k" 2>/dev/null; exit 0' USR2
    sleep "$1" &
    k=$!
    wait "$k" || exit 0
    kill -s ALRM $$
    [ -z "${2:-}" ] || printf '\nlate\n' >&3
  ) </dev/null >/dev/null 2>&1 &
  w=$!
}
# Disarms the watchdog. Not waited for on the way to this shell's own exit (each wait for another process to be
# scheduled cost the agent's call time under load); `unwatch` before becoming the bridge, which dies of a late ALRM
# (its default action): a hook that dies answers nothing, which agents take as an allow.
disarm() {
  [ -z "$w" ] || kill -s USR2 "$w" 2>/dev/null
}
unwatch() {
  [ -n "$w" ] || return 0
  disarm
  # One more wait when an ALRM interrupted the first.
  wait "$w" 2>/dev/null || wait "$w" 2>/dev/null
  w=
}
# Ends the step still running (its write or read is what is stuck) and the watchdog. A step never waited for (the
# request line's) is a zombie once done: its pid is not reused while this shell lives, so killing it is safe.
stop() {
  [ -z "$j" ] || { kill -s KILL "$j" 2>/dev/null; wait "$j" 2>/dev/null; j=; }
  unwatch
}
quit() {
  stop
  rm -f "$r" "$p" "$o"
  exit "$1"
}
# A signal between starting a process and noting its pid (`cmd &` then `x=$!`: a trap runs between the two) is kept
# for just after, so the trap never misses a process to end: one left would outlive this shell.
launching= pending=
on_signal() {
  if [ -n "$launching" ]; then pending=$1; else quit "$1"; fi
}
launched() {
  launching=
  [ -z "$pending" ] || quit "$pending"
}
trap 'late=1' ALRM
trap 'on_signal 129' HUP
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
# The bridge on the payload read (byte for byte): it answers as it always does, and denies what it cannot judge.
# (`command exec` in a group: a redirection that fails must not end the shell, and its message goes, not the stderr the
# bridge answers on, as a plain `command exec ... 2>/dev/null` did; without the payload the bridge reads nothing and denies.)
bridge() {
  stop
  { command exec 0<"$p"; } 2>/dev/null || exec 0</dev/null
  rm -f "$r" "$p" "$o"
  exec "$@"
}

# The payload, capped one byte past the bridge's 8 MiB so the bridge still sees "too big". An asynchronous list's stdin
# is /dev/null unless redirected, so head reads the hook's stdin through fd 4.
{ command exec 4<&0; } 2>/dev/null || exec "$@"
launching=1
watch "$s"
head -c 8388609 <&4 >"$p" 2>/dev/null &
j=$!
launched
wait "$j"
st=$?
exec 4<&-
if [ -n "$late" ]; then
  # Not closed in time: the bridge says so (and denies a tool call) as if it had waited itself.
  stop
  n=$(wc -c <"$p")
  rm -f "$r" "$p" "$o"
  CASTELLAN_HOOK_UNCLOSED=${n##* } exec "$@" </dev/null
fi
j=
[ "$st" -eq 0 ] || { rm -f "$r" "$p" "$o"; unwatch; exec "$@"; }
disarm
w=
# The reply FIFO, open read-write (never blocks), and the watchdog for the request line and its reply: within 3 s of
# here. The server decides within 1.5 s of the request or not at all, so a reply this gives up on is never one the
# bridge then decides again. Both made before the request file: the server counts its deadlines from that file's mtime,
# and these forks and execs were time it lost under load.
mkfifo "$o" 2>/dev/null || bridge "$@"
{ command exec 3<>"$o"; } 2>/dev/null || bridge "$@"
launching=1
watch 3 fifo
launched
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

# The request line (< PIPE_BUF: written whole) into `in`, opened read-write (a door whose server is gone cannot block
# the open), from a background process: a stopped server leaves its FIFO full, and only a process can be killed out of
# that write. A subshell, its redirections its own: a builtin's redirected in place would keep copies of this shell's
# stdout and stderr (the agent's pipes) open in the blocked process, and the agent would wait on them. Not waited for:
# the reply comes once the line is in, and a write that blocks or fails ends in the watchdog's line.
launching=1
( printf 'v1 %s %s %s\n' "$$" "$4" "$5" ) 1<>"$d/in" 2>/dev/null &
j=$!
launched
# `read` on the FIFO this shell holds open never sees an end of file: only the reply or the watchdog's line ends it.
# Each line is checked before the next is read: after the watchdog's line no other comes, and a read past it would wait
# for ever. Its ALRM came first, so `late` also catches a reply cut off mid-line that the watchdog's line completed.
IFS= read -r code <&3 || bridge "$@"
case $code in '' | *[!0-9]*) bridge "$@" ;; esac
IFS= read -r out <&3 || bridge "$@"
case $out in o*) ;; *) bridge "$@" ;; esac
IFS= read -r err <&3 || bridge "$@"
case $err in e*) ;; *) bridge "$@" ;; esac
[ -z "$late" ] || bridge "$@"
disarm
exec 3<&-
out=${out#o}
err=${err#e}
[ -z "$out" ] || printf '%s\n' "$out"
[ -z "$err" ] || printf '%s\n' "$err" >&2
exit "$code"
