/**
 * The pure parts of the fault healing: which errors mean "the warehouse is unreachable",
 * the bounded back-off of the wait for it, and how often a process looks for a due token
 * re-check.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/errors.js';
import { isWarehouseUnavailable, WarehouseGate } from '../src/runtime/warehouse-gate.js';
import { tickMs } from '../src/connections/connection-pause.js';

const silent = { warn: () => undefined, info: () => undefined };

describe('isWarehouseUnavailable', () => {
  it('recognises refused and reset connections, server shutdowns and pg connection messages, also when wrapped', () => {
    expect(
      isWarehouseUnavailable(
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      ),
    ).toBe(true);
    expect(isWarehouseUnavailable(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(
      true,
    );
    expect(
      isWarehouseUnavailable(
        Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      ),
    ).toBe(true);
    expect(
      isWarehouseUnavailable(
        Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      ),
    ).toBe(true);
    expect(isWarehouseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isWarehouseUnavailable(
        new Error('load failed', { cause: Object.assign(new Error('x'), { code: '08006' }) }),
      ),
    ).toBe(true);
    expect(
      isWarehouseUnavailable(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })])),
    ).toBe(true);
  });

  it('leaves statement errors and API transport errors alone', () => {
    expect(isWarehouseUnavailable(Object.assign(new Error('duplicate key value'), { code: '23505' }))).toBe(
      false,
    );
    expect(
      isWarehouseUnavailable(Object.assign(new Error('relation does not exist'), { code: '42P01' })),
    ).toBe(false);
    const api = new ApiError('network', {
      endpoint: 'collaborator',
      mayHaveReachedServer: false,
      cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
    });
    expect(isWarehouseUnavailable(api)).toBe(false);
    expect(isWarehouseUnavailable(undefined)).toBe(false);
  });
});

describe('WarehouseGate', () => {
  it('probes with a doubling pause up to the cap and resolves true once the warehouse answers', async () => {
    let clock = 0;
    const pauses: number[] = [];
    let failures = 4;
    const gate = new WarehouseGate({
      db: { query: async () => (failures-- > 0 ? Promise.reject(new Error('ECONNREFUSED')) : undefined) },
      logger: silent,
      maxWaitMs: 60_000,
      maxDelayMs: 3_000,
      sleep: async (ms) => {
        pauses.push(ms);
        clock += ms;
      },
      now: () => clock,
    });
    const [a, b] = await Promise.all([gate.wait('down'), gate.wait('down')]);
    expect([a, b]).toEqual([true, true]);
    expect(pauses).toEqual([500, 1000, 2000, 3000, 3000]);
  });

  it('gives up after maxWaitMs, so the job goes back to the queue', async () => {
    let clock = 0;
    const gate = new WarehouseGate({
      db: { query: async () => Promise.reject(new Error('ECONNREFUSED')) },
      logger: silent,
      maxWaitMs: 5_000,
      maxDelayMs: 2_000,
      sleep: async (ms) => {
        clock += ms;
      },
      now: () => clock,
    });
    expect(await gate.wait('down')).toBe(false);
    expect(clock).toBe(5_000);
  });
});

describe('token re-check timer', () => {
  it('looks for a due check a few times per period, between 250 ms and 5 s', () => {
    expect(tickMs(180_000)).toBe(5_000);
    expect(tickMs(2_000)).toBe(500);
    expect(tickMs(500)).toBe(250);
  });
});
