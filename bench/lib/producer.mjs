// A steady flood for a pane: writes FILE to stdout at RATE bytes/s for MS milliseconds (looping the file), then
// writes {bytes, ms} to STATS. Writes to a tty are synchronous, so a reader that falls behind slows it down, which
// the stats then show. usage: node producer.mjs FILE RATE MS STATS
import { readFileSync, writeFileSync, writeSync } from 'node:fs';

const [file, rate, ms, stats] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), process.argv[5]];
const data = readFileSync(file);
let off = 0;
let sent = 0;
const t0 = performance.now();
const tick = () => {
  const el = performance.now() - t0;
  if (el >= ms) {
    writeFileSync(stats, JSON.stringify({ bytes: sent, ms: performance.now() - t0 }));
    process.exit(0);
  }
  let want = Math.floor((rate * el) / 1000) - sent;
  while (want > 0) {
    let n = Math.min(want, data.length - off, 65536);
    try {
      n = writeSync(1, data, off, n);
    } catch (e) {
      if (e.code === 'EAGAIN') break; // a non-blocking tty that is full: try again next tick
      throw e;
    }
    off = (off + n) % data.length;
    sent += n;
    want -= n;
  }
  setTimeout(tick, 5);
};
tick();
