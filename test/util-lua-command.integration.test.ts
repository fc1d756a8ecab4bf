import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { LuaCommand } from '../src/util/lua-command.js';
import { connectRedis, uniqueName } from './support/isolation.js';

describe('a Lua script as an ioredis command', () => {
  let redis: Redis;
  const key = uniqueName('script');
  beforeAll(async () => {
    redis = await connectRedis();
  });
  afterAll(async () => {
    await redis?.del(key);
    await redis?.quit();
  });

  it('runs with its keys and arguments, and the server keeps it by its SHA1', async () => {
    // A text no other test uses, so the server has never seen it.
    const lua = `-- ${key}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`;
    const incr = new LuaCommand('testIncrBy', lua, 1);
    expect(await incr.run(redis, key, 2)).toBe(2);
    expect(await incr.run(redis, key, 3)).toBe(5);
    const sha = createHash('sha1').update(lua).digest('hex');
    expect(await redis.script('EXISTS', sha)).toEqual([1]);
  });

  it('passes the script errors through', async () => {
    const fails = new LuaCommand('testFails', `-- ${key} fails\nreturn redis.error_reply('nope')`, 0);
    await expect(fails.run(redis)).rejects.toThrow('nope');
  });
});
