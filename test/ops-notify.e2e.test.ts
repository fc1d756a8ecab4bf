/**
 * Webhook alerts from a real `punchline worker` process (NOTIFY_WEBHOOK_URL_FILE) syncing
 * from the emulator, received by a local HTTP server: the API rejecting the token, a job
 * failing for good and stale data each arrive once, and the URL never shows in the
 * worker's logs.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationMessage } from '../src/alerts/notify.js';
import { jobIdFor } from '../src/plan/job-ids.js';
import type { SyncJobData } from '../src/plan/job-data.js';
import { startHarness, type Harness } from './sync-harness.js';
import { startWorkerProcess, type WorkerProcess } from './ops-harness.js';

const TODAY = '2025-03-12';
const SECRET_PATH = '/hooks/punchline-e2e-7c1d9b';
let h: Harness;
let worker: WorkerProcess;
let receiver: Server;
const received: NotificationMessage[] = [];
const dir = mkdtempSync(join(tmpdir(), 'punchline-notify-'));

async function waitFor(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(
        `${what}; received ${JSON.stringify(received)}; worker: ${worker.stderr().slice(-2000)}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

beforeAll(async () => {
  h = await startHarness('opsnotify', { today: TODAY });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += String(d)));
    req.on('end', () => {
      if (req.url === SECRET_PATH) received.push(JSON.parse(body) as NotificationMessage);
      res.writeHead(req.url === SECRET_PATH ? 200 : 404).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const urlFile = join(dir, 'webhook-url');
  writeFileSync(urlFile, `http://127.0.0.1:${(receiver.address() as { port: number }).port}${SECRET_PATH}\n`);
  // A company whose punches last synced three hours ago: stale at the worker's first check.
  const cnpj = h.emulator.companies[0]!.cnpj;
  await h.pool.query(
    `insert into "${h.schema}".sync_runs (connection, resource, company_cnpj, status, started_at, finished_at)
     values ('default', 'punches', $1, 'succeeded', now() - interval '3 hours', now() - interval '3 hours')`,
    [cnpj],
  );
  worker = await startWorkerProcess(h, ['--no-schedules'], {
    NOTIFY_WEBHOOK_URL_FILE: urlFile,
    SERVICE_API_TOKEN: 'not-the-token-of-this-group',
    LOG_LEVEL: 'info',
  });
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a worker with NOTIFY_WEBHOOK_URL_FILE', () => {
  it('announces stale data found by its periodic check', async () => {
    await waitFor(() => received.some((m) => m.condition === 'stale'), 'no stale message');
    expect(received.filter((m) => m.condition === 'stale')).toEqual([
      expect.objectContaining({
        state: 'raised',
        company: h.emulator.companies[0]!.cnpj,
        resource: 'punches',
      }),
    ]);
  });

  it('announces once that the API rejected the token, not once per failing job', async () => {
    const rt = await h.runtime();
    for (const company of h.emulator.companies.map((c) => c.cnpj)) {
      const data: SyncJobData = {
        connection: 'default',
        resource: 'collaborators',
        company,
        scoped: false,
        origin: 'backfill',
        force: false,
        followUp: false,
      };
      await rt.queues.sync.add(data.resource, data, { jobId: jobIdFor(data) });
    }
    await waitFor(() => received.some((m) => m.condition === 'token_rejected'), 'no token message');
    await waitFor(
      async () => (await rt.queues.sync.getDelayedCount()) === h.emulator.companies.length,
      'jobs not paused yet',
    );
    const token = received.filter((m) => m.condition === 'token_rejected');
    expect(token).toEqual([expect.objectContaining({ state: 'raised', connection: 'default' })]);
    expect(token[0]!.text).toContain('rejected the token of connection "default"');
    expect(received.filter((m) => m.condition === 'job_failed')).toEqual([]);
  });

  it('announces a job that failed for good', async () => {
    const rt = await h.runtime();
    await rt.queues.sync.add('broken', { resource: 'lookups' }, { jobId: 'broken-for-good', attempts: 1 });
    await waitFor(() => received.some((m) => m.condition === 'job_failed'), 'no job_failed message');
    const failed = received.filter((m) => m.condition === 'job_failed');
    expect(failed).toEqual([
      expect.objectContaining({ state: 'raised', resource: 'lookups', connection: null }),
    ]);
    expect(failed[0]!.detail).toMatch(/^job broken-for-good: invalid job data/);
  });

  it('never writes the webhook URL in its logs', () => {
    expect(worker.stderr()).toMatch(/notification sent/);
    expect(worker.stderr()).not.toContain(SECRET_PATH);
    expect(worker.stderr()).not.toContain('punchline-e2e-7c1d9b');
  });
});
