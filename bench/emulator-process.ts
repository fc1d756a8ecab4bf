/**
 * The emulator in its own process (`punchline emulator --port 0 ...`), so its CPU is its
 * own and the worker's peak RSS is the worker's alone: started, asked for its companies
 * and request counts over its admin surface, and stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpuSeconds } from './proc-stats.js';

/** How to start the emulator. */
export interface EmulatorProcessOptions {
  /** Repository root (where bin/punchline.js lives). */
  readonly root: string;
  /** Collaborators in all. */
  readonly scale: number;
  /** Pinned day. */
  readonly today: string;
  /** Data seed. */
  readonly seed: string;
  /** Longest wait for it to listen, ms. */
  readonly startTimeoutMs?: number;
}

/** One company the emulator serves. */
export interface EmulatedCompanyInfo {
  readonly cnpj: string;
  readonly token: string;
  readonly isHeadquarter: boolean;
}

/** Spec requests the emulator served since its statistics were last reset. */
export interface EmulatorTraffic {
  /** Requests in all. */
  readonly requests: number;
  /** Requests per endpoint (`GET /customer/v2/...`). */
  readonly byEndpoint: Record<string, number>;
  /** Most requests in flight at once. */
  readonly maxInFlight: number;
}

/** A running emulator process. */
export interface EmulatorProcess {
  /** Base URL (SERVICE_API_BASE_URL). */
  readonly url: string;
  /** Process id. */
  readonly pid: number;
  /** Active companies, headquarters first. */
  readonly companies: readonly EmulatedCompanyInfo[];
  /** Time from spawn to listening, ms (world generation included). */
  readonly startMs: number;
  /** Spec requests served since the last reset. */
  stats(): Promise<EmulatorTraffic>;
  /** Zeroes the request statistics. */
  resetStats(): Promise<void>;
  /** CPU seconds the emulator used so far. */
  cpuSeconds(): number;
  /** Stops it (SIGTERM, then SIGKILL after 5 s). */
  stop(): Promise<void>;
}

/** The emulator did not start or its admin surface failed. */
export class EmulatorProcessError extends Error {
  override readonly name = 'EmulatorProcessError';
  readonly code = 'emulator_process_failed';
}

function waitForUrl(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => fail(`did not listen within ${timeoutMs / 1000} s`), timeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      reject(
        new EmulatorProcessError(
          `the emulator ${why}${err.trim() ? `: ${err.trim().split('\n').pop()}` : ''}`,
        ),
      );
    };
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        // Keep draining stdout so the child never blocks on a full pipe.
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => fail(`exited with code ${code} before listening`));
  });
}

async function admin<T>(url: string, path: string, method: 'GET' | 'POST' = 'GET'): Promise<T> {
  const res = await fetch(`${url}/__emulator/${path}`, { method });
  if (!res.ok) throw new EmulatorProcessError(`emulator admin ${method} ${path} answered ${res.status}`);
  return (await res.json()) as T;
}

/** Starts the emulator at `scale` and waits until it listens. */
export async function startEmulatorProcess(o: EmulatorProcessOptions): Promise<EmulatorProcess> {
  const t0 = performance.now();
  const child = spawn(
    process.execPath,
    [
      'bin/punchline.js',
      'emulator',
      '--port',
      '0',
      '--scale',
      String(o.scale),
      '--today',
      o.today,
      '--seed',
      o.seed,
    ],
    // A clean environment: the emulator needs no configuration, and a stray variable must not break it.
    {
      cwd: o.root,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let url: string;
  try {
    url = await waitForUrl(child, o.startTimeoutMs ?? 180_000);
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  }
  const startMs = performance.now() - t0;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const listed = await admin<{ cnpj: string; token: string; is_headquarter: boolean }[]>(url, 'companies');
    const companies = listed
      .map((c) => ({ cnpj: c.cnpj, token: c.token, isHeadquarter: c.is_headquarter }))
      .sort((a, b) => Number(b.isHeadquarter) - Number(a.isHeadquarter));
    if (!companies[0]?.isHeadquarter)
      throw new EmulatorProcessError('the emulator lists no headquarters company');
    return {
      url,
      pid: child.pid!,
      companies,
      startMs,
      async stats() {
        const s = await admin<{ requests: Record<string, number>; maxInFlight: number }>(url, 'stats');
        const requests = Object.values(s.requests).reduce((a, b) => a + b, 0);
        return { requests, byEndpoint: s.requests, maxInFlight: s.maxInFlight };
      },
      async resetStats() {
        await admin(url, 'stats/reset', 'POST');
      },
      cpuSeconds: () => cpuSeconds(child.pid!) ?? NaN,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
