/**
 * src/push/ — `punchline push`: rows of a file written through the API, then synced back. One push
 * against a running sync runtime: check the warehouse and the connection (the group walk names the
 * token's company), run the engine with the connection's client, queue the sync of what was created.
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
  readonly target: PushTarget;
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
  const target: PushTarget = {
    connection: connection.name,
    company: walk.own.national_registry,
    scoped: walk.scoped,
  };
  const { company } = target;
  const today = hooks.today ?? todayIn(companyTimezone(connection, company));
  const deps = { ...hooks, api: client.api, db, schema, company, connection: connection.name, today };
  const run = { file: options.file, apply: options.apply, concurrency: connection.rateLimit.concurrency };
  const result = await runPush(deps, WRITE_KINDS[options.kind], rows, run);
  if (!result.applied || result.touched.length === 0) return { target, result };
  return { target, result, queued: await queueSyncAfterPush(rt.queues, target, result.touched) };
}
