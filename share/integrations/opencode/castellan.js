/**
 * castellan-integration: opencode / Kilo CLI plugin that reports the agent's state to castellan (the badge on its pane)
 * and puts castellan's governance in front of every tool call.
 *
 * Installed by `castellan integrations install opencode` (or `kilo`) into ~/.config/opencode/plugins/ (~/.config/kilo/plugins/),
 * or <project>/.opencode/plugins/ (.kilo/plugins/); `castellan integrations uninstall` removes it. opencode has no hook
 * files: its plugins get every bus event and typed hooks. Each event in EVENTS runs `castellan hook <agent> <event>`
 * with `{"hook_event_name": <event>, ...fields}` as JSON on stdin (src/integrations/opencode.ts maps them). State
 * events go one at a time, in order, and never make opencode wait. `tool.execute.before` waits for castellan's answer:
 * `{"decision": "deny", "reason"}` (or a bridge that cannot answer: not started, crashed, past its time) makes this
 * plugin throw, which stops the tool call and shows the reason as the tool's error. Outside a castellan pane
 * (CASTELLAN_ENV unset) it registers nothing.
 */
import { spawn } from "node:child_process";

// Written by `castellan integrations install`: which agent this copy speaks for, and the argv that runs castellan's CLI.
const AGENT = "opencode"; // @castellan-agent
const INSTALLED_COMMAND = null; // @castellan-command
// The events castellan maps (the rows of src/integrations/opencode.ts with install: true).
const EVENTS = ["chat.message", "session.status", "session.idle", "permission.asked", "permission.replied", "tool.execute.before", "tool.execute.after"]; // @castellan-events

const GATE = "tool.execute.before";
/** Longer than castellan's longest decision (a question in its UI waits 60 s); past it the call is denied. */
const GATE_MS = 120_000;
/** A state event's bridge that takes longer is let go (its report is late or lost, never opencode's time). */
const STATE_MS = 10_000;
/** No castellan answer is anywhere near this long. */
const OUT_MAX = 1024 * 1024;

/** Only what castellan reads: scalars, and the objects that carry the tool call, the status or the permission. */
function payloadOf(name, fields) {
  const out = { hook_event_name: name };
  if (!fields || typeof fields !== "object") return out;
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === "string") out[k] = v.length > 400 && k !== "tool" ? v.slice(0, 400) : v;
    else if (typeof v === "number" || typeof v === "boolean") out[k] = v;
    else if (v && typeof v === "object" && ["args", "status", "metadata", "error"].includes(k)) {
      try {
        // A tool call's args go whole (castellan caps and denies what is too big): a call judged without them would
        // be judged on a command or a file castellan cannot see.
        const s = JSON.stringify(v);
        if (k === "args" || s.length <= 4000) out[k] = JSON.parse(s);
      } catch {
        /* not serialisable: left out */
      }
    }
  }
  return out;
}

export const CastellanPlugin = async () => {
  if (!process.env.CASTELLAN_ENV || !Array.isArray(INSTALLED_COMMAND) || !INSTALLED_COMMAND.length) return {};
  const argv = INSTALLED_COMMAND;
  // NODE_EXTRA_CA_CERTS costs every node start ~70 ms; the bridge puts it back for what it runs (src/integrations/ca-certs.ts).
  const env = { ...process.env, CASTELLAN_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "", NODE_EXTRA_CA_CERTS: "" };

  /** Runs `castellan hook AGENT NAME`; resolves with its exit code and stdout (code null: it could not run or was stopped). */
  const bridge = (name, json, ms) =>
    new Promise((resolve) => {
      let out = "";
      let done = false;
      const finish = (code) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ code, out });
      };
      let p;
      const timer = setTimeout(() => {
        try {
          p?.kill("SIGKILL");
        } catch {
          /* gone */
        }
        finish(null);
      }, ms);
      try {
        p = spawn(argv[0], [...argv.slice(1), "hook", AGENT, name], { stdio: ["pipe", "pipe", "ignore"], env });
        p.stdout.on("data", (d) => {
          out += d.toString();
          if (out.length > OUT_MAX) out = out.slice(0, OUT_MAX);
        });
        p.on("error", () => finish(null));
        p.on("close", (code) => finish(code));
        p.stdin.on("error", () => {});
        p.stdin.end(json);
      } catch {
        finish(null);
      }
    });

  let queue = Promise.resolve();
  /** A state event: after the ones before it, never waited for. */
  const report = (name, fields) => {
    if (!EVENTS.includes(name)) return;
    let json;
    try {
      json = JSON.stringify(payloadOf(name, fields)) + "\n";
    } catch {
      return;
    }
    queue = queue.then(() => bridge(name, json, STATE_MS)).catch(() => undefined);
  };

  const hooks = {
    event: async ({ event }) => {
      if (event && typeof event.type === "string") report(event.type, event.properties);
    },
    "chat.message": async (input) => report("chat.message", input),
    "tool.execute.after": async (input) => report("tool.execute.after", input),
  };
  if (EVENTS.includes(GATE)) {
    hooks[GATE] = async (input, output) => {
      const json = JSON.stringify(payloadOf(GATE, { ...input, args: output?.args })) + "\n";
      const r = await bridge(GATE, json, GATE_MS);
      // castellan printing nothing and exiting 0 is its "allow"; anything else that is not its answer fails closed.
      if (r.code === 0 && !r.out.trim()) return;
      let reason = `castellan could not judge this ${input?.tool ?? "tool"} call (its hook ${r.code === null ? "did not finish" : `exited ${r.code}`}); denied`;
      try {
        const a = JSON.parse(r.out.trim());
        if (a && a.decision === "deny" && typeof a.reason === "string") reason = a.reason;
      } catch {
        /* not castellan's answer: denied with the reason above */
      }
      throw new Error(reason);
    };
  }
  return hooks;
};
