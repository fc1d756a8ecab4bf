/**
 * Progress of a backfill: a bar on a TTY (windows done/total, rows, requests, request rate
 * and ETA), plain throttled lines otherwise (logs, CI). A paused queue, which holds every
 * job until resumed, is named on the same line.
 */
import cliProgress from 'cli-progress';
import { pausedQueueNote } from '../runtime/queue-pauses.js';

/** A snapshot of a backfill's progress. */
export interface ProgressSnapshot {
  /** Jobs finished (succeeded or failed), known so far (follow-ups add to it), failed for good. */
  readonly done: number;
  readonly total: number;
  readonly failed: number;
  /** Rows inserted + updated + deleted. */
  readonly rows: number;
  readonly requests: number;
  readonly elapsedMs: number;
  /** Queues the backfill waits on that are paused, if any. */
  readonly paused?: readonly string[];
}

/** Receives a snapshot on every change; `stop` ends the display (the last snapshot stays visible). */
export interface ProgressReporter {
  update(p: ProgressSnapshot): void;
  stop(): void;
}

/** Requests per second and the ETA in seconds of a snapshot (pure). */
export function rateAndEta(p: ProgressSnapshot): { rate: number; etaSeconds: number | undefined } {
  const seconds = p.elapsedMs / 1000;
  const rate = seconds > 0 ? p.requests / seconds : 0;
  const etaSeconds =
    p.done > 0 && p.total >= p.done ? Math.round((seconds / p.done) * (p.total - p.done)) : undefined;
  return { rate, etaSeconds };
}

/** `1h02m`, `3m05s`, `12s`. */
export function formatSeconds(s: number | undefined): string {
  if (s === undefined || !Number.isFinite(s)) return '?';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** One plain progress line. */
export function progressLine(p: ProgressSnapshot): string {
  const { rate, etaSeconds } = rateAndEta(p);
  return (
    `backfill: ${p.done}/${p.total} windows` +
    (p.failed > 0 ? ` (${p.failed} failed)` : '') +
    `, ${p.rows} rows, ${p.requests} requests (${rate.toFixed(1)}/s), ETA ${formatSeconds(etaSeconds)}` +
    pausedSuffix(p)
  );
}

/** `; queue "sync" is paused: ...` when a queue waited on is paused, else nothing. */
const pausedSuffix = (p: ProgressSnapshot): string =>
  p.paused && p.paused.length > 0 ? `; ${pausedQueueNote(p.paused)}` : '';

/** Plain lines, at most one per `intervalMs`, the last one always. */
export function plainReporter(out: NodeJS.WritableStream, intervalMs = 2000): ProgressReporter {
  let last = 0;
  let pending: ProgressSnapshot | undefined;
  let lastText = '';
  const print = (p: ProgressSnapshot) => {
    const text = progressLine(p);
    if (text === lastText) return;
    lastText = text;
    out.write(`${text}\n`);
  };
  return {
    update(p) {
      pending = p;
      const now = Date.now();
      if (now - last >= intervalMs) {
        last = now;
        print(p);
        pending = undefined;
      }
    },
    stop() {
      if (pending) print(pending);
    },
  };
}

/** A cli-progress bar on `out` (a TTY). */
export function barReporter(out: NodeJS.WritableStream): ProgressReporter {
  const bar = new cliProgress.SingleBar(
    {
      stream: out as NodeJS.WriteStream,
      format:
        'backfill [{bar}] {value}/{total} windows | {rows} rows | {requests} requests ({rate}/s) | ETA {etaText}{paused}',
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 50,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      const { rate, etaSeconds } = rateAndEta(p);
      const payload = {
        rows: p.rows,
        requests: p.requests,
        rate: rate.toFixed(1),
        etaText: formatSeconds(etaSeconds),
        paused: pausedSuffix(p),
      };
      if (!started) {
        bar.start(Math.max(p.total, 1), p.done, payload);
        started = true;
      } else {
        bar.setTotal(Math.max(p.total, 1));
        bar.update(p.done, payload);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
