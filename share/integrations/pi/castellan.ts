/**
 * castellan-integration: pi extension that reports pi's agent state to castellan (the badge on the pane pi runs in).
 *
 * Installed by `castellan integrations install pi` into ~/.pi/agent/extensions/ (or <project>/.pi/extensions/);
 * `castellan integrations uninstall pi` removes it. pi has no hook files: this extension is the hook system. Each event
 * listed in EVENTS goes, with a small JSON payload, to the server's `hook.event` method over one connection to
 * $CASTELLAN_SOCKET kept open for pi's life: the server maps it to a state (src/integrations/pi.ts), governs tool
 * calls and records tool results. When that cannot be done there (no server, an older one without the method, no answer
 * in time, or a reply saying `bridge`), the event runs `castellan hook pi <event>` as a process instead, as it always
 * did. Events go one at a time, in order, and never block pi's UI, except tool_call, which waits for castellan's
 * governance answer ({block, reason} on a deny). Outside a castellan pane (CASTELLAN_ENV unset) it registers nothing.
 */
import { spawn } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Written by `castellan integrations install pi`: the argv that runs castellan's CLI. null: find it next to this file.
const INSTALLED_COMMAND: string[] | null = null; // @castellan-command
// The pi events castellan maps (the rows of src/integrations/pi.ts with install: true).
const EVENTS: string[] = ["session_start", "session_shutdown", "agent_start", "turn_start", "tool_call", "tool_result", "agent_end"]; // @castellan-events

/** The bridge's own deadlines (src/integrations/bridge.ts, server-decide.ts): a slower server gets the spawned bridge. */
const CONNECT_MS = 300;
const REPLY_MS = 800;
const GATE_REPLY_MS = 1000;
/** After a server left a call unanswered, events take the spawned bridge for this long before the socket is tried again. */
const SICK_MS = 5000;
/** Equal to the server's HOOK_EVENT_PAYLOAD_MAX (src/api/methods/hook-event.ts; a test holds it): a bigger one goes to the bridge. */
const PAYLOAD_MAX = 1024 * 1024;
/** No castellan reply is anywhere near this long; a longer line is not castellan talking. */
const REPLY_MAX = 1024 * 1024;
/** The variables the spawned bridge reads that the server needs to do its work (governance paths, agent and goal ids). */
const ENV_KEYS = ["HOME", "XDG_STATE_HOME", "CASTELLAN_SESSION", "CASTELLAN_AGENT_ID", "CASTELLAN_GOAL_ID"];

interface PiLike {
	on(event: string, handler: (event: unknown, ctx: unknown) => unknown): void;
}

type Payload = Record<string, unknown>;
interface EventReply {
	action?: string;
	reported?: boolean;
	gate?: string;
	answer?: { block?: boolean; reason?: string };
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

/** The text of the last assistant message (what an agent's PostSampling hooks read), at most 200,000 characters. */
function lastAssistantText(messages: unknown[]): string | undefined {
	for (let i = messages.length - 1; i >= 0; i--) {
		const m = messages[i] as { role?: unknown; content?: unknown } | undefined;
		if (!m || typeof m !== "object" || m.role !== "assistant") continue;
		let text = "";
		if (typeof m.content === "string") text = m.content;
		else if (Array.isArray(m.content)) for (const c of m.content) if (c && typeof (c as { text?: unknown }).text === "string") text += (c as { text: string }).text;
		return text.slice(0, 200_000);
	}
	return undefined;
}

/** The most arguments sent (the snapshot's own bound): pi's command line, which its process title no longer shows. */
const ARGS_MAX = 64;
const ARG_MAX = 4096;

interface SessionLike {
	sessionManager?: { getSessionId?(): unknown; getSessionFile?(): unknown };
}

/**
 * What restore needs to bring this pi back (castellan's src/integrations/pi.ts `tools`): its conversation id, once pi has
 * written the session file (`pi --session ID` finds nothing before the first answer), and its own arguments, since pi
 * sets `process.title = "pi"` and its flags are gone from the process list.
 */
function restoreFields(ctx: unknown): Payload {
	const out: Payload = {};
	const args = process.argv.slice(2);
	if (args.length <= ARGS_MAX && args.every((a) => a.length <= ARG_MAX)) out.pi_args = args;
	try {
		const sm = (ctx as SessionLike | undefined)?.sessionManager;
		const id = sm?.getSessionId?.();
		const file = sm?.getSessionFile?.();
		if (typeof id === "string" && id && typeof file === "string" && existsSync(file)) out.session_id = id;
	} catch {
		/* an older pi without a session manager on ctx */
	}
	return out;
}

/** Only what castellan needs: top-level scalars (trimmed) and a tool call's input; never pi's whole message history. */
function payloadOf(name: string, event: unknown): Payload {
	const out: Payload = { hook_event_name: name };
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
			// An agent castellan started has PostSampling hooks that read the answer; other panes do not send it.
			if (process.env.CASTELLAN_AGENT_ID) {
				const text = lastAssistantText(messages);
				if (text !== undefined) out.last_assistant_message = text;
			}
		}
	}
	return out;
}

/** One kept-open connection to castellan's socket: newline JSON requests, replies matched by id. Never throws. */
class Link {
	private sock?: Socket;
	private ready?: Promise<boolean>;
	private buf = "";
	private nextId = 0;
	private readonly pending = new Map<string, (reply: { result?: unknown; error?: { code?: string } } | undefined) => void>();
	/** The server on this connection has no hook.event (an older castellan). */
	private noMethod = false;
	private sickUntil = 0;

	constructor(private readonly path: string) {}

	private drop(): void {
		const s = this.sock;
		this.sock = undefined;
		this.ready = undefined;
		this.buf = "";
		this.noMethod = false;
		for (const done of this.pending.values()) done(undefined);
		this.pending.clear();
		try {
			s?.destroy();
		} catch {
			/* gone already */
		}
	}

	private open(): Promise<boolean> {
		if (this.ready) return this.ready;
		this.ready = new Promise<boolean>((resolve) => {
			let s: Socket;
			try {
				s = connect(this.path);
			} catch {
				resolve(false);
				return;
			}
			this.sock = s;
			// An idle connection never keeps pi alive (it is ref'd only while a request waits for its reply, below).
			s.unref();
			const timer = setTimeout(() => {
				this.drop();
				resolve(false);
			}, CONNECT_MS);
			s.setEncoding("utf8");
			s.once("connect", () => {
				clearTimeout(timer);
				resolve(true);
			});
			s.on("data", (chunk: string) => this.onData(chunk));
			s.on("error", () => {
				/* surfaced through close */
			});
			s.on("close", () => {
				clearTimeout(timer);
				resolve(false);
				if (this.sock === s) this.drop();
			});
		});
		return this.ready;
	}

	private onData(chunk: string): void {
		this.buf += chunk;
		let i: number;
		while ((i = this.buf.indexOf("\n")) !== -1) {
			const line = this.buf.slice(0, i);
			this.buf = this.buf.slice(i + 1);
			try {
				const msg = JSON.parse(line) as { id?: unknown; result?: unknown; error?: { code?: string } };
				const done = this.pending.get(String(msg.id));
				if (done) {
					this.pending.delete(String(msg.id));
					done(msg);
				}
			} catch {
				/* not a reply of ours */
			}
		}
		if (this.buf.length > REPLY_MAX) this.drop();
	}

	/** hook.event's result, or undefined when the spawned bridge must do it (no server, no method, no answer in time, an error). */
	async event(params: Payload, replyMs: number): Promise<EventReply | undefined> {
		try {
			if (Date.now() < this.sickUntil || !(await this.open()) || this.noMethod || !this.sock) return undefined;
			const id = `pi${++this.nextId}`;
			const line = JSON.stringify({ id, method: "hook.event", params }) + "\n";
			if (line.length > PAYLOAD_MAX + 64 * 1024) return undefined;
			const sock = this.sock;
			const reply = await new Promise<{ result?: unknown; error?: { code?: string } } | undefined>((resolve) => {
				// The reply deadline is ref'd: without it a pi with nothing else to do (print mode) would exit mid-call.
				const timer = setTimeout(() => {
					this.pending.delete(id);
					// A server that leaves a call unanswered is not asked again for a while: each event would wait for it.
					this.sickUntil = Date.now() + SICK_MS;
					this.drop();
					resolve(undefined);
				}, replyMs);
				this.pending.set(id, (r) => {
					clearTimeout(timer);
					resolve(r);
				});
				sock.ref();
				sock.write(line);
			});
			if (!this.pending.size) this.sock?.unref();
			if (reply?.error?.code === "unknown_method") this.noMethod = true;
			const r = reply?.result as EventReply | undefined;
			return r && typeof r === "object" && typeof r.action === "string" ? r : undefined;
		} catch {
			return undefined;
		}
	}
}

export default function castellan(pi: PiLike) {
	if (!process.env.CASTELLAN_ENV) return;
	const argv = castellanArgv();
	if (!argv) return;
	// Node reads NODE_EXTRA_CA_CERTS before any JavaScript runs (~70 ms a call where it is set); the hook talks only to
	// castellan's Unix socket, so it starts without it and hands the value on to what it runs (src/integrations/ca-certs.ts).
	const hookEnv = { ...process.env, CASTELLAN_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? "", NODE_EXTRA_CA_CERTS: "" };
	const socket = process.env.CASTELLAN_SOCKET;
	const link = socket ? new Link(socket) : undefined;
	const env: Record<string, string> = {};
	for (const k of ENV_KEYS) {
		const v = process.env[k];
		if (v && v.length <= 4096) env[k] = v;
	}
	let lastSeq = 0;
	/** Microseconds since the epoch, strictly increasing: the server drops a report older than the last it took. */
	const seqNow = () => (lastSeq = Math.max(Math.round((performance.timeOrigin + performance.now()) * 1000), lastSeq + 1));

	/** Runs `castellan hook pi NAME`; resolves with what it printed and how it exited. */
	const spawnBridge = (name: string, json: string) =>
		new Promise<{ out: string; ok: boolean }>((resolve) => {
			let out = "";
			try {
				const p = spawn(argv[0], [...argv.slice(1), "hook", "pi", name], { stdio: ["pipe", "pipe", "ignore"], env: hookEnv });
				p.stdout.on("data", (d: Buffer) => (out += d.toString()));
				p.on("error", () => resolve({ out, ok: false }));
				p.on("close", (code) => resolve({ out, ok: code === 0 }));
				p.stdin.on("error", () => {});
				p.stdin.end(json);
			} catch {
				resolve({ out, ok: false });
			}
		});

	let queue: Promise<unknown> = Promise.resolve();
	/** Bridges that only record (a tool result): one at a time, beside the queue. */
	let side: Promise<unknown> = Promise.resolve();
	/** Hands one event to castellan after the ones before it: the socket first, else the spawned bridge. */
	const send = (name: string, event: unknown, ctx?: unknown): Promise<{ direct?: EventReply; out: string; ok: boolean }> => {
		let payload: Payload;
		try {
			payload = { ...payloadOf(name, event), ...restoreFields(ctx) };
		} catch {
			payload = { hook_event_name: name };
		}
		const run = queue.then(async () => {
			// Taken when the event's turn comes, not when pi fired it: a bridge spawned for the event before took its own
			// seq when it started, and this report must not read as older than that one.
			const seq = seqNow();
			const paneId = process.env.CASTELLAN_PANE_ID;
			const gate = name === "tool_call";
			const direct = link && paneId
				? await link.event(
						{ pane_id: paneId, agent: "pi", event: name, payload, seq, pid: process.pid, cwd: process.cwd(), env, ...(gate ? { deadline: Date.now() + GATE_REPLY_MS - 100 } : {}) },
						gate ? GATE_REPLY_MS : REPLY_MS,
					)
				: undefined;
			if (direct && direct.action !== "bridge" && (!gate || direct.gate === "allow" || direct.gate === "block")) return { direct, out: "", ok: true };
			// The server took the state report and leaves governance to the bridge: the bridge is told not to report again.
			const reported = direct?.action === "bridge" && direct.reported === true;
			const json = JSON.stringify(reported ? { ...payload, castellan_reported: true } : payload) + "\n";
			if (reported && !gate) {
				// A tool result's record (audit, PostToolUse hooks) answers nothing: the events after it do not wait for it.
				side = side.then(() => spawnBridge(name, json)).catch(() => undefined);
				return { direct, out: "", ok: true };
			}
			return spawnBridge(name, json);
		});
		queue = run.catch(() => undefined);
		return run.catch(() => ({ out: "", ok: false }));
	};

	for (const name of EVENTS) {
		try {
			pi.on(name, async (event: unknown, ctx: unknown) => {
				try {
					if (name === "tool_call") {
						// castellan's governance decides before the tool runs: a deny comes back as {block, reason}.
						// castellan answering nothing and exiting 0 is its "allow"; anything else (a crash, no castellan) fails closed.
						const { direct, out, ok } = await send(name, event, ctx);
						if (direct) return direct.gate === "allow" ? undefined : { block: true, reason: direct.answer?.reason ?? "blocked by castellan" };
						try {
							const a = JSON.parse(out.trim() || "{}") as { block?: boolean; reason?: string };
							if (a.block) return { block: true, reason: a.reason ?? "blocked by castellan" };
						} catch {
							return { block: true, reason: "castellan's governance answer could not be read; tool blocked" };
						}
						return ok ? undefined : { block: true, reason: "castellan's governance did not answer; tool blocked" };
					}
					void send(name, event, ctx);
					// pi exits right after session_shutdown: let the queued reports finish first (at most 3 s).
					if (name === "session_shutdown") {
						let timer: ReturnType<typeof setTimeout> | undefined;
						await Promise.race([queue.then(() => side), new Promise((r) => (timer = setTimeout(r, 3000)))]);
						clearTimeout(timer);
					}
					return undefined;
				} catch {
					return name === "tool_call" ? { block: true, reason: "castellan's extension failed; tool blocked" } : undefined;
				}
			});
		} catch {
			/* an event this pi version does not know */
		}
	}
}
