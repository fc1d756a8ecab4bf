/**
 * A `punchline` subprocess whose JSON log lines a test can wait for: the worker's
 * "worker ready", a back-off line, a resume line. Non-JSON output (a crash trace) is
 * kept too, so a failing test can show it.
 */
import type { ChildProcess } from 'node:child_process';
import { spawnPunchline } from '../sync-harness.js';

/** A running `punchline` process. */
export interface PunchlineProcess {
  readonly child: ChildProcess;
  /** Every stderr line so far. */
  readonly lines: string[];
  /** Everything written to stdout so far. */
  readonly stdout: () => string;
  /** Resolves with the first log line (parsed) whose `msg` matches, past or future. */
  waitForLog(msg: string | RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Parsed log lines whose `msg` matches. */
  logs(msg: string | RegExp): Record<string, unknown>[];
  /** Exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

function parse(line: string): Record<string, unknown> | null {
  try {
    const j = JSON.parse(line) as unknown;
    return typeof j === 'object' && j !== null ? (j as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const matches = (j: Record<string, unknown> | null, msg: string | RegExp): j is Record<string, unknown> =>
  j !== null && typeof j.msg === 'string' && (typeof msg === 'string' ? j.msg === msg : msg.test(j.msg));

/** Starts `punchline <args>` with `env` and follows its output. */
export function startPunchlineProcess(args: string[], env: Record<string, string>): PunchlineProcess {
  const child = spawnPunchline(args, env);
  const lines: string[] = [];
  const waiters: { msg: string | RegExp; resolve: (j: Record<string, unknown>) => void }[] = [];
  let out = '';
  let pending = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => {
    pending += String(d);
    for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      lines.push(line);
      const j = parse(line);
      for (const w of waiters.filter((x) => matches(j, x.msg))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(j!);
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const logs = (msg: string | RegExp) => lines.map(parse).filter((j) => matches(j, msg));
  return {
    child,
    lines,
    stdout: () => out,
    logs,
    exited,
    waitForLog(msg, timeoutMs = 60_000) {
      const seen = logs(msg)[0];
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(`no log line ${String(msg)} within ${timeoutMs} ms:\n${lines.slice(-20).join('\n')}`),
            ),
          timeoutMs,
        );
        waiters.push({ msg, resolve: (j) => (clearTimeout(timer), resolve(j)) });
        void exited.then((code) => {
          clearTimeout(timer);
          reject(
            new Error(
              `punchline ${args[0]} exited (${code}) before logging ${String(msg)}:\n${lines.slice(-20).join('\n')}`,
            ),
          );
        });
      });
    },
  };
}

/** Polls `check` every 100 ms until it holds, or fails after `timeoutMs` naming `what`. */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
