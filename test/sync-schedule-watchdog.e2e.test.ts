/**
 * Lost Redis data: the queue keys of the test's own prefix are deleted under a running
 * worker (never FLUSHDB: other tests share Redis). The worker finds its schedules
 * missing within its check period, registers them again, and ticks fire again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openQueues, type SyncQueues } from '../src/runtime/queues.js';
import { startHarness, type Harness } from './sync-harness.js';
import { dropQueuePrefix } from './support/isolation.js';
import { startPunchlineProcess, waitUntil, type PunchlineProcess } from './support/punchline-process.js';

const NEVER = '0 0 1 1 *';

describe('when Redis loses the queue data under a running worker', () => {
  let h: Harness;
  let worker: PunchlineProcess | undefined;
  let queues: SyncQueues;

  beforeAll(async () => {
    h = await startHarness('schedwatch', { today: '2026-10-31' });
    queues = openQueues(h.config(), h.redis);
  }, 60_000);
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await queues?.close();
    await h?.close();
  });

  it('registers the schedules again within the check period, and they fire again', async () => {
    worker = startPunchlineProcess(
      ['worker', '--no-ops'],
      h.env({
        LOG_LEVEL: 'info',
        SCHEDULES_ENABLED: '1',
        SCHEDULE_CHECK_MS: '1000',
        // every three seconds, so a tick is seen quickly; the others never fire during the test
        SCHEDULE_PUNCHES: '*/3 * * * * *',
        SCHEDULE_DIRECTORY: NEVER,
        SCHEDULE_NIGHTLY: NEVER,
      }),
    );
    await worker.waitForLog('worker ready');
    await worker.waitForLog('schedule tick planned', 30_000);
    const schedulers = () => queues.schedules.getJobSchedulers(0, -1);
    expect((await schedulers()).map((s) => s.key).sort()).toEqual([
      'directory.default',
      'nightly.default',
      'punches.default',
    ]);

    await dropQueuePrefix(h.redis, h.prefix);
    expect(await schedulers()).toEqual([]);
    const ticksBefore = worker.logs('schedule tick planned').length;

    const warned = await worker.waitForLog(
      'schedules missing from Redis (its data was lost?): registered again',
      15_000,
    );
    expect((warned.schedules as string[]).sort()).toEqual([
      'directory.default',
      'nightly.default',
      'punches.default',
    ]);
    expect((await schedulers()).map((s) => `${s.key}:${s.pattern}`).sort()).toEqual([
      `directory.default:${NEVER}`,
      `nightly.default:${NEVER}`,
      'punches.default:*/3 * * * * *',
    ]);
    await waitUntil(
      'a tick after the loss',
      () => worker!.logs('schedule tick planned').length > ticksBefore,
      20_000,
    );
    expect(worker.child.exitCode).toBeNull();

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 90_000);
});
