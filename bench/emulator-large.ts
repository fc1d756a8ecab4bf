/**
 * Benchmark of the emulator at `--scale large` (5 companies, 5,000 collaborators, two
 * years): start time, and the time and peak RSS of the emulator process while it
 * serves a 31-day `point/getFromPeriod` of one company (1,000 collaborators), then
 * the first `overtime` of that company (which sums two years of history).
 *
 * The emulator runs in a child process so its RSS is its own. Goals (issue 3): start
 * under 2 s, RSS under 300 MB. Run: `node --import tsx bench/emulator-large.ts`.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '../src/emulator/index.js';

const TODAY = '2025-03-15';
const mb = (bytes: number): number => Math.round(bytes / 1048576);

async function serve(): Promise<void> {
  let peak = process.memoryUsage().rss;
  setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5).unref();
  const t0 = performance.now();
  const emu = await startEmulator({ seed: 'bench', scale: 'large', today: TODAY });
  const startMs = performance.now() - t0;
  process.send!({
    kind: 'ready',
    url: emu.url,
    token: emu.headquartersToken,
    startMs,
    rss: process.memoryUsage().rss,
  });
  process.on('message', async (m: { kind: string }) => {
    if (m.kind === 'peak') process.send!({ kind: 'peak', rss: peak, now: process.memoryUsage().rss });
    if (m.kind === 'reset') {
      peak = process.memoryUsage().rss;
      process.send!({ kind: 'reset' });
    }
    if (m.kind === 'stop') {
      await emu.close();
      process.exit(0);
    }
  });
}

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], { execArgv: ['--import', 'tsx'] });
  const next = <T>(kind: string): Promise<T> =>
    new Promise((resolve) => {
      const on = (m: { kind: string }): void => {
        if (m.kind !== kind) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
    });
  const ready = await next<{ url: string; token: string; startMs: number; rss: number }>('ready');
  const headers = { apiServiceToken: ready.token };
  const timed = async (path: string): Promise<{ ms: number; bytes: number; rss: number }> => {
    child.send({ kind: 'reset' });
    await next('reset');
    const t = performance.now();
    const res = await fetch(`${ready.url}/customer/v2/${path}`, { headers });
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
    const ms = performance.now() - t;
    child.send({ kind: 'peak' });
    const peak = await next<{ rss: number }>('peak');
    return { ms, bytes, rss: peak.rss };
  };
  const points = await timed('point/getFromPeriod?begin_date=2025-01-01&end_date=2025-01-31');
  const overtime = await timed('overtime?date=2025-03-14');
  const overtimeAgain = await timed('overtime?date=2025-03-13');
  child.send({ kind: 'stop' });

  const rows: [string, string][] = [
    ['start (scale large)', `${Math.round(ready.startMs)} ms, RSS ${mb(ready.rss)} MB`],
    [
      'point/getFromPeriod, 31 days, 1,000 collaborators',
      `${Math.round(points.ms)} ms, ${mb(points.bytes)} MB of JSON, peak RSS ${mb(points.rss)} MB`,
    ],
    [
      'overtime, first call (two years summed)',
      `${Math.round(overtime.ms)} ms, peak RSS ${mb(overtime.rss)} MB`,
    ],
    ['overtime, next day (cached months)', `${Math.round(overtimeAgain.ms)} ms`],
  ];
  for (const [k, v] of rows) console.log(`${k.padEnd(52)} ${v}`);
  const ok = ready.startMs < 2000 && points.rss < 300 * 1048576;
  console.log(ok ? 'goals met: start < 2 s, RSS < 300 MB' : 'GOALS MISSED: start < 2 s, RSS < 300 MB');
  process.exitCode = ok ? 0 : 1;
}

if (process.argv.includes('--serve')) await serve();
else await main();
