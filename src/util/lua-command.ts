/**
 * A Lua script as an ioredis command (`defineCommand`): ioredis runs it by its SHA1
 * (`EVALSHA`) and sends its text (`EVAL`) only when the server does not know it yet (after a
 * restart or a flush). The request budget's scripts run several times per API request, and a
 * script's text is many times the size of its arguments.
 */
import type { Redis } from 'ioredis';

/** The part of an ioredis client a command needs: it is defined on the client that runs it. */
export type CommandHost = Pick<Redis, 'defineCommand'>;

/** A command's function once defined: keys first, then arguments. */
type DefinedCommand = (...keysAndArgs: (string | number)[]) => Promise<unknown>;

/** One Lua script with a fixed number of keys, under a name of its own on each client. */
export class LuaCommand {
  constructor(
    /** The method name ioredis gives it (unique among the scripts of the process). */
    readonly name: string,
    readonly lua: string,
    readonly numberOfKeys: number,
  ) {}

  /** Runs the script on `redis` (defining it there the first time), keys first, then arguments. */
  run(redis: CommandHost, ...keysAndArgs: (string | number)[]): Promise<unknown> {
    if (!(this.name in redis))
      redis.defineCommand(this.name, { numberOfKeys: this.numberOfKeys, lua: this.lua });
    const command = Reflect.get(redis, this.name) as DefinedCommand;
    return command.apply(redis, keysAndArgs);
  }
}
