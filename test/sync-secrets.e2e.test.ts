/**
 * The secrets of the configuration never leave the process that holds them (spec 5 rule
 * 6: the token is a password, never in logs). A worker and two backfills run against the
 * emulator with every secret set — the API token, the pseudonym key, a database password —
 * and meet a revoked token, a job that fails for good and a connection pause. Then
 * everything they wrote is read back: every log line at `trace`, every key and value under
 * the queue prefix in Redis (job data, errors and stack traces included), every row of
 * every table and view of the warehouse and its analyst schema, `punchline status` and
 * each answer of the ops server. None may hold any secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';
import { freePort } from './ops-harness.js';
import { startPunchlineProcess, waitUntil, type PunchlineProcess } from './support/punchline-process.js';
import { TEST_DATABASE_URL } from './support/isolation.js';
import { redisDump, warehouseDump } from './support/dumps.js';

const TODAY = '2026-10-31';
const PSEUDONYM_KEY = 'secrets-e2e-pseudonym-key-5b0e2c7d9a41f3';
const DB_PASSWORD = 'secrets-e2e-db-password-8f31c6';

describe('the secrets of the configuration', () => {
  let h: Harness;
  let env: Record<string, string>;
  let worker: PunchlineProcess;
  let ops: string;
  let token: string;
  const outputs: string[] = [];

  beforeAll(async () => {
    h = await startHarness('secrets', { today: TODAY, latencyMs: 5 });
    token = h.emulator.headquartersToken;
    // Trust authentication ignores the password, but punchline must still keep it to itself.
    const db = new URL(TEST_DATABASE_URL);
    db.password = DB_PASSWORD;
    env = h.env({
      DATABASE_URL: db.toString(),
      LOG_LEVEL: 'trace',
      PSEUDONYM_KEY,
      API_TOKEN_RECHECK_MS: '1000',
    });
    worker = startPunchlineProcess(['worker', '--no-schedules'], {
      ...env,
      OPS_PORT: String(await freePort()),
    });
    ops = String((await worker.waitForLog('worker ready')).ops);
  }, 60_000);
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
    await h?.close();
  });

  it('stay out of logs, errors, job data, Redis, the warehouse, status and the ops server through a sync that meets faults', async () => {
    const hq = h.emulator.companies[0]!;
    expect(env.SERVICE_API_TOKEN).toBe(token);
    const backfill = (args: string[]) => runPunchline(['backfill', '--no-progress', ...args], env);
    const month = ['--from', '2026-09-01', '--to', '2026-09-30'];

    // A revoked token: the preflight refuses (a configuration to fix: exit 2, docs/operations.md "Exit codes").
    h.emulator.revokeToken(hq.cnpj);
    const refused = await backfill(month);
    h.emulator.restoreToken(hq.cnpj);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/rejected the token/);

    // A sync with a day the API refuses for good: one job fails, with its error and stack in Redis and sync_runs.
    h.emulator.queueFault({ kind: 'refuse', endpoint: 'overtime', company: hq.cnpj });
    const synced = await backfill([
      ...month,
      '--resources',
      'companies,lookups,collaborators,punches,hour_bank,absences,absence_attachments',
    ]);
    expect(synced.code).toBe(1);
    expect(synced.stdout).toMatch(/1 failed/);
    outputs.push(refused.stdout, refused.stderr, synced.stdout, synced.stderr);

    // The token revoked under the running worker: the connection pauses, /healthz and status say why.
    const rt = await h.runtime();
    h.emulator.revokeToken(hq.cnpj);
    await rt.queues.sync.add(
      'tardiness',
      {
        connection: 'default',
        resource: 'tardiness',
        company: hq.cnpj,
        from: '2026-08-01',
        to: '2026-08-31',
        scoped: true,
      },
      { jobId: 'secrets-paused' },
    );
    await waitUntil(
      'the connection to pause',
      async () => /"paused"/.test(await (await fetch(`${ops}/healthz`)).text()),
      30_000,
    );
    const status = await runPunchline(['status'], env);
    const statusJson = await runPunchline(['status', '--json'], env);
    outputs.push(status.stdout, status.stderr, statusJson.stdout, statusJson.stderr);
    for (const path of [
      '/healthz',
      '/metrics',
      '/status',
      '/status.json',
      '/dashboard/api/queues?activeQueue=sync&status=failed&page=1&jobsPerPage=50',
      '/dashboard/api/queues?activeQueue=sync&status=delayed&page=1',
    ]) {
      outputs.push(await (await fetch(`${ops}${path}`)).text());
    }
    expect(outputs.at(-3)).toMatch(/"pausedConnections": \[\s*\{\s*"connection": "default"/);
    h.emulator.restoreToken(hq.cnpj);
    await waitUntil(
      'the paused job to complete',
      async () => (await rt.queues.sync.getJobState('secrets-paused')) === 'completed',
      60_000,
    );

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    outputs.push(worker.stdout(), worker.lines.join('\n'));

    const redis = await redisDump(h.redis, h.prefix);
    const warehouse = await warehouseDump(h.pool, [h.schema, `${h.schema}_analyst`]);
    // The dumps hold what was sought: jobs with their failures, the warehouse with the sync's rows.
    expect(redis).toMatch(/stacktrace/);
    expect(warehouse).toMatch(/validation_failed/);
    expect(outputs.join('\n').split('\n').length).toBeGreaterThan(100);

    const places = { logs_and_outputs: outputs.join('\n'), redis, warehouse };
    const found = Object.entries(places).flatMap(([place, text]) =>
      Object.entries({ token, PSEUDONYM_KEY, DB_PASSWORD })
        .filter(([, secret]) => text.includes(secret))
        .map(([secret]) => `${secret} in ${place}`),
    );
    expect(found).toEqual([]);
  }, 240_000);
});
