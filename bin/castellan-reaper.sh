#!/bin/sh
# castellan's crash reaper: one beside each server; when the server dies without ending its panes (kill -9, a crash), it ends them.
#
# Plain POSIX sh on purpose: it sleeps in `read` for the server's whole life, so it must cost next to nothing
# (about 1.7 MB RSS, where a second Node process cost 43 MB). It reads "+PID" / "-PID" lines (pane programs
# started and ended; each leads its own session; "=PID TOKEN" a leader's session token) from a pipe only the server holds. End of file means the
# server is gone, however it went. Then every process in those sessions gets HUP, TERM and KILL,
# under two seconds in all, and the reaper exits. Only builtins run in the loop (read, case, kill), so the
# only child it ever starts is `sleep` between the steps.
#
# castellan-reaper.sh [--proc DIR] [--list]: how processes are listed is the server's platform room's choice
# (src/platform/proc reaperArgs): with --proc, the kernel's process directory (Linux), read with builtins only; without
# it, `ps` (options both procps and macOS's ps know), where what belongs to a pane is its session, its process group
# and every descendant of its program; without ps, the leaders' process groups. POSIX sh and awk, nothing GNU.

# Its own session already (spawned detached); a stray hangup or interrupt must not stop the watch.
trap '' HUP INT

proc= list=
while [ $# -gt 0 ]; do
  case $1 in
    --proc) proc=${2-}; [ $# -lt 2 ] || shift ;;
    --list) list=1 ;;
  esac
  shift
done
mode=groups
if [ -n "$proc" ] && [ -r "$proc/self/stat" ]; then mode=proc
elif command -v ps >/dev/null 2>&1 && command -v awk >/dev/null 2>&1; then mode=ps
fi

leaders=' ' tokens=' '
while IFS= read -r line; do
  # Only what the server writes: a sign, then 2 to 10 digits without a leading zero. 0, 1, negative numbers,
  # process groups and anything else never get near kill. "=PID TOKEN": the session token ps prints for a leader's
  # session (macOS: a session pointer, 0x and hex; the server reads it while the pane's shell leads its session), so a
  # job of that session is found after its shell has died; kept only for a leader it already knows.
  tok=
  case $line in
    [+-]*) n=${line#?} ;;
    =*)
      n=${line#=} tok=${line#* }
      n=${n%% *}
      case $tok in
        0x*) case ${tok#0x} in '' | *[!0-9a-f]*) continue ;; esac ;;
        '' | *[!0-9]* | 0*) continue ;;
      esac
      [ ${#tok} -le 18 ] && [ "$tok" != "$n" ] || continue ;;
    *) continue ;;
  esac
  case $n in '' | *[!0-9]* | 0*) continue ;; esac
  [ ${#n} -le 10 ] && [ "$n" -gt 1 ] || continue
  case $line in
    +*) case $leaders in *" $n "*) ;; *) leaders="$leaders$n " ;; esac ;;
    -*)
      case $leaders in *" $n "*) leaders="${leaders%%" $n "*} ${leaders#*" $n "}" ;; esac
      left=' '
      for w in $tokens; do case $w in "$n="*) ;; *) left="$left$w " ;; esac; done
      tokens=$left ;;
    =*) case $leaders in *" $n "*) case $tokens in *" $n=$tok "*) ;; *) tokens="$tokens$n=$tok " ;; esac ;; esac ;;
  esac
done
# `--list` (for tests): say which sessions would be ended (and the tokens known for them), and touch nothing.
if [ -n "$list" ]; then
  printf '%s\n' "$leaders"
  [ "$tokens" = ' ' ] || printf 'tokens:%s\n' "$tokens"
  exit 0
fi
[ "$leaders" = ' ' ] && exit 0

# The live (not zombie) processes of the leaders' panes.
# proc: the session is the 4th field of each stat file after the command name, which is in parentheses and may hold
# anything, so the split starts after its last ") ".
# ps: a process belongs when its session is a leader's (`sess`: procps prints the id, macOS a session pointer, known
# only from a leader still alive), its group is a leader's, or a leader (one that leads its own group) is among its
# ancestors.
members() {
  case $mode in
    proc)
      for d in "$proc"/[0-9]*; do
        { IFS= read -r st < "$d/stat"; } 2>/dev/null || continue
        set -f
        # shellcheck disable=SC2086 # the split into fields is the point
        set -- ${st##*") "}
        set +f
        [ "$1" = Z ] && continue
        case $leaders in *" $4 "*) printf '%s ' "${d##*/}" ;; esac
      done ;;
    ps)
      LC_ALL=C ps -A -o pid= -o ppid= -o pgid= -o sess= -o stat= 2>/dev/null | awk -v L="$leaders" -v T="$tokens" -v self=$$ '
        BEGIN { n = split(L, a, " "); for (i = 1; i <= n; i++) lead[a[i]] = 1 }
        $1 ~ /^[0-9]+$/ { k++; pid[k] = $1; pp[$1] = $2; pg[$1] = $3; ss[$1] = $4; st[$1] = substr($5, 1, 1) }
        END {
          # The leaders sessions: procps prints the session id (a leaders pid), macOS a session pointer, read from a
          # leader still leading its group. Never the reapers own session, nor the token of no session.
          for (q in lead) { ses[q] = 1; if ((q in pg) && pg[q] == q && st[q] != "Z") ses[ss[q]] = 1 }
          # And the tokens the server read while each leader led (its shell may be gone now).
          m = split(T, b, " "); for (i = 1; i <= m; i++) { split(b[i], kv, "="); if (kv[1] in lead) ses[kv[2]] = 1 }
          delete ses[ss[self]]; delete ses[""]; delete ses["0"]; delete ses["-"]; delete ses["?"]
          for (i = 1; i <= k; i++) {
            p = pid[i]
            if (st[p] == "Z" || p == self) continue
            ok = (pg[p] in lead) || (ss[p] in ses)
            q = p
            for (d = 0; !ok && d <= 64 && q > 1; d++) {
              if ((q in lead) && pg[q] == q) ok = 1
              else if (q in pp) q = pp[q]
              else break
            }
            if (ok) printf "%s ", p
          }
        }' ;;
  esac
}

# Has not exited: a zombie has (it only waits for its new parent, init, to reap it).
running() {
  if [ "$mode" = proc ]; then
    { IFS= read -r st < "$proc/$1/stat"; } 2>/dev/null || return 1
    set -f
    # shellcheck disable=SC2086
    set -- ${st##*") "}
    set +f
    [ "$1" != Z ]
  else
    kill -s 0 -- "$1" 2>/dev/null
  fi
}

# One step: signal everything left, then wait up to $2 ticks of 100 ms for it to be gone. A scan of the process
# directory costs dash tens of milliseconds (its `read` takes a byte per syscall), and a ps a process start, so between
# ticks only the processes just signalled are checked; the next step's scan finds anything started meanwhile. Without a
# way to list processes, the leaders' process groups are what can be reached.
step() {
  if [ "$mode" != groups ]; then
    left=$(members)
    [ -n "$left" ] || exit 0
  else
    left=
    for p in $leaders; do left="$left -$p"; done
  fi
  # shellcheck disable=SC2086 # one pid per word
  kill -s "$1" -- $left 2>/dev/null
  i=0
  while [ "$i" -lt "$2" ]; do
    sleep 0.1 2>/dev/null || sleep 1
    i=$((i + 1))
    some=
    for p in $left; do running "$p" && some=1 && break; done
    [ -n "$some" ] || return 0
  done
}

# The kernel has already hung the terminals up when the server died; this is for what ignored that.
step HUP 2
step TERM 7
step KILL 3
# A process forked between a scan and its kill escaped it; with its parent dead no more are forked, so a
# second and third look catch the last of them.
step KILL 2
step KILL 2
# Whatever is left now is unkillable (stuck in the kernel): exit 1 says so.
[ "$mode" != groups ] && [ -n "$(members)" ] && exit 1
exit 0
