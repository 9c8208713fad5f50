/**
 * castellan-integration: pi extension that reports pi's agent state to castellan (the badge on the pane pi runs in).
 *
 * Installed by `castellan integrations install pi` into ~/.pi/agent/extensions/ (or <project>/.pi/extensions/);
 * `castellan integrations uninstall pi` removes it. pi has no hook files: this extension is the hook system. For each
 * event listed in EVENTS it runs `castellan hook pi <event>` with a small JSON payload on stdin; the mapping from
 * events to states lives in castellan (src/integrations/pi.ts), not here. Calls are queued (one at a time, in order)
 * and never block pi's UI, except tool_call, which waits for castellan's governance answer ({block, reason} on a deny).
 * Outside a castellan pane (CASTELLAN_ENV unset) it registers nothing at all.
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Written by `castellan integrations install pi`: the argv that runs castellan's CLI. null: find it next to this file.
const INSTALLED_COMMAND: string[] | null = null; // @castellan-command
// The pi events castellan maps (the rows of src/integrations/pi.ts with install: true).
const EVENTS: string[] = ["session_start", "session_shutdown", "agent_start", "turn_start", "tool_call", "tool_result", "agent_end"]; // @castellan-events

interface PiLike {
	on(event: string, handler: (event: unknown, ctx: unknown) => unknown): void;
}

function castellanArgv(): string[] | null {
	if (INSTALLED_COMMAND && INSTALLED_COMMAND.length) return INSTALLED_COMMAND;
	try {
		// share/integrations/pi/castellan.ts -> <checkout>/bin/castellan.js (works when this file is a symlink too)
		const here = realpathSync(fileURLToPath(import.meta.url));
		return [process.execPath, join(dirname(here), "..", "..", "..", "bin", "castellan.js")];
	} catch {
		return null;
	}
}

/** Only what the mapping needs: top-level scalars (trimmed) and a tool call's input; never pi's whole message history. */
function payloadOf(name: string, event: unknown): string {
	const out: Record<string, unknown> = { hook_event_name: name };
	if (event && typeof event === "object") {
		for (const [k, v] of Object.entries(event as Record<string, unknown>)) {
			if (typeof v === "string") out[k] = v.length > 400 ? v.slice(0, 400) : v;
			else if (typeof v === "number" || typeof v === "boolean") out[k] = v;
			else if ((k === "input" || k === "args") && v && typeof v === "object") {
				try {
					// A tool call's input goes whole (castellan caps and denies what is too big): governing a call whose
					// input was left out would judge a command or a file it cannot see.
					const s = JSON.stringify(v);
					if (name === "tool_call" || s.length <= 2000) out[k] = JSON.parse(s);
				} catch {
					/* not serialisable: leave it out */
				}
			}
		}
		const messages = (event as { messages?: unknown }).messages;
		if (Array.isArray(messages) && messages.length) {
			const last = messages[messages.length - 1] as { stopReason?: unknown } | undefined;
			if (last && typeof last.stopReason === "string") out.stop_reason = last.stopReason;
		}
	}
	return JSON.stringify(out) + "\n";
}

export default function castellan(pi: PiLike) {
	if (!process.env.CASTELLAN_ENV) return;
	const argv = castellanArgv();
	if (!argv) return;
	// Node reads NODE_EXTRA_CA_CERTS before any JavaScript runs (~70 ms a call where it is set); the hook talks only to
	// castellan's Unix socket, so it starts without it and hands the value on to what it runs (src/integrations/ca-certs.ts).
	const hookEnv = { ...process.env, CASTELLAN_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "", NODE_EXTRA_CA_CERTS: "" };
	let queue: Promise<void> = Promise.resolve();
	/** Runs `castellan hook pi NAME` after the calls queued before it; resolves with what it printed and how it exited. */
	const send = (name: string, event: unknown): Promise<{ out: string; ok: boolean }> => {
		const json = payloadOf(name, event);
		let out = "";
		let ok = false;
		const run = queue.then(
			() =>
				new Promise<void>((resolve) => {
					try {
						const p = spawn(argv[0], [...argv.slice(1), "hook", "pi", name], { stdio: ["pipe", "pipe", "ignore"], env: hookEnv });
						p.stdout.on("data", (d: Buffer) => (out += d.toString()));
						p.on("error", () => resolve());
						p.on("close", (code) => {
							ok = code === 0;
							resolve();
						});
						p.stdin.on("error", () => {});
						p.stdin.end(json);
					} catch {
						resolve();
					}
				}),
		);
		queue = run;
		return run.then(() => ({ out, ok }));
	};
	for (const name of EVENTS) {
		try {
			pi.on(name, async (event: unknown) => {
				if (name === "tool_call") {
					// castellan's governance decides before the tool runs: a deny comes back as {block, reason}.
					// castellan answering nothing and exiting 0 is its "allow"; anything else (a crash, no castellan) fails closed.
					const { out, ok } = await send(name, event);
					try {
						const a = JSON.parse(out.trim() || "{}") as { block?: boolean; reason?: string };
						if (a.block) return { block: true, reason: a.reason ?? "blocked by castellan" };
					} catch {
						return { block: true, reason: "castellan's governance answer could not be read; tool blocked" };
					}
					return ok ? undefined : { block: true, reason: "castellan's governance did not answer; tool blocked" };
				}
				void send(name, event);
				// pi exits right after session_shutdown: let the queued reports finish first (at most 3 s).
				if (name === "session_shutdown") await Promise.race([queue, new Promise((r) => setTimeout(r, 3000))]);
				return undefined;
			});
		} catch {
			/* an event this pi version does not know */
		}
	}
}
