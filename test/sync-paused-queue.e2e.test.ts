/**
 * A queue paused from the dashboard holds every job until it is resumed. A backfill
 * facing one says so on its progress line (instead of waiting silently at "0/N
 * windows") and finishes once the queue is resumed; a worker says so in its log.
 */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill } from '../src/backfill/run.js';
import { plainReporter } from '../src/backfill/progress.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { startHarness, type Harness } from './sync-harness.js';
import { startPunchlineProcess, waitUntil } from './support/punchline-process.js';

const TODAY = '2025-03-12';

let h: Harness;
let rt: SyncRuntime;

beforeAll(async () => {
  h = await startHarness('paused', { today: TODAY });
  rt = await h.runtime();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('when the sync queue is paused', () => {
  it('a backfill names the paused queue and how to resume it, then finishes once it is resumed', async () => {
    await rt.queues.sync.pause();
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += String(d)));
    const done = runBackfill(
      rt,
      {
        from: TODAY,
        to: TODAY,
        resources: ['companies'],
        connections: rt.config.connections,
        force: true,
        progress: false,
      },
      { reporter: plainReporter(out, 0), pollMs: 100 },
    );
    await waitUntil(
      'the progress line to name the paused queue',
      () => /queue "sync" is paused/.test(text),
      30_000,
    );
    expect(text).toMatch(
      /^backfill: 0\/1 windows, .*; queue "sync" is paused: none of its jobs starts until it is resumed \(the Resume button of the dashboard, signed in with OPS_DASHBOARD_TOKEN\)$/m,
    );
    await rt.queues.sync.resume();
    const summary = await done;
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    expect(summary.succeeded).toBe(summary.total);
    expect(text.trim().split('\n').at(-1)).not.toMatch(/paused/);
  }, 60_000);

  it('a worker logs a warning naming it', async () => {
    await rt.queues.sync.pause();
    const worker = startPunchlineProcess(
      ['worker', '--no-ops', '--no-schedules'],
      h.env({ LOG_LEVEL: 'info' }),
    );
    try {
      const line = await worker.waitForLog(/queue "sync" is paused/, 45_000);
      expect(line).toMatchObject({ level: 40, queues: ['sync'] });
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
      await rt.queues.sync.resume();
    }
  }, 60_000);
});
