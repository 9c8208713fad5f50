#!/usr/bin/env node
// Hook logger for scripts/badge-record.ts: appends {ms, event, payload fields castellan's tables read} as one JSON line.
//   badge-hook-log.mjs FILE EVENT   (payload JSON on stdin; the fields kept are those src/integrations cases test)
import { appendFileSync } from 'node:fs';
const ms = Date.now();
const [file, event] = process.argv.slice(2);
let raw = '';
process.stdin.setEncoding('utf8').on('data', (d) => { if (raw.length < 1_000_000) raw += d; }).on('end', () => {
  let p = {};
  try { p = JSON.parse(raw); } catch { /* not JSON: keep the event alone */ }
  const keep = {};
  for (const k of ['notification_type', 'is_interrupt', 'reason', 'source', 'type']) if (typeof p[k] === 'string' || typeof p[k] === 'boolean') keep[k] = p[k];
  appendFileSync(file, JSON.stringify({ ms, event, payload: keep }) + '\n');
});
