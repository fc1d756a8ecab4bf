/**
 * src/push/ — `punchline push`: rows of a file written through the API's write endpoints,
 * then synced back.
 *
 * One push against a running sync runtime, as the command and the tests drive it:
 * check the warehouse and the connection (the group walk names the token's company),
 * run the engine with the connection's budget-limited client, and queue the sync of
 * what was created.
 */
import { checkConnection, checkWarehouse } from '../runtime/preflight.js';
import type { SyncRuntime } from '../runtime/runtime.js';
import type { EnqueueResult } from '../runtime/enqueue.js';
import { todayIn } from '../util/time.js';
import { companyTimezone } from '../config.js';
import type { PushOptions } from './args.js';
import { runPush, type PushDeps, type PushResult } from './engine.js';
import { WRITE_KINDS } from './kinds/index.js';
import type { LocalRow } from './prepare.js';
import { checkReceiptsTable } from './receipts.js';
import { queueSyncAfterPush, type PushTarget } from './sync-after.js';

/** What a push did. */
export interface PushRun {
  /** Where the writes acted. */
  readonly target: PushTarget;
  /** Outcome per row. */
  readonly result: PushResult;
  /** Sync jobs queued after an `--apply` that created something. */
  readonly queued?: EnqueueResult;
}

/** Hooks of {@link pushRows}. */
export type PushHooks = Partial<Pick<PushDeps, 'signal' | 'onProgress' | 'onWritten' | 'today'>>;

/** Pushes `rows` (from prepareRows) with `options`; see the file comment. */
export async function pushRows(
  rt: SyncRuntime,
  options: Pick<PushOptions, 'kind' | 'file' | 'apply' | 'connection'>,
  rows: readonly LocalRow[],
  hooks: PushHooks = {},
): Promise<PushRun> {
  const { pool: db, schema } = rt.warehouse;
  await checkWarehouse(db, schema);
  await checkReceiptsTable(db, schema);
  const { connection } = options;
  const client = rt.client(connection.name);
  const walk = await checkConnection(client);
  const target: PushTarget = { connection: connection.name, company: walk.own.national_registry, scoped: walk.scoped };
  const result = await runPush(
    {
      api: client.api,
      db,
      schema,
      company: target.company,
      connection: connection.name,
      today: hooks.today ?? todayIn(companyTimezone(connection, target.company)),
      ...(hooks.signal ? { signal: hooks.signal } : {}),
      ...(hooks.onProgress ? { onProgress: hooks.onProgress } : {}),
      ...(hooks.onWritten ? { onWritten: hooks.onWritten } : {}),
    },
    WRITE_KINDS[options.kind],
    rows,
    { file: options.file, apply: options.apply, concurrency: connection.rateLimit.concurrency },
  );
  if (!result.applied || result.touched.length === 0) return { target, result };
  return { target, result, queued: await queueSyncAfterPush(rt.queues, target, result.touched) };
}
