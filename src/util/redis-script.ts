/**
 * A Lua script run by its SHA1 (`EVALSHA`), sent whole (`EVAL`) only when the server does not
 * know it yet (after a restart or a flush): the request budget's scripts run several times per
 * API request, and a script's text is many times the size of its arguments.
 */
import { createHash } from 'node:crypto';

/** The part of an ioredis client a script needs. */
export interface ScriptRunner {
  evalsha(sha: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** One Lua script with a fixed number of keys. */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;
  readonly #numKeys: number;

  constructor(source: string, numKeys: number) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
    this.#numKeys = numKeys;
  }

  /** Runs the script with its keys first, then its arguments. */
  async run(redis: ScriptRunner, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, this.#numKeys, ...keysAndArgs);
    } catch (err) {
      if (!String((err as Error).message).startsWith('NOSCRIPT')) throw err;
      return redis.eval(this.#source, this.#numKeys, ...keysAndArgs);
    }
  }
}
