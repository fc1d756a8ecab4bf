/**
 * Fault injection and request statistics: 403/500 answers, dropped connections, slow
 * responses, the per-token rate limit with `Retry-After`, faults changed at run time
 * through the admin surface, and the counters tests of the sync rely on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { callAdmin, callEmulator } from './support/emulator-http.js';

let emu: RunningEmulator;

const call = (path = 'unit', token?: string): Promise<Response> => callEmulator(emu, path, token);
const admin = (path: string, body?: unknown): Promise<Response> => callAdmin(emu, path, body);

beforeAll(async () => {
  emu = await startEmulator({ seed: 'faults', scale: 'small', today: '2025-03-15' });
});
afterAll(async () => {
  await emu?.close();
});

describe('faults', () => {
  it('answers 403 generic errors and 500s in the error envelope', async () => {
    emu.setFaults({ error403: 1 });
    const a = await call();
    expect(a.status).toBe(403);
    expect(await a.json()).toEqual({ error: { code: 'server_error', message: expect.any(String) } });
    emu.setFaults({ error403: 0, error500: 1 });
    const b = await call();
    expect(b.status).toBe(500);
    expect(((await b.json()) as { error: { code: string } }).error.code).toBe('internal_server_error');
    emu.setFaults({ error500: 0 });
    expect((await call()).status).toBe(200);
  });

  it('drops connections without an answer', async () => {
    emu.setFaults({ drop: 1 });
    await expect(call()).rejects.toThrow();
    emu.setFaults({ drop: 0 });
    expect((await call()).status).toBe(200);
  });

  it('injects a share of faults matching the probability', async () => {
    emu.setFaults({ error500: 0.5 });
    const statuses = await Promise.all(Array.from({ length: 60 }, () => call().then((r) => r.status)));
    emu.setFaults({ error500: 0 });
    const failed = statuses.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(10);
    expect(failed).toBeLessThan(50);
    expect(statuses.every((s) => s === 200 || s === 500)).toBe(true);
  });

  it('delays slow responses by slowMs', async () => {
    emu.setFaults({ slow: 1, slowMs: 300 });
    const t0 = performance.now();
    expect((await call()).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(290);
    emu.setFaults({ slow: 0 });
  });

  it('answers 429 with Retry-After past the per-token rate in a sliding second, each token apart', async () => {
    let clock = 1_000_000;
    const limited = await startEmulator({
      seed: 'faults',
      scale: 'small',
      today: '2025-03-15',
      now: () => clock,
      faults: { rateLimitRps: 3 },
    });
    try {
      const hit = (token = limited.headquartersToken): Promise<Response> =>
        fetch(`${limited.url}/customer/v2/unit`, { headers: { apiServiceToken: token } });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await hit()).status);
        clock += 300;
      }
      const refused = await hit();
      expect(statuses).toEqual([200, 200, 200]);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('too_many_requests');
      expect((await hit(limited.companies[1]!.token)).status).toBe(200);
      clock += 150; // the first request of the window is now more than a second old
      expect((await hit()).status).toBe(200);
      expect((await hit()).status).toBe(429);
      expect(limited.stats().startsByToken[limited.headquartersToken]).toHaveLength(6);
    } finally {
      await limited.close();
    }
  });

  it('changes faults at run time through the admin surface, and never faults the admin surface', async () => {
    const set = await admin('faults', { error500: 1 });
    expect(await set.json()).toMatchObject({ error500: 1 });
    expect((await call()).status).toBe(500);
    expect((await admin('companies')).status).toBe(200);
    expect(await (await admin('faults')).json()).toMatchObject({ error500: 1 });
    await admin('faults', { error500: 0 });
    expect((await call()).status).toBe(200);
    const bad = await admin('faults', { error500: 2 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/probability/);
  });
});

describe('stats', () => {
  it('counts requests per endpoint and records start times per token', async () => {
    emu.resetStats();
    await Promise.all([
      call('unit'),
      call('unit'),
      call('journey', emu.companies[1]!.token),
      call('collaborator', 'bad-token'),
    ]);
    await admin('companies');
    const s = emu.stats();
    expect(s.requests).toEqual({
      'GET /customer/v2/unit': 2,
      'GET /customer/v2/journey': 1,
      'GET /customer/v2/collaborator': 1,
    });
    expect(s.starts).toHaveLength(4);
    expect(s.startsByToken[emu.headquartersToken]).toHaveLength(2);
    expect(s.startsByToken[emu.companies[1]!.token]).toHaveLength(1);
    expect(s.startsByToken['bad-token']).toHaveLength(1);
    const viaHttp = (await (await admin('stats')).json()) as { requests: Record<string, number> };
    expect(viaHttp.requests).toEqual(s.requests);
  });

  it('measures the most requests in flight at once, with a fixed latency per request', async () => {
    const slow = await startEmulator({ seed: 'faults', scale: 'small', today: '2025-03-15', latencyMs: 500 });
    try {
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: 5 }, () =>
          fetch(`${slow.url}/customer/v2/unit`, { headers: { apiServiceToken: slow.headquartersToken } }),
        ),
      );
      expect(performance.now() - t0).toBeGreaterThanOrEqual(490);
      expect(slow.stats().maxInFlight).toBe(5);
      expect(slow.stats().maxInFlightByToken[slow.headquartersToken]).toBe(5);
      await fetch(`${slow.url}/customer/v2/unit`, { headers: { apiServiceToken: slow.headquartersToken } });
      expect(slow.stats().maxInFlight).toBe(5);
      slow.resetStats();
      expect(slow.stats()).toMatchObject({ requests: {}, starts: [], maxInFlight: 0 });
    } finally {
      await slow.close();
    }
  });
});
