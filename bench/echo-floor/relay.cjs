// One Node process that owns its terminal, as tmux's server does: raw stdin -> a child pty running cat, its echo ->
// stdout, either as is ('raw') or parsed by @xterm/headless and sent as a frame of the cursor's row ('xterm').
const { createRequire } = require('node:module');
const req = createRequire(process.argv[3] + '/package.json');
const pty = req('@lydell/node-pty');
const mode = process.argv[2];
process.stdin.setRawMode(true);
const p = pty.spawn('cat', [], { cols: 80, rows: 24, env: process.env });
let term;
if (mode === 'xterm') {
  const { Terminal } = req('@xterm/headless');
  term = new Terminal({ cols: 80, rows: 24, allowProposedApi: true, scrollback: 10000 });
}
process.stdin.on('data', (d) => { if (d[0] === 3) { p.kill(); process.exit(0); } p.write(d); });
p.onData((d) => {
  if (!term) { process.stdout.write(d); return; }
  // Parse at once, as castellan's Screen does after user input (src/server/screen.ts parseNextAtOnce).
  term._core._writeBuffer.handleUserInput();
  term.write(d, () => {
    const b = term.buffer.active, y = b.cursorY;
    process.stdout.write(`\x1b[${y + 1};1H${b.getLine(b.viewportY + y).translateToString(true)}`);
  });
});
process.stdout.write('READY\r\n');
