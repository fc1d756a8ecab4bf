/**
 * The log lines of real jobs (`punchline backfill` against the emulator, with a glitch
 * that fails one attempt, a window the API refuses to serve whole, and a request it
 * refuses for good): every line of a job says which job, connection, company, resource
 * and window it is about and which worker process wrote it (as `sync_runs.worker`
 * does), and every error is under `err` with its type, message and stack.
 */
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';

type Line = Record<string, unknown>;

const TODAY = '2026-10-31';
const WINDOW = /^\d{4}-\d\d-\d\d\.\.\d{4}-\d\d-\d\d$/;

describe('the log lines of a backfill', () => {
  let h: Harness;
  let lines: Line[];
  let stderr: string;
  let code: number | null;

  beforeAll(async () => {
    h = await startHarness('joblogs', { today: TODAY });
    const [first, second] = h.emulator.companies;
    // One attempt of a punches window fails (no retry inside the job), a punches window is
    // refused whole once and read in halves, and a tardiness window is refused for good.
    h.emulator.queueFault({ kind: 'html', endpoint: 'point/getFromPeriod', company: first!.cnpj });
    h.emulator.queueFault({ kind: 'range-exceeded', endpoint: 'point/getFromPeriod', company: second!.cnpj });
    h.emulator.queueFault({ kind: 'refuse', endpoint: 'tardiness', company: first!.cnpj });
    const r = await runPunchline(
      [
        'backfill',
        '--from',
        '2026-06-01',
        '--to',
        '2026-06-30',
        '--resources',
        'punches,tardiness',
        '--no-progress',
      ],
      h.env({ LOG_LEVEL: 'info', API_MAX_ATTEMPTS: '1' }),
    );
    ({ stderr, code } = r);
    lines = stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Line);
  }, 120_000);

  afterAll(async () => {
    await h?.close();
  });

  const jobLines = () => lines.filter((l) => 'job' in l);
  const byMsg = (msg: string) => lines.filter((l) => l.msg === msg);

  it('ran the jobs with the glitches it was given (the premise)', () => {
    expect(code, stderr.slice(-2000)).toBe(1);
    expect(byMsg('job attempt failed').length).toBeGreaterThan(0);
    expect(byMsg('job failed').length).toBeGreaterThan(0);
    expect(byMsg('splitting window').length).toBeGreaterThan(0);
  });

  it('gives every line of a job its connection, company, resource, window and worker', () => {
    const host = hostname();
    expect(jobLines().length).toBeGreaterThan(2);
    for (const l of jobLines()) {
      expect(l, String(l.msg)).toMatchObject({
        job: expect.any(String),
        queue: expect.stringMatching(/^(sync|followups)$/),
        connection: 'default',
        company: expect.stringMatching(/^\d{14}$/),
        resource: expect.stringMatching(/^(punches|tardiness)$/),
        window: expect.stringMatching(WINDOW),
        host,
        worker: `${host}:${String(l.pid)}`,
      });
      expect(Object.keys(l).filter((k) => k === 'window')).toHaveLength(1);
    }
  });

  it('names the same worker as the run it records in sync_runs', async () => {
    const failed = byMsg('job failed')[0]!;
    const { rows } = await h.pool.query<{ worker: string; company_cnpj: string; resource: string }>(
      `select worker, company_cnpj, resource from "${h.schema}".sync_runs where job_id = $1`,
      [failed.job],
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows)
      expect({ worker: r.worker, company: r.company_cnpj, resource: r.resource }).toEqual({
        worker: failed.worker,
        company: failed.company,
        resource: failed.resource,
      });
  });

  it('logs every error under err, with its type, message and stack', () => {
    const errors = lines.filter((l) => 'err' in l);
    expect(errors.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['job attempt failed', 'job failed', 'splitting window']),
    );
    for (const l of errors) {
      expect(l.err, String(l.msg)).toMatchObject({
        type: expect.any(String),
        message: expect.any(String),
        stack: expect.stringContaining('\n    at '),
      });
    }
    expect(lines.filter((l) => 'error' in l).map((l) => l.msg)).toEqual([]);
    expect((byMsg('job failed')[0]!.err as Line).message).toMatch(/validation_failed/);
    expect(stderr).not.toContain(h.emulator.headquartersToken);
  });
});
