/**
 * The worker's CPU per byte of answer needs a yardstick taken on the same machine in the
 * same run: a plain `JSON.parse` of the very bodies the backfill read (how fd14db9 read
 * an answer, and the least any reader of this JSON pays). The workload of the source
 * floor is fetched once more, each body decoded whole, and only the `JSON.parse` calls
 * are timed, in the CPU of this process (`process.cpuUsage()` around each call: garbage
 * collection on helper threads included, as it is in the worker's figure).
 */
import { fetchAll, type SourceFloorOptions } from './source-floor.js';
import type { JsonParseFigures } from './results.js';
import type { PlannedRequest } from './workload.js';

/** Parses `text` as JSON and returns the CPU-seconds the call took (process-wide). */
export function parseCpuSeconds(text: string): number {
  const before = process.cpuUsage();
  JSON.parse(text);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/** Fetches every request of `requests` and `JSON.parse`s each whole body, timing the parse calls alone. */
export async function jsonParsePass(
  requests: readonly PlannedRequest[],
  o: Omit<SourceFloorOptions, 'onBody' | 'pass'>,
): Promise<JsonParseFigures> {
  let cpuS = 0;
  const fetched = await fetchAll(requests, {
    ...o,
    pass: 'the JSON.parse pass',
    onBody: (chunks) => {
      cpuS += parseCpuSeconds(Buffer.concat(chunks).toString('utf8'));
    },
  });
  return { requests: fetched.requests, bytes: fetched.bytes, cpuS, nsPerByte: (cpuS / fetched.bytes) * 1e9 };
}
