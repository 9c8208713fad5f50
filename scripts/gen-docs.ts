// Writes docs/api.md from the socket method table.
import { writeFileSync } from 'node:fs';
import { apiMarkdown } from '../src/api/docs.js';

writeFileSync(new URL('../docs/api.md', import.meta.url), apiMarkdown() + '\n');
console.log('wrote docs/api.md');
