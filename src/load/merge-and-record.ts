/**
 * The end of a load, in its transaction: each staged table merged into its warehouse table
 * (reconciliation under the mass-removal guard, then the upsert), then what the load owes
 * besides its rows — rejected records, the window's counts, what the marts must take in
 * (pending_changes: the marts themselves are rewritten after the commit, src/marts/), privacy
 * and values cleaned of a NUL character. Schema drift is written after the transaction
 * (drift-log.ts).
 */
import { PunchlineError } from '../util/errors.js';
import type pg from 'pg';
import { recordPendingChange } from '../marts/pending.js';
import { DIRECTORY } from '../resources/index.js';
import { upholdPrivacy } from '../privacy/erasures.js';
import { recordRejected } from '../telemetry/metrics.js';
import { mergeStaged, MassRemovalError, type RemovalGuard, type TableStats } from '../warehouse/merge.js';
import type { Staging } from '../warehouse/staging.js';
import type { LoadScope } from '../warehouse/table-spec.js';
import type { EngineContext, CompanyLoad, LoadResult } from './context.js';
import type { ElementWriter } from './element-writer.js';
import { recordDrift, recordRejections, recordWindowLoad } from './load-records.js';
import { mergeSeen, type SeenCollaborators } from './seen-collaborators.js';
import { publishLoadSpan } from './timing.js';

/** Every table of a load whose removal the guard refused (each left untouched). */
export class MassRemovals extends PunchlineError<'mass_removal'> {
  override readonly name = 'MassRemovals';
  constructor(readonly refused: readonly MassRemovalError[]) {
    super('mass_removal', refused.map((r) => r.message).join('; '));
  }
}

/**
 * Merges the staged tables and records everything the load owes besides its rows, in its
 * transaction; `items` are those answered.
 */
export async function mergeAndRecord(
  ctx: EngineContext,
  req: CompanyLoad,
  client: pg.PoolClient,
  staging: Staging,
  writer: ElementWriter,
  items: number[] | undefined,
  guard: RemovalGuard,
  seenPeople: SeenCollaborators | undefined,
): Promise<LoadResult> {
  const { declaration } = req;
  const specs = Object.values(declaration.tables);
  const scope: LoadScope & { company: string } = {
    company: req.company,
    ...(req.window ?? {}),
    ...(items ? { items } : {}),
    protect: writer.protection(),
  };
  const tables: Record<string, TableStats> = {};
  const refused: MassRemovalError[] = [];
  for (const spec of specs) {
    try {
      tables[spec.table] = await publishLoadSpan(
        `merge:${spec.table}`,
        mergeStaged(client, ctx.schema, staging.table(spec.table), scope, guard),
      );
    } catch (err) {
      // Look at every table before deciding, so a second answer can be judged for all.
      if (!(err instanceof MassRemovalError)) throw err;
      refused.push(err);
    }
  }
  if (refused.length > 0) throw new MassRemovals(refused);
  const seen = seenPeople ? await mergeSeen(client, ctx.schema, staging, seenPeople, scope) : undefined;
  if (seen) tables[DIRECTORY.seen.table] = seen;
  if (declaration.afterMerge) Object.assign(tables, await declaration.afterMerge(client, ctx.schema, scope));
  const key = {
    connection: req.connection,
    resource: req.name,
    company: req.company,
    ...(req.window ?? {}),
    ...(req.runId === undefined ? {} : { runId: req.runId }),
  };
  await recordRejections(client, ctx.schema, key, writer.rejections);
  const loaded = Object.fromEntries(specs.map((spec) => [spec.table, tables[spec.table]!]));
  if (req.window)
    await recordWindowLoad(
      client,
      ctx.schema,
      { ...key, from: req.window.from, to: req.window.to },
      loaded,
      writer.rejections.length,
    );
  // What the marts must take in (its window is recorded: it is covered now); its follow-up rewrites them.
  await recordPendingChange(
    client,
    ctx.schema,
    {
      connection: req.connection,
      company: req.company,
      resource: req.name,
      window: req.window,
      tables: loaded,
      seen,
      rebuild: req.force === true,
      ...(req.runId === undefined ? {} : { runId: req.runId }),
    },
    declaration.marts,
  );
  // Privacy, in the same transaction and after everything this load wrote (rejected
  // records included; the marts' follow-up upholds it again after them): people erased in this company stay erased, and new
  // CPFs get their pseudonym (docs/privacy.md).
  const privacy = await upholdPrivacy(client, ctx.schema, req.company, ctx.pseudonymKey);
  // Said once per runtime (docs/privacy.md "Rotating the key").
  if (privacy.staleKey && ctx.memory.firstTime('stale-pseudonym-key')) {
    ctx.logger.warn(
      'PSEUDONYM_KEY is older than a key already used on this warehouse: this worker writes no pseudonyms (restart it with the new key)',
    );
  }
  // Text the warehouse cannot store (a NUL character) was stored without it: say where, as
  // drift of kind `cleaned_value`, field `table.column`.
  const cleaned = staging.tables().flatMap((t) => t.cleaned().map((c) => ({ table: t.spec.table, ...c })));
  if (cleaned.length > 0) {
    ctx.logger.warn(
      { cleaned },
      'values stored without a NUL character Postgres cannot store (see schema_drift)',
    );
    const drift = cleaned.map((c) => ({ kind: 'cleaned_value', field: `${c.table}.${c.column}` }));
    await recordDrift(client, ctx.schema, drift);
  }
  for (const r of writer.rejections) recordRejected({ resource: req.name, endpoint: r.endpoint, count: 1 });
  return { tables, rejected: writer.rejections.length, ...(items ? { items: items.length } : {}) };
}
