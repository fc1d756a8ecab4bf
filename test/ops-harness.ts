/**
 * Shared pieces of the ops tests (not a test file itself): a free TCP port, reading one
 * sample out of a Prometheus exposition, and a real `punchline worker` subprocess on an
 * isolated harness (test/sync-harness.ts) whose ops server answers.
 */
import { createServer } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { spawnPunchline, type Harness } from './sync-harness.js';

/** A TCP port on which nothing listens right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Every sample of metric `name` whose labels include `labels`. */
export function samples(text: string, name: string, labels: Record<string, string> = {}): number[] {
  const out: number[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const inner = open === name.length ? line.slice(open + 1, line.lastIndexOf('}')) : '';
    const got = Object.fromEntries([...inner.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v))
      out.push(Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return out;
}

/** The one sample of `name` with `labels`, or undefined. */
export function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const found = samples(text, name, labels);
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0];
}

/** A `punchline worker` subprocess. */
export interface WorkerProcess {
  /** Base URL of its ops server. */
  readonly url: string;
  /** Its stderr so far (for failure messages). */
  stderr(): string;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts `punchline worker <args>` on the harness and waits until its `/healthz` answers. */
export async function startWorkerProcess(
  h: Harness,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<WorkerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawnPunchline(
    ['worker', ...args],
    h.env({ OPS_PORT: String(port), LOG_LEVEL: 'warn', ...env }),
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 45_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`punchline worker exited with ${child.exitCode}: ${stderr}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`punchline worker did not serve /healthz within 45 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
