/**
 * `punchline forget` in Redis: every key under the queue prefix (BullMQ's jobs with their
 * data, failure reasons and stack traces, kept 14 days; their event streams; the
 * notifier's conditions) is searched for the erased people's CPF, in any form, and names,
 * which are replaced with the person's tombstone. A JSON value stays JSON (a CPF sent as a
 * number becomes the tombstone string); a stream entry, which cannot be edited, is
 * deleted. The same forms as the warehouse's `erasure_pattern` (erasure-functions.ts).
 */
import type { Redis } from 'ioredis';

/** An erased person as Redis is searched for them. */
export interface ErasedPerson {
  /** CPF, 11 digits. */
  readonly cpf: string;
  /** Names the person was known by. */
  readonly names: readonly string[];
  /** What replaces a mention: `erased-<id>`. */
  readonly tombstone: string;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A mention of `p` in a text: the CPF as 11 digits, formatted, or without its leading
 * zeros when 9 or 10 digits remain, never inside a longer number; or one of the names (of
 * four characters or more), never inside a longer word, whatever the case.
 */
export function mentionPattern(p: ErasedPerson): RegExp {
  const c = p.cpf;
  const unpadded = c.replace(/^0+/, '');
  const cpf = `${c.slice(0, 3)}\\.?${c.slice(3, 6)}\\.?${c.slice(6, 9)}[-./ ]?${c.slice(9)}${unpadded.length >= 9 && unpadded.length < 11 ? `|${unpadded}` : ''}`;
  const names = p.names
    .map((n) => n.trim())
    .filter((n) => n.length >= 4)
    .sort((a, b) => b.length - a.length)
    .map((n) => escapeRegExp(n).replace(/\s+/g, '\\s+'));
  const byName = names.length > 0 ? `|(?<![\\p{L}\\p{N}])(?:${names.join('|')})(?![\\p{L}\\p{N}])` : '';
  return new RegExp(`(?<![0-9])(?:${cpf})(?![0-9])${byName}`, 'giu');
}

/** True when a JSON number or string is the CPF in any form, whatever its leading zeros. */
function isCpfValue(value: unknown, cpf: string): boolean {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : undefined;
  if (text === undefined || !/^[0-9][0-9. /-]*$/.test(text)) return false;
  const digits = text.replace(/[^0-9]/g, '');
  return digits.length <= 11 && digits.padStart(11, '0') === cpf;
}

/** `value` (parsed JSON) with every mention of the people replaced by their tombstone. */
function eraseInJson(value: unknown, people: readonly ErasedPerson[], patterns: readonly RegExp[]): unknown {
  if (Array.isArray(value)) return value.map((v) => eraseInJson(v, people, patterns));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        eraseInPlainText(k, people, patterns),
        eraseInJson(v, people, patterns),
      ]),
    );
  }
  const whole = people.find((p) => isCpfValue(value, p.cpf));
  if (whole) return whole.tombstone;
  return typeof value === 'string' ? eraseInPlainText(value, people, patterns) : value;
}

function eraseInPlainText(
  text: string,
  people: readonly ErasedPerson[],
  patterns: readonly RegExp[],
): string {
  let out = text;
  people.forEach((p, i) => {
    out = out.replace(patterns[i]!, p.tombstone);
  });
  return out;
}

/** `text` with every mention of the people replaced by their tombstone; JSON text stays JSON. */
export function eraseInText(text: string, people: readonly ErasedPerson[]): string {
  const patterns = people.map(mentionPattern);
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      const before = JSON.stringify(parsed);
      const after = JSON.stringify(eraseInJson(parsed, people, patterns));
      return after === before ? text : after;
    } catch {
      // Not JSON after all: a plain text.
    }
  }
  return eraseInPlainText(text, people, patterns);
}

/** The subset of ioredis the erasure uses. */
export type ErasureRedis = Pick<
  Redis,
  | 'scan'
  | 'type'
  | 'get'
  | 'set'
  | 'hgetall'
  | 'hset'
  | 'lrange'
  | 'lset'
  | 'smembers'
  | 'srem'
  | 'sadd'
  | 'zrange'
  | 'zrem'
  | 'zadd'
  | 'xrange'
  | 'xdel'
>;

/**
 * Replaces the mentions of `people` in every key under `prefix` (`<prefix>:*`); returns
 * how many values were changed or stream entries deleted. With `dryRun`, only counts them.
 */
export async function eraseFromRedis(
  redis: ErasureRedis,
  prefix: string,
  people: readonly ErasedPerson[],
  options: { readonly dryRun?: boolean } = {},
): Promise<number> {
  if (people.length === 0) return 0;
  const erase = (text: string) => eraseInText(text, people);
  let changed = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) changed += await eraseInKey(redis, key, erase, options.dryRun !== true);
  } while (cursor !== '0');
  return changed;
}

/** Erases the mentions in `key`; returns how many values it changed (or, without `write`, would change). */
async function eraseInKey(
  redis: ErasureRedis,
  key: string,
  erase: (text: string) => string,
  write: boolean,
): Promise<number> {
  let changed = 0;
  switch (await redis.type(key)) {
    case 'string': {
      const value = await redis.get(key);
      if (value !== null && erase(value) !== value) {
        if (write) await redis.set(key, erase(value), 'KEEPTTL');
        changed++;
      }
      break;
    }
    case 'hash':
      for (const [field, value] of Object.entries(await redis.hgetall(key))) {
        const after = erase(value);
        if (after !== value) {
          if (write) await redis.hset(key, field, after);
          changed++;
        }
      }
      break;
    case 'list': {
      const items = await redis.lrange(key, 0, -1);
      for (const [i, value] of items.entries()) {
        const after = erase(value);
        if (after !== value) {
          if (write) await redis.lset(key, i, after);
          changed++;
        }
      }
      break;
    }
    case 'set':
      for (const member of await redis.smembers(key)) {
        const after = erase(member);
        if (after !== member) {
          if (write) await redis.srem(key, member).then(() => redis.sadd(key, after));
          changed++;
        }
      }
      break;
    case 'zset': {
      const flat = await redis.zrange(key, 0, -1, 'WITHSCORES');
      for (let i = 0; i < flat.length; i += 2) {
        const member = flat[i]!;
        const after = erase(member);
        if (after !== member) {
          if (write) await redis.zrem(key, member).then(() => redis.zadd(key, flat[i + 1]!, after));
          changed++;
        }
      }
      break;
    }
    case 'stream':
      // Entries cannot be edited: one that mentions the person goes.
      for (const [id, fields] of await redis.xrange(key, '-', '+')) {
        if (fields.some((f) => erase(f) !== f)) {
          if (write) await redis.xdel(key, id);
          changed++;
        }
      }
      break;
    default:
      break;
  }
  return changed;
}
