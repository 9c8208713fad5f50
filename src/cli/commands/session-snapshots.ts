// `castellan session snapshots`: the sessions a start would restore, and the snapshots kept aside after a refusal.
import { ASIDE_KEEP_MS, listSnapshots } from '../../restore/index.js';
import { table } from '../cli-util.js';
import { defineCommand, EXIT } from '../define-command.js';

export default defineCommand({
  name: 'session snapshots',
  usage: 'castellan session snapshots [--json]',
  summary: 'List the saved session snapshots (restored at the next start), the ones killed or replaced (kept a day: session restore) and the ones kept aside as unreadable.',
  options: { json: { type: 'boolean' } },
  run: async (ctx, { values }) => {
    const rows = listSnapshots(ctx.paths);
    if (values.json) {
      ctx.out(JSON.stringify(rows.map((r) => ({ ...r, saved_at: r.savedAt ? new Date(r.savedAt).toISOString() : null }))));
      return EXIT.ok;
    }
    if (!rows.length) {
      ctx.out('castellan: no snapshots');
      return EXIT.ok;
    }
    // Killed and replaced ones come back with `castellan session restore NAME` within a day of being set aside.
    const status = (r: (typeof rows)[number]) =>
      r.status === 'bad' ? 'kept aside' : r.status !== 'ok' ? `${r.status} (session restore ${r.session}; kept until ${when((r.asideAt ?? 0) + ASIDE_KEEP_MS)})` : r.problem ? `unreadable: ${r.problem}` : 'ok';
    const when = (t?: number) => (t ? new Date(t).toISOString().replace('T', ' ').slice(0, 19) : '-');
    ctx.out(
      table([
        ['SESSION', 'STATUS', 'SAVED', 'WINDOWS', 'PANES', 'BYTES', 'FILE'],
        ...rows.map((r) => [r.session, status(r), when(r.savedAt), String(r.windows ?? '-'), String(r.panes ?? '-'), String(r.bytes), r.file]),
      ]),
    );
    return EXIT.ok;
  },
});
