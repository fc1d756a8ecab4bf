import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RedisScript, type ScriptRunner } from '../src/util/redis-script.js';
import { connectRedis, uniqueName } from './support/isolation.js';

describe('a Redis script run by its SHA1', () => {
  let redis: Redis;
  const key = uniqueName('script');
  beforeAll(async () => {
    redis = await connectRedis();
  });
  afterAll(async () => {
    await redis?.del(key);
    await redis?.quit();
  });

  /** The runner, recording which command carried each call. */
  const recording = () => {
    const sent: string[] = [];
    const runner: ScriptRunner = {
      evalsha: (...args) => (sent.push('evalsha'), redis.evalsha(...args)),
      eval: (...args) => (sent.push('eval'), redis.eval(...args)),
    };
    return { sent, runner };
  };

  it('sends the text once when the server does not know it, then only the SHA1', async () => {
    // A text no other test uses, so the server has never seen it.
    const script = new RedisScript(`-- ${key}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`, 1);
    const { sent, runner } = recording();
    expect(await script.run(runner, key, 2)).toBe(2);
    expect(await script.run(runner, key, 3)).toBe(5);
    expect(sent).toEqual(['evalsha', 'eval', 'evalsha']);
  });

  it('passes other errors through', async () => {
    const script = new RedisScript(`-- ${key} fails\nreturn redis.error_reply('nope')`, 0);
    const { runner } = recording();
    await expect(script.run(runner)).rejects.toThrow('nope');
  });
});
