/**
 * Progress of the writes of a long push, in the style of the backfill's (src/backfill/progress.ts):
 * a cli-progress bar on a TTY, plain throttled lines otherwise (logs, CI).
 */
import cliProgress from 'cli-progress';
import { formatSeconds } from '../backfill/progress.js';
import type { PushProgress } from './engine.js';

/** Receives progress and ends the display. */
export interface PushProgressReporter {
  update(p: PushProgress): void;
  /** Ends the display (the last state stays visible). */
  stop(): void;
}

/** Seconds left at the current pace, or undefined before the first write. */
export function etaSeconds(p: PushProgress): number | undefined {
  return p.done > 0 ? Math.round((p.elapsedMs / 1000 / p.done) * (p.total - p.done)) : undefined;
}

/** One plain progress line (pure). */
export function pushProgressLine(kind: string, p: PushProgress): string {
  return (
    `push ${kind}: ${p.done}/${p.total} writes, ${p.created} created` +
    (p.notDone > 0 ? `, ${p.notDone} refused or failed` : '') +
    `, ETA ${formatSeconds(etaSeconds(p))}`
  );
}

/** Plain lines, at most one per `intervalMs`, the last one always. */
export function plainPushReporter(
  kind: string,
  out: NodeJS.WritableStream,
  intervalMs = 2000,
): PushProgressReporter {
  let last = 0;
  let pending: PushProgress | undefined;
  return {
    update(p) {
      if (p.total === 0) return;
      pending = p;
      if (Date.now() - last < intervalMs) return;
      last = Date.now();
      out.write(`${pushProgressLine(kind, p)}\n`);
      pending = undefined;
    },
    stop() {
      if (pending) out.write(`${pushProgressLine(kind, pending)}\n`);
    },
  };
}

/** A cli-progress bar on `out` (a TTY). */
export function barPushReporter(kind: string, out: NodeJS.WritableStream): PushProgressReporter {
  const bar = new cliProgress.SingleBar(
    {
      stream: out as NodeJS.WriteStream,
      format: `push ${kind} [{bar}] {value}/{total} writes | {created} created | {notDone} refused or failed | ETA {etaText}`,
      hideCursor: true,
      clearOnComplete: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(p) {
      const payload = { created: p.created, notDone: p.notDone, etaText: formatSeconds(etaSeconds(p)) };
      if (started) {
        bar.update(p.done, payload);
      } else if (p.total > 0) {
        bar.start(p.total, p.done, payload);
        started = true;
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
