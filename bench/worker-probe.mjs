/**
 * Preloaded into the benchmarked `punchline backfill` process (`node --import
 * ./bench/worker-probe.mjs bin/punchline.js backfill ...`). It changes nothing the sync
 * does; it only listens and, when the process exits, writes what it saw as JSON to the
 * file named by PUNCHLINE_BENCH_PROBE:
 * - `loader`: every span of warehouse work (a COPY batch, a merge), from the sync's
 *   `punchline:warehouse-load` diagnostics channel (src/load/timing.ts):
 *   [startMs, endMs, loader, ok];
 * - `tx`: every warehouse transaction, BEGIN to COMMIT/ROLLBACK on a pg client
 *   (the database's share of the loader time): [startMs, endMs];
 * - `http`: every HTTP attempt, from undici's diagnostics channels: [startMs, endMs];
 * - `marts`: the Postgres CPU of the marts' upkeep, by mart: each statement's span on the
 *   `punchline:marts` channel (src/marts/timing.ts) carries its pg client, whose backend's
 *   run time (`/proc/<pid>/schedstat`, in ns) is read at its start and end;
 * - the process's resident set at its first request (its baseline), at its peak (VmHWM)
 *   and at the end, and its CPU time.
 * Plain JavaScript so it loads before bin/punchline.js registers its TypeScript loader.
 */
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const out = process.env.PUNCHLINE_BENCH_PROBE;

if (out) {
  const loader = [];
  const tx = [];
  const http = [];

  subscribe('punchline:warehouse-load', (m) =>
    loader.push([m.startMs, m.startMs + m.durationMs, m.loader, m.ok]),
  );

  const marts = {};
  const martStarts = new WeakMap();
  subscribe('punchline:marts', ({ phase, mart, client }) => {
    const pid = client?.processID;
    if (!pid) return;
    if (phase === 'start') {
      martStarts.set(client, backendNs(pid));
      return;
    }
    const started = martStarts.get(client);
    martStarts.delete(client);
    const now = backendNs(pid);
    if (started === undefined || now === undefined) return;
    const m = (marts[mart] ??= { statements: 0, cpuNs: 0 });
    m.statements += 1;
    m.cpuNs += now - started;
  });

  // undici (the package the client uses, and Node's fetch) publishes request life cycles.
  const started = new WeakMap();
  let firstRequestRssKb = NaN;
  subscribe('undici:request:create', ({ request }) => {
    // Everything is loaded and connected, no data read yet: the process's baseline.
    if (http.length === 0 && Number.isNaN(firstRequestRssKb)) firstRequestRssKb = rss().rssKb;
    started.set(request, performance.now());
  });
  const end = ({ request }) => {
    const t = started.get(request);
    if (t !== undefined) {
      started.delete(request);
      http.push([t, performance.now()]);
    }
  };
  subscribe('undici:request:trailers', end);
  subscribe('undici:request:error', end);

  // pg is CommonJS: the app's `import pg from 'pg'` gets this same module object.
  const pg = createRequire(import.meta.url)('pg');
  const query = pg.Client.prototype.query;
  const open = new WeakMap();
  pg.Client.prototype.query = function probedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    const result = query.call(this, config, ...rest);
    if (text === 'BEGIN') open.set(this, performance.now());
    else if ((text === 'COMMIT' || text === 'ROLLBACK') && open.has(this)) {
      const t = open.get(this);
      open.delete(this);
      const done = () => tx.push([t, performance.now()]);
      if (result && typeof result.then === 'function') result.then(done, done);
      else done();
    }
    return result;
  };

  process.on('exit', () => {
    const { hwmKb, rssKb } = rss();
    const cpu = process.cpuUsage();
    const report = {
      uptimeMs: performance.now(),
      hwmKb,
      rssKb,
      firstRequestRssKb,
      cpuUserUs: cpu.user,
      cpuSystemUs: cpu.system,
    };
    writeFileSync(out, JSON.stringify({ ...report, loader, tx, http, marts }));
  });
}

/** Time a backend process has run on a CPU so far, ns (`/proc/<pid>/schedstat`); undefined off Linux. */
function backendNs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

/** Peak and current resident set of this process, KiB (NaN off Linux; the bench then polls). */
function rss() {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    return {
      hwmKb: Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1]),
      rssKb: Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]),
    };
  } catch {
    return { hwmKb: NaN, rssKb: NaN };
  }
}
