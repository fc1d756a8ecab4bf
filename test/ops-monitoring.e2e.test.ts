/**
 * A `punchline worker` that synced from the emulator, as a monitoring stack sees it: a
 * real Prometheus (Debian's binary, on a free port, with the alert rules of deploy/)
 * scrapes it and answers queries for freshness and rows loaded; and `punchline status
 * --json`, `/metrics` and the warehouse's `sync_freshness` view agree at one instant.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import type { StatusReport } from '../src/reports/status-report.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';
import { freePort, samples, startWorkerProcess, type WorkerProcess } from './ops-harness.js';
import { debianTool } from './support/debian-tools.js';

const TODAY = '2025-03-12';
const RULES = fileURLToPath(new URL('../deploy/prometheus/alerts.yml', import.meta.url));
const prometheusTool = debianTool('prometheus');

/** A Prometheus server of this test: scrapes one target every second, stores in a temp dir. */
interface RunningPrometheus {
  readonly url: string;
  query(promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]>;
  stop(): Promise<void>;
}

async function startPrometheus(binary: string, target: string): Promise<RunningPrometheus> {
  const dir = mkdtempSync(join(tmpdir(), 'punchline-prometheus-'));
  const port = await freePort();
  writeFileSync(
    join(dir, 'prometheus.yml'),
    [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      `rule_files: ['${RULES}']`,
      'scrape_configs:',
      '  - job_name: punchline',
      `    static_configs: [{ targets: ['${target}'] }]`,
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--storage.tsdb.retention.time=1h',
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`prometheus exited with ${child.exitCode}: ${stderr}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready within 60 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as {
        status: string;
        data: { result: { metric: Record<string, string>; value: [number, string] }[] };
      };
      if (body.status !== 'success') throw new Error(`prometheus query failed: ${JSON.stringify(body)}`);
      return body.data.result;
    },
    stop,
  };
}

/** Polls `promql` until `done` holds for its result (bounded). */
async function eventually<T>(
  read: () => Promise<T>,
  done: (v: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`${what}: still ${JSON.stringify(v).slice(0, 500)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

let h: Harness;
let worker: WorkerProcess;
let summary: BackfillSummary;
let prometheus: RunningPrometheus | undefined;

beforeAll(async () => {
  h = await startHarness('opsmon', { today: TODAY });
  worker = await startWorkerProcess(h, ['--no-schedules']);
  const rt = await h.runtime();
  summary = await runBackfill(
    rt,
    {
      from: '2025-03-03',
      to: '2025-03-07',
      resources: ['companies', 'collaborators', 'punches'],
      connections: rt.config.connections,
      force: false,
      progress: false,
    },
    { work: false, pollMs: 100 },
  );
  if (!prometheusTool.skip)
    prometheus = await startPrometheus(prometheusTool.need(), new URL(worker.url).host);
}, 180_000);

afterAll(async () => {
  await prometheus?.stop();
  await worker?.stop();
  await h?.close();
});

describe('a real Prometheus scraping the worker', () => {
  it('synced without failures (the premise)', () => {
    expect(summary.failed, worker.stderr()).toBe(0);
    expect(summary.succeeded).toBeGreaterThan(0);
  });

  it('has the freshness of every company and resource', async (ctx) => {
    if (!prometheus) return ctx.skip(prometheusTool.reason);
    const companies = h.emulator.companies.map((c) => c.cnpj).sort();
    const result = await eventually(
      () => prometheus!.query('max by (company, resource) (punchline_sync_age_seconds{job="punchline"})'),
      (r) => r.filter((s) => s.metric.resource === 'punches').length === companies.length,
      'punchline_sync_age_seconds in Prometheus',
    );
    const punches = result.filter((s) => s.metric.resource === 'punches');
    expect(punches.map((s) => s.metric.company).sort()).toEqual(companies);
    for (const s of punches) expect(Number(s.value[1])).toBeLessThan(600);
    expect(
      result.find((s) => s.metric.company === 'group' && s.metric.resource === 'companies'),
    ).toBeDefined();
    const stale = await prometheus.query(
      'max by (company, resource) (punchline_sync_stale{resource="punches"})',
    );
    expect(stale.map((s) => Number(s.value[1]))).toEqual(companies.map(() => 0));
  });

  it('has the rows loaded per table, as many as the warehouse holds', async (ctx) => {
    if (!prometheus) return ctx.skip(prometheusTool.reason);
    const { rows } = await h.pool.query<{ n: number }>(
      `select count(*)::int as n from "${h.schema}".punches`,
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    const result = await eventually(
      () =>
        prometheus!.query('sum by (table) (punchline_rows_loaded_total{action="inserted", table="punches"})'),
      (r) => r.length === 1 && Number(r[0]!.value[1]) === rows[0]!.n,
      'punchline_rows_loaded_total in Prometheus',
    );
    expect(result[0]!.metric.table).toBe('punches');
  });

  it('evaluates the alert rules of deploy/ without errors, none of them firing', async (ctx) => {
    if (!prometheus) return ctx.skip(prometheusTool.reason);
    type Rules = {
      data: { groups: { name: string; rules: { name: string; health: string; state?: string }[] }[] };
    };
    const alertsOf = (r: Rules) => r.data.groups.flatMap((g) => g.rules).filter((x) => x.state !== undefined);
    // Until the first scrape lands, "no worker alive" holds: wait for an evaluation after it.
    const rules = await eventually(
      async () => (await (await fetch(`${prometheus!.url}/api/v1/rules`)).json()) as Rules,
      (r) =>
        r.data.groups.length === 2 &&
        r.data.groups.every((g) => g.rules.every((x) => x.health === 'ok')) &&
        alertsOf(r).some((a) => a.name === 'PunchlineNoWorkerAlive' && a.state === 'inactive'),
      'rule health',
    );
    expect(alertsOf(rules).length).toBe(7);
    expect(
      alertsOf(rules)
        .filter((a) => a.state === 'firing')
        .map((a) => a.name),
    ).toEqual([]);
  });
});

describe('punchline status --json, /metrics and sync_freshness', () => {
  it('agree at one instant: same companies x resources, same last-success times, same staleness', async () => {
    const view = async () =>
      (
        await h.pool.query<{ company_cnpj: string | null; resource: string; last_success_at: Date }>(
          `select company_cnpj, resource, last_success_at from "${h.schema}".sync_freshness order by 1, 2`,
        )
      ).rows.map((r) => `${r.company_cnpj ?? 'group'}|${r.resource}|${r.last_success_at.toISOString()}`);
    const before = await view();
    const [status, scrape] = await Promise.all([
      runPunchline(['status', '--json'], h.env()),
      fetch(`${worker.url}/metrics`).then((r) => r.text()),
    ]);
    expect(await view(), 'the warehouse changed while reading').toEqual(before);
    expect(status.code, status.stderr).toBe(0);
    const report = JSON.parse(status.stdout) as StatusReport;

    expect(before.length).toBeGreaterThan(h.emulator.companies.length);
    const fromStatus = report
      .freshness!.filter((f) => f.lastSuccessAt !== null)
      .map((f) => `${f.company}|${f.resource}|${f.lastSuccessAt}`);
    expect(fromStatus.sort()).toEqual([...before].sort());

    const series = (name: string) =>
      scrape
        .split('\n')
        .filter((l) => l.startsWith(`${name}{`))
        .map((l) => {
          const labels = Object.fromEntries([...l.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
          return {
            company: labels.company!,
            resource: labels.resource!,
            value: Number(l.slice(l.lastIndexOf(' ') + 1)),
          };
        });
    const fromMetrics = series('punchline_sync_freshness_timestamp_seconds').map(
      (s) => `${s.company}|${s.resource}|${new Date(Math.round(s.value * 1000)).toISOString()}`,
    );
    expect(fromMetrics.sort()).toEqual([...before].sort());

    // Never-synced combinations too: status and /metrics list the same ones, equally stale.
    const staleStatus = report.freshness!.map((f) => `${f.company}|${f.resource}|${f.stale ? 1 : 0}`).sort();
    const staleMetrics = series('punchline_sync_stale')
      .map((s) => `${s.company}|${s.resource}|${s.value}`)
      .sort();
    expect(staleMetrics).toEqual(staleStatus);
    expect(samples(scrape, 'punchline_sync_age_seconds').length).toBe(before.length);
  });
});
