import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { openQueues, type SyncQueues } from '../src/runtime/queues.js';
import { buildSchedulers, registerSchedules } from '../src/runtime/schedules.js';
import { connectRedis, dropQueuePrefix, TEST_REDIS_URL, uniqueName } from './support/isolation.js';

describe('incremental schedules', () => {
  const prefix = uniqueName('sched');
  let redis: Redis;
  let queues: SyncQueues;
  const config = loadConfig({
    SERVICE_API_BASE_URL: 'http://127.0.0.1:1',
    SERVICE_API_TOKEN: 'secret-token-1234',
    API_TIMEZONE: 'America/Manaus',
    SCHEDULE_PUNCHES: '*/10 * * * *',
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
  });

  beforeAll(async () => {
    redis = await connectRedis();
    queues = openQueues(config, redis);
  });
  afterAll(async () => {
    await queues.close();
    await dropQueuePrefix(redis, prefix);
    redis.disconnect();
  });

  it('builds one scheduler per connection and kind, in the connection time zone', () => {
    const specs = buildSchedulers(config);
    expect(specs.map((s) => s.id)).toEqual(['punches.default', 'directory.default', 'nightly.default']);
    expect(specs[0]).toMatchObject({
      pattern: '*/10 * * * *',
      tz: 'America/Manaus',
      data: { connection: 'default', kind: 'punches' },
    });
    expect(JSON.stringify(specs)).not.toContain('secret-token-1234');
    expect(buildSchedulers({ ...config, schedules: { ...config.schedules, enabled: false } })).toEqual([]);
  });

  it('registers with cron and time zone, and registering twice never duplicates', async () => {
    const specs = buildSchedulers(config);
    await registerSchedules(queues.schedules, specs);
    await registerSchedules(queues.schedules, specs);
    const list = await queues.schedules.getJobSchedulers(0, -1);
    expect(list.map((s) => s.key).sort()).toEqual([
      'directory.default',
      'nightly.default',
      'punches.default',
    ]);
    const punches = list.find((s) => s.key === 'punches.default')!;
    expect(punches.pattern).toBe('*/10 * * * *');
    expect(punches.tz).toBe('America/Manaus');
    // one delayed planning job per scheduler, not two
    expect(await queues.schedules.getDelayedCount()).toBe(3);
  });

  it('removes schedulers no longer configured', async () => {
    const only = buildSchedulers(config).filter((s) => s.data.kind !== 'nightly');
    const r = await registerSchedules(queues.schedules, only);
    expect(r.removed).toEqual(['nightly.default']);
    expect((await queues.schedules.getJobSchedulers(0, -1)).map((s) => s.key).sort()).toEqual([
      'directory.default',
      'punches.default',
    ]);
  });
});
