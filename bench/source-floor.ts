/**
 * The source floor: every request of the workload over HTTP with the sync's budget (at
 * most `concurrency` in flight, at most `rps` started in any sliding second), each body
 * read to its end and thrown away — no JSON parsing, no validation, no warehouse. What
 * the backfill cannot beat while it reads the same responses from the same source.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import type { PlannedRequest } from './workload.js';

/** Options of {@link fetchAll}. */
export interface SourceFloorOptions {
  /** API root (the emulator's URL). */
  readonly baseUrl: string;
  /** Token sent as `apiServiceToken` (never printed). */
  readonly token: string;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Requests started in any sliding second. */
  readonly rps: number;
  /**
   * Given, each body is kept and handed to it whole once read (a pass that does something
   * with the bodies); not given, the bodies are thrown away as they arrive (the floor).
   */
  readonly onBody?: (chunks: readonly Buffer[]) => void;
  /** What the pass is called in its errors (default: the source floor). */
  readonly pass?: string;
}

/** What one pass over the workload measured. */
export interface SourceFloorResult {
  /** Wall time of the pass, ms. */
  readonly ms: number;
  /** Requests made. */
  readonly requests: number;
  /** Response body bytes read. */
  readonly bytes: number;
  /** Slowest single request, ms. */
  readonly slowestMs: number;
}

/** A request of the floor that did not answer 200. */
export class SourceFloorError extends Error {
  override readonly name = 'SourceFloorError';
  readonly code = 'source_floor_failed';
}

/** Admits at most `rps` starts in any sliding second (a sliding log, like the sync's budget). */
class SlidingSecond {
  private readonly starts: number[] = [];
  constructor(private readonly rps: number) {}

  async admit(): Promise<void> {
    for (;;) {
      const now = performance.now();
      while (this.starts.length > 0 && this.starts[0]! <= now - 1000) this.starts.shift();
      if (this.starts.length < this.rps) {
        this.starts.push(now);
        return;
      }
      await sleep(this.starts[0]! + 1000 - now);
    }
  }
}

/** Fetches every request of `requests` once and discards the bodies (or hands each to `o.onBody`). */
export async function fetchAll(
  requests: readonly PlannedRequest[],
  o: SourceFloorOptions,
): Promise<SourceFloorResult> {
  // HTTP/1.1 sockets like the client (src/api/client.ts), although undici 8 offers HTTP/2.
  const pool = new Pool(o.baseUrl, { connections: o.concurrency, allowH2: false });
  const window = new SlidingSecond(o.rps);
  let next = 0;
  let bytes = 0;
  let slowestMs = 0;
  const started = performance.now();
  const lane = async () => {
    while (next < requests.length) {
      const r = requests[next++]!;
      await window.admit();
      const t0 = performance.now();
      const res = await pool.request({ method: 'GET', path: r.path, headers: { apiServiceToken: o.token } });
      const kept: Buffer[] = [];
      for await (const chunk of res.body) {
        bytes += (chunk as Buffer).length;
        if (o.onBody) kept.push(chunk as Buffer);
      }
      if (res.statusCode !== 200)
        throw new SourceFloorError(
          `${r.endpoint} answered ${res.statusCode} during ${o.pass ?? 'the source floor'}`,
        );
      o.onBody?.(kept);
      slowestMs = Math.max(slowestMs, performance.now() - t0);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(o.concurrency, requests.length) }, lane));
  } finally {
    await pool.close();
  }
  return { ms: performance.now() - started, requests: requests.length, bytes, slowestMs };
}
