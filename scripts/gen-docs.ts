// Writes docs/api.md from the socket method table and docs/keys.md from the key and tmux command tables.
import { writeFileSync } from 'node:fs';
import { apiMarkdown } from '../src/api/docs.js';
import { keysMarkdown } from './keys-doc.js';

writeFileSync(new URL('../docs/api.md', import.meta.url), apiMarkdown() + '\n');
console.log('wrote docs/api.md');
writeFileSync(new URL('../docs/keys.md', import.meta.url), keysMarkdown());
console.log('wrote docs/keys.md');
