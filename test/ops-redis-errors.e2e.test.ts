/**
 * When Redis goes away under a running worker, every Redis connection of the process
 * (the queues' and the request budget's, each worker's) reports it through the logger,
 * once per outage, and its return: JSON lines with the secrets scrubbed, never a raw
 * stack trace printed past the logger, never the Redis password.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './sync-harness.js';
import { startPunchlineProcess, waitUntil } from './support/punchline-process.js';
import { freePort } from './ops-harness.js';

const PASSWORD = 'redis-secret-Zq81-pw';

let h: Harness;
let redis: ChildProcess | undefined;
let port: number;

/** Starts a redis-server of this test's own, with a password, and waits until it answers. */
async function startRedis(): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--requirepass',
      PASSWORD,
    ],
    {
      stdio: 'ignore',
    },
  );
  await waitUntil(
    'redis-server to answer',
    async () => {
      const { Redis } = await import('ioredis');
      const probe = new Redis({
        port,
        password: PASSWORD,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    },
    15_000,
  );
  return child;
}

beforeAll(async () => {
  h = await startHarness('redis_errors', { today: '2025-03-12' });
  port = await freePort();
  redis = await startRedis();
}, 120_000);

afterAll(async () => {
  redis?.kill('SIGKILL');
  await h?.close();
});

describe('when Redis goes down under a running worker', () => {
  it('reports it through the logger only: JSON lines, no stack trace printed past it, no password', async () => {
    const opsPort = await freePort();
    const worker = startPunchlineProcess(
      ['worker', '--no-schedules'],
      h.env({
        REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${port}`,
        OPS_PORT: String(opsPort),
        LOG_LEVEL: 'info',
      }),
    );
    try {
      await worker.waitForLog('worker ready', 45_000);
      redis!.kill('SIGKILL');
      await worker.waitForLog('Redis connection error (reconnecting)', 20_000);
      // Let every connection notice and try to reconnect a few times.
      await fetch(`http://127.0.0.1:${opsPort}/healthz`).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 5000));
      const raw = worker.lines.filter((line) => line.trim() !== '' && !line.startsWith('{'));
      expect(raw, raw.slice(0, 10).join('\n')).toEqual([]);
      const all = worker.lines.join('\n');
      expect(all).not.toContain(PASSWORD);
      expect(all).not.toMatch(/Unhandled error event|\n\s+at /);
      // Each connection says it once for the outage, not once per reconnect attempt.
      const reports = worker.logs('Redis connection error (reconnecting)');
      const byConnection = new Map<string, number>();
      for (const r of reports)
        byConnection.set(String(r.connection), (byConnection.get(String(r.connection)) ?? 0) + 1);
      expect([...byConnection.keys()].sort()).toEqual([
        'punchline-sync',
        'punchline-worker-followups',
        'punchline-worker-marts',
        'punchline-worker-schedules',
        'punchline-worker-sync',
      ]);
      for (const [name, n] of byConnection) expect(n, name).toBe(1);
      // A connection that was open sees the reset first, one that reconnects the refusal.
      expect(reports[0]).toMatchObject({
        level: 40,
        err: { code: expect.stringMatching(/^ECONN(RESET|REFUSED)$/) },
      });
      expect(worker.logs('worker error')).toEqual([]);

      redis = await startRedis();
      const restored = await worker.waitForLog('Redis connection restored', 30_000);
      expect(restored).toMatchObject({ level: 30, downMs: expect.any(Number) });
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
  }, 90_000);
});
