/**
 * The claims of `punchline push --apply` against a real warehouse: two runs never both
 * get a row to write; a run waits while another live run writes it and then sees it
 * created; a claim left by a run that is gone, or by a write without a conclusive
 * answer, is taken over with a request to read the API first; a receipt older than the
 * run's check (the entity was removed from the API since) is written again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { ClaimRun, databaseNow, type ClaimScope } from '../src/push/claims.js';
import { migrate } from '../src/migrations/migrate.js';
import { createWarehouse, type Warehouse } from '../src/warehouse/db.js';
import { TEST_DATABASE_URL, connectPostgres, dropSchema, uniqueName } from './support/isolation.js';

const schema = uniqueName('push_claims');
let admin: pg.Pool;
let w: Warehouse;
let scope: ClaimScope;
let key = 0;
/** A fresh row key for each test. */
const nextKey = () => `52998224725|2026-10-0${++key} 08:00:00`;

async function receipt(rowKey: string): Promise<Record<string, unknown> | undefined> {
  const r = await admin.query(
    `select state, claim_run::text as claim_run, created_id, source_line from "${schema}".push_receipts where row_key = $1`,
    [rowKey],
  );
  return r.rows[0];
}

/** Runs `body` with two open claim runs (the second reading `other.csv`), a fresh key and a check time, then closes both. */
async function withTwoRuns(
  body: (a: ClaimRun, b: ClaimRun, key: string, checkedAt: string) => Promise<void>,
): Promise<void> {
  const a = await ClaimRun.open(w.pool, scope);
  const b = await ClaimRun.open(w.pool, { ...scope, file: 'other.csv' });
  try {
    await body(a, b, nextKey(), await databaseNow(w.pool));
  } finally {
    await a.close();
    await b.close();
  }
}

beforeAll(async () => {
  admin = await connectPostgres();
  await migrate(TEST_DATABASE_URL, schema);
  w = createWarehouse(TEST_DATABASE_URL, schema, { max: 6 });
  scope = { schema, company: '11222333000181', kind: 'punches', connection: 'default', file: 'rows.csv' };
});

afterAll(async () => {
  await w?.close();
  if (admin) {
    await dropSchema(admin, schema);
    await admin.end();
  }
});

describe('a row claimed by a live run', () => {
  it('is written by that run only: the other waits, then finds it created', () =>
    withTwoRuns(async (a, b, k, checkedAt) => {
      expect(await a.claim(k, 2, { checkedAt })).toEqual({ kind: 'mine', recheck: false });
      let settled = false;
      const waiting = b.claim(k, 5, { checkedAt, pollMs: 20 }).finally(() => (settled = true));
      await new Promise((r) => setTimeout(r, 200));
      expect(settled).toBe(false);
      await a.created(k, 2, '901');
      expect(await waiting).toEqual({ kind: 'created', id: '901', file: 'rows.csv', line: 2 });
      expect(await receipt(k)).toEqual({
        state: 'created',
        claim_run: null,
        created_id: '901',
        source_line: 2,
      });
    }));

  it('goes to the other run, without a read of the API, when its write certainly did not happen', () =>
    withTwoRuns(async (a, b, k, checkedAt) => {
      await a.claim(k, 2, { checkedAt });
      const waiting = b.claim(k, 2, { checkedAt, pollMs: 20 });
      await a.release(k);
      expect(await waiting).toEqual({ kind: 'mine', recheck: false });
    }));

  it('stops the wait when the waiting run is stopped', () =>
    withTwoRuns(async (a, b, k, checkedAt) => {
      await a.claim(k, 2, { checkedAt });
      const stop = new AbortController();
      const waiting = b.claim(k, 2, { checkedAt, signal: stop.signal, pollMs: 20 });
      stop.abort();
      expect(await waiting).toEqual({ kind: 'stopped' });
    }));
});

describe('a claim left without an outcome', () => {
  it('by a run that has ended is taken over at once, with a read of the API first', async () => {
    const k = nextKey();
    const gone = await ClaimRun.open(w.pool, scope);
    const checkedAt = await databaseNow(w.pool);
    await gone.claim(k, 2, { checkedAt });
    await gone.close(); // its leases end: what it left is another run's at once
    const b = await ClaimRun.open(w.pool, scope);
    try {
      expect(await b.claim(k, 3, { checkedAt })).toEqual({ kind: 'mine', recheck: true });
      expect(await receipt(k)).toMatchObject({ state: 'claimed', claim_run: b.run, source_line: 3 });
    } finally {
      await b.close();
    }
  });

  it('by a write without a conclusive answer is taken over even while its run goes on', () =>
    withTwoRuns(async (a, b, k, checkedAt) => {
      await a.claim(k, 2, { checkedAt });
      await a.unresolved(k);
      expect(await b.claim(k, 2, { checkedAt })).toEqual({ kind: 'mine', recheck: true });
    }));
});

describe('a row created by an earlier run', () => {
  it('is written again when it was created before this run checked the API (it was removed since), once', async () => {
    const k = nextKey();
    const a = await ClaimRun.open(w.pool, scope);
    await a.claim(k, 2, { checkedAt: await databaseNow(w.pool) });
    await a.created(k, 2, '77');
    await a.close();
    const checkedAt = await databaseNow(w.pool);
    const b = await ClaimRun.open(w.pool, scope);
    const c = await ClaimRun.open(w.pool, scope);
    try {
      const claims = [b, c].map((run) =>
        run.claim(k, 2, { checkedAt, pollMs: 20 }).then((claim) => ({ run, claim })),
      );
      const first = await Promise.race(claims);
      expect(first.claim).toEqual({ kind: 'mine', recheck: false });
      await first.run.created(k, 2, '78');
      // The other waited for it, and finds it created by this run: it is written once.
      const second = await claims[first.run === b ? 1 : 0]!;
      expect(second.claim).toEqual({ kind: 'created', id: '78', file: 'rows.csv', line: 2 });
    } finally {
      await b.close().catch(() => undefined);
      await c.close().catch(() => undefined);
    }
  });
});
