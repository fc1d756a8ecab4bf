/**
 * Deterministic BullMQ job ids: resource, connection, company and window, so the same
 * window is never queued twice. BullMQ 5 rejects custom ids that contain ':' and ids
 * that look like integers; ours use '.' between parts and always start with a letter.
 */
import type { Resource } from './resources.js';

/** The parts a job id is made of (no company for the group walk). */
type JobKey = { resource: Resource; connection: string; company?: string; from?: string; to?: string };

/** The job id of `key`: `punches.default.12345678000195.2024-01-01.2024-01-31`. */
export function jobIdFor(key: JobKey): string {
  const parts: string[] = [key.resource, key.connection];
  if (key.company !== undefined) parts.push(key.company);
  if (key.from !== undefined && key.to !== undefined) parts.push(key.from, key.to);
  const id = parts.join('.');
  if (id.includes(':')) throw new RangeError(`job id must not contain ":": ${id}`);
  return id;
}

/** The key of a completed window, as stored in `sync_windows`, for set lookups. */
export const windowKey = (k: { resource: string; company: string; from: string; to: string }): string =>
  `${k.resource}|${k.company}|${k.from}|${k.to}`;
