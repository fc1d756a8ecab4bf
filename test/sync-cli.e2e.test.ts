/**
 * `punchline backfill` as users run it: bad input exits non-zero fast with one clear
 * line and loads nothing; a good run prints plain progress lines and a summary.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';

/** A local port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('punchline backfill on the command line', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('cli', { today: '2026-10-31' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  describe('when the input is bad', () => {
    it('exits non-zero fast with one clear line and loads nothing', async () => {
      const port = await closedPort();
      const range = ['--from', '2026-06-01', '--to', '2026-06-30'];
      const cases: {
        name: string;
        args: string[];
        env?: Record<string, string>;
        code: number;
        line: RegExp;
      }[] = [
        {
          name: 'from after to',
          args: ['--from', '2026-07-01', '--to', '2026-06-01'],
          code: 2,
          line: /--from 2026-07-01 is after --to 2026-06-01/,
        },
        {
          name: 'impossible date',
          args: ['--from', '2026-02-30', '--to', '2026-03-01'],
          code: 2,
          line: /--from 2026-02-30 is not a real calendar day/,
        },
        {
          name: 'unknown resource',
          args: [...range, '--resources', 'punches,payroll'],
          code: 2,
          line: /unknown resource "payroll"/,
        },
        {
          name: 'unknown connection',
          args: [...range, '--connection', 'other'],
          code: 2,
          line: /unknown connection "other"/,
        },
        {
          name: 'unreachable API',
          args: range,
          env: { SERVICE_API_BASE_URL: `http://127.0.0.1:${port}` },
          code: 3,
          line: new RegExp(`cannot reach the API of connection "default" at http://127.0.0.1:${port}`),
        },
        {
          name: 'wrong token',
          args: range,
          env: { SERVICE_API_TOKEN: 'not-the-token-0000' },
          code: 2,
          line: /rejected the token of connection "default" \(401 invalid_service_token\)/,
        },
      ];
      const results = await Promise.all(
        cases.map(async (c) => {
          const r = await runPunchline(['backfill', ...c.args], h.env(c.env));
          return { ...c, ...r };
        }),
      );
      for (const r of results) {
        const lines = r.stderr.trim().split('\n');
        expect({ name: r.name, code: r.code, lines: lines.length }).toEqual({
          name: r.name,
          code: r.code,
          lines: 1,
        });
        expect(lines[0], r.name).toMatch(/^punchline: /);
        expect(lines[0], r.name).toMatch(r.line);
        expect(r.stderr, r.name).not.toContain(h.emulator.headquartersToken);
      }
      // a rejected token is one request, not a retry storm
      expect(h.emulator.stats().startsByToken['not-the-token-0000']).toHaveLength(1);
      // nothing was queued or loaded
      const queueKeys = await h.redis.keys(`${h.prefix}:*`);
      expect(queueKeys.filter((k) => !k.endsWith(':meta') && !k.includes(':budget:'))).toEqual([]);
      for (const table of ['sync_runs', 'companies', 'punches', 'collaborators']) {
        const n = await h.pool.query(`select count(*)::int as n from "${h.schema}"."${table}"`);
        expect(n.rows[0].n, table).toBe(0);
      }
    }, 120_000);
  });

  describe('when the input is good and stdout is not a terminal', () => {
    it('prints plain progress lines and a summary, and exits 0', async () => {
      const r = await runPunchline(
        ['backfill', '--from', '2026-06-01', '--to', '2026-06-07', '--resources', 'collaborators,punches'],
        h.env(),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^backfill: \d+\/\d+ windows, \d+ rows, \d+ requests \([\d.]+\/s\), ETA /m);
      expect(r.stdout).toMatch(
        /^backfill finished in .*: 6 of 6 jobs succeeded, 0 failed, 0 windows skipped as already synced$/m,
      );
      const punches = await h.pool.query(`select count(*)::int as n from "${h.schema}".punches`);
      expect(punches.rows[0].n).toBeGreaterThan(0);
    }, 60_000);
  });
});
