/**
 * `punchline migrate` (docs/operations.md "Migrations"): applies the pending `sql/` migrations to
 * WAREHOUSE_SCHEMA of DATABASE_URL, regenerates the analyst views, and says what it did; `--status`
 * only lists the applied and pending migrations.
 */
import { EXIT, type CommandContext } from './context.js';
import { migrate, migrationStatus } from '../migrations/migrate.js';
import { versionSkew, type MigrationStatus } from '../migrations/status.js';
import { renderTable } from '../reports/status-format.js';

/** Options of `punchline migrate`: `status` lists the applied and pending migrations instead of applying; `json` as JSON. */
export type MigrateArgs = { status?: boolean; json?: boolean };

/** The `--status --json` document (pure): the listing, and whether this punchline can work on the schema. */
export function migrationStatusJson(s: MigrationStatus): string {
  const skew = versionSkew(s);
  const upToDate = skew === null;
  return `${JSON.stringify({ ...s, upToDate, problem: skew?.message ?? null }, null, 2)}\n`;
}

/** The `--status` listing (pure). */
export function formatMigrationStatus(s: MigrationStatus): string {
  const rows = [
    ...s.applied.map((a) => [
      a.known
        ? a.changed
          ? 'applied (file changed since)'
          : 'applied'
        : 'applied (unknown to this punchline)',
      a.name,
      a.appliedAt.slice(0, 19),
    ]),
    ...s.pending.map((p) => ['pending', p.name, '']),
  ];
  const skew = versionSkew(s);
  const lines = [
    `schema ${s.schema}: ${s.applied.length} applied, ${s.pending.length} pending`,
    ...(rows.length > 0 ? [renderTable(['state', 'migration', 'applied at'], rows)] : []),
    skew === null ? 'up to date' : skew.message,
  ];
  return `${lines.join('\n')}\n`;
}

/** Runs the migrations (or lists them with `--status`); exit code 0 when it could. */
export async function migrateCommand(ctx: CommandContext, opts: MigrateArgs = {}): Promise<number> {
  const schema = ctx.config.warehouseSchema;
  if (opts.status) {
    const status = await migrationStatus(ctx.config.databaseUrl, schema);
    ctx.out.write(opts.json ? migrationStatusJson(status) : formatMigrationStatus(status));
    return EXIT.ok;
  }
  const result = await migrate(ctx.config.databaseUrl, schema, ctx.logger);
  if (result.applied.length === 0) {
    ctx.out.write(`schema ${schema} is up to date (${result.alreadyApplied} migrations applied)\n`);
  } else {
    ctx.out.write(
      `schema ${schema}: applied ${result.applied.length} migration${result.applied.length === 1 ? '' : 's'} (${result.applied.join(', ')})\n`,
    );
  }
  if (result.privacy) {
    ctx.out.write(
      `schema ${result.privacy.analystSchema}: ${result.privacy.views} analyst views up to date\n`,
    );
  }
  return EXIT.ok;
}
