// Test data: ANSI-coloured text (SGR 16/256/truecolour, bold/italic/underline, some wrapping lines), made once into bench/data/.
import { closeSync, existsSync, mkdirSync, openSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { log, prng } from './util.js';

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna ' +
  'aliqua const function return import export async await error warning info debug 0x1f3a 12345 /usr/lib/node_modules ' +
  'path.join() {"key": [1,2,3]} — ümlaut café 日本語 ✓ ✗ →'
).split(' ');

/** Path of an ANSI text file of about `bytes` bytes, generated (deterministically) if missing. */
export function ansiFile(dataDir: string, bytes: number): string {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, `ansi-${Math.round(bytes / 1024 / 1024)}m.txt`);
  if (existsSync(path) && statSync(path).size >= bytes) return path;
  log(`generating ${path} ...`);
  const rnd = prng(0x12345678);
  const pick = (n: number) => Math.floor(rnd() * n);
  const sgr = (): string => {
    const r = rnd();
    if (r < 0.25) return `\x1b[${31 + pick(7)}m`;
    if (r < 0.35) return `\x1b[1;${31 + pick(7)}m`;
    if (r < 0.45) return `\x1b[38;5;${pick(256)}m`;
    if (r < 0.52) return `\x1b[38;2;${pick(256)};${pick(256)};${pick(256)}m`;
    if (r < 0.58) return `\x1b[4${pick(8)}m`;
    if (r < 0.6) return `\x1b[48;5;${pick(256)}m`;
    if (r < 0.63) return '\x1b[3m';
    if (r < 0.66) return '\x1b[4m';
    return '\x1b[0m';
  };
  const fd = openSync(path + '.part', 'w');
  let written = 0;
  let parts: string[] = [];
  let pending = 0;
  const flush = () => {
    const b = Buffer.from(parts.join(''));
    writeSync(fd, b);
    written += b.length;
    parts = [];
    pending = 0;
  };
  while (written + pending < bytes) {
    // Mostly 20..160 visible columns; 5 % longer than 200 (they wrap in a 200-column pane).
    const len = rnd() < 0.05 ? 200 + pick(200) : 20 + pick(140);
    const plain = rnd() < 0.35;
    let line = '';
    let vis = 0;
    while (vis < len) {
      if (!plain && rnd() < 0.3) line += sgr();
      const w = WORDS[pick(WORDS.length)];
      line += w + ' ';
      vis += w.length + 1;
    }
    if (!plain) line += '\x1b[0m';
    line += '\n';
    parts.push(line);
    pending += line.length;
    if (pending > 1 << 20) flush();
  }
  flush();
  closeSync(fd);
  // Renamed only when complete, so an interrupted run never leaves a short file behind.
  renameSync(path + '.part', path);
  return path;
}
