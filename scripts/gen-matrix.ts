// Writes the harness parity matrix into README.md between its markers (from the bridges' tables; a test keeps it current).
import { readFileSync, writeFileSync } from 'node:fs';
import { withMatrix } from '../src/integrations/matrix-readme.js';

const file = new URL('../README.md', import.meta.url);
const before = readFileSync(file, 'utf8');
const after = withMatrix(before);
if (after !== before) writeFileSync(file, after);
console.log(after === before ? 'README.md matrix is current' : 'wrote the harness matrix into README.md');
