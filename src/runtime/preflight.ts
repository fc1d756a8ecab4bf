/**
 * Checks made before a command queues anything, so bad input fails fast with one clear
 * line and nothing partial is loaded: the warehouse is migrated, and each connection's
 * API answers and accepts its token (one cheap call: the group walk).
 */
import { isApiError } from '../api/errors.js';
import { assertMigrationsCurrent } from '../migrations/status.js';
import type { ConnectionClient } from '../connections/api-clients.js';
import { ConnectionAuthError, PermanentSyncError } from '../load/errors.js';
import { walkGroup, type GroupWalk } from '../plan/group-walk.js';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { WarehouseError, WarehouseNotMigratedError } from '../warehouse/errors.js';

/** Fails with a clear message when the warehouse is unreachable, not migrated, or migrated to another version than this code's. */
export async function checkWarehouse(db: SqlRunner, schema: string): Promise<void> {
  try {
    await warehouseDb(db, schema).selectFrom('sync_windows').select('run_id').limit(1).execute();
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code === '42P01' || e.code === '3F000') throw new WarehouseNotMigratedError(schema, { cause: err });
    throw new WarehouseError(
      'warehouse_unreachable',
      `cannot reach the warehouse: ${e.message} (check DATABASE_URL)`,
      { cause: err },
    );
  }
  await assertMigrationsCurrent(db, schema);
}

/**
 * Walks the connection's group, turning transport and token failures into one-line errors;
 * 3 attempts of 10 s at most ride out one transient failure and still fail fast.
 */
export async function checkConnection(c: Pick<ConnectionClient, 'connection' | 'api'>): Promise<GroupWalk> {
  const { name, baseUrl } = c.connection;
  try {
    return await walkGroup(c.api, { maxAttempts: 3, timeoutMs: 10_000 });
  } catch (err) {
    if (isApiError(err, 'invalid_service_token')) throw new ConnectionAuthError(name, err);
    if (isApiError(err, 'network', 'timeout')) {
      const cause = (err.cause as Error | undefined)?.message;
      throw new PermanentSyncError(
        'api_unreachable',
        `cannot reach the API of connection "${name}" at ${baseUrl}: ${cause ?? err.message} (check SERVICE_API_BASE_URL)`,
        { cause: err },
      );
    }
    if (isApiError(err)) {
      // A transient failure that outlasted the attempts (5xx, 429...) says "try later"; the rest is the API's verdict.
      const code = err.retryable ? 'api_unavailable' : err.code;
      throw new PermanentSyncError(
        code,
        `connection "${name}": the API failed the group walk: ${err.message}`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}
