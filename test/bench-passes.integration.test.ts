/**
 * The passes the benchmark adds for issue 23 against real services: the plain
 * `JSON.parse` of the workload's bodies over HTTP from the emulator, and the example
 * questions of docs/warehouse.md timed on a migrated warehouse in Postgres.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { migrate } from '../src/migrations/migrate.js';
import { timeExampleQuestions, warehouseDocQuestions } from '../bench/example-questions.js';
import { jsonParsePass, parseCpuSeconds } from '../bench/json-parse-pass.js';
import { fetchAll, SourceFloorError } from '../bench/source-floor.js';
import { planWorkload } from '../bench/workload.js';
import { connectPostgres, dropSchema, TEST_DATABASE_URL, uniqueName } from './support/isolation.js';

describe('the JSON.parse pass', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ scale: 40, seed: 'bench', today: '2025-06-30' });
  });
  afterAll(async () => {
    await emulator?.close();
  });
  const workload = () =>
    planWorkload({
      companies: emulator.companies.map((c) => c.cnpj),
      resources: ['collaborators', 'punches', 'hour_bank'],
      from: '2025-05-01',
      to: '2025-05-03',
      today: '2025-06-30',
    });
  const options = () => ({
    baseUrl: emulator.url,
    token: emulator.headquartersToken,
    concurrency: 2,
    rps: 1000,
  });

  it('parses every body the source floor reads, byte for byte, and times the parse calls in CPU', async () => {
    const requests = workload();
    const floor = await fetchAll(requests, options());
    const parsed = await jsonParsePass(requests, options());
    expect(parsed.requests).toBe(requests.length);
    expect(parsed.bytes).toBe(floor.bytes);
    expect(parsed.cpuS).toBeGreaterThan(0);
    expect(parsed.nsPerByte).toBeCloseTo((parsed.cpuS / parsed.bytes) * 1e9, 6);
  });

  it('hands each whole body to a pass that asks for them', async () => {
    const requests = workload().filter((r) => r.endpoint === 'point/getFromPeriod');
    const bodies: Buffer[] = [];
    const pass = await fetchAll(requests, {
      ...options(),
      onBody: (chunks) => bodies.push(Buffer.concat(chunks)),
    });
    expect(bodies).toHaveLength(requests.length);
    expect(bodies.reduce((n, b) => n + b.length, 0)).toBe(pass.bytes);
    for (const b of bodies) expect(JSON.parse(b.toString('utf8'))).toHaveProperty('data');
  });

  it('fails naming the pass when a request does not answer 200', async () => {
    const bad = [{ endpoint: 'nope', path: '/customer/v2/nope' }];
    await expect(jsonParsePass(bad, options())).rejects.toThrow(SourceFloorError);
    await expect(jsonParsePass(bad, options())).rejects.toThrow(
      /nope answered 404 during the JSON\.parse pass/,
    );
  });

  it('lets a body that is not JSON fail the parse', () => {
    expect(parseCpuSeconds('{"data":[1,2,3]}')).toBeGreaterThanOrEqual(0);
    expect(() => parseCpuSeconds('{"data":[1,2')).toThrow(SyntaxError);
  });
});

describe('the example questions, timed', () => {
  const schema = uniqueName('bench_questions');
  let pool: pg.Pool;
  beforeAll(async () => {
    pool = await connectPostgres();
    await migrate(TEST_DATABASE_URL, schema);
  });
  afterAll(async () => {
    await dropSchema(pool, schema);
    await pool?.end();
  });

  it('asks every question of docs/warehouse.md three times of the schema', async () => {
    const timed = await timeExampleQuestions(pool, schema);
    expect(timed.map((q) => q.name)).toEqual(warehouseDocQuestions(schema).map((q) => q.name));
    for (const q of timed) {
      expect(q.runsMs, q.name).toHaveLength(3);
      expect(q.timedOut, q.name).toBeUndefined();
      // A freshly migrated warehouse answers every question with no rows.
      expect(q.rows, q.name).toBe(0);
    }
  });

  it('counts the rows each question answers', async () => {
    const [q] = await timeExampleQuestions(pool, schema, {
      times: 2,
      questions: [{ name: 'three', sql: 'select generate_series(1, 3)' }],
    });
    expect(q).toMatchObject({ name: 'three', rows: 3 });
    expect(q!.runsMs).toHaveLength(2);
  });

  it('records a run Postgres cancels at the timeout, and goes on', async () => {
    // One connection, so the check below meets the one the questions ran on.
    const single = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
    onTestFinished(() => single.end());
    const timed = await timeExampleQuestions(single, schema, {
      times: 2,
      timeoutMs: 50,
      questions: [
        { name: 'slow', sql: 'select pg_sleep(2)' },
        { name: 'quick', sql: 'select 1' },
      ],
    });
    expect(timed[0]).toEqual({ name: 'slow', runsMs: [50, 50], rows: 0, timedOut: true });
    expect(timed[1]).toMatchObject({ name: 'quick', rows: 1 });
    // The connection goes back to the pool without the bench's timeout.
    const { rows } = await single.query<{ statement_timeout: string }>('show statement_timeout');
    expect(rows[0]!.statement_timeout).toBe('0');
  });

  it('fails naming the question when it is not valid SQL', async () => {
    await expect(
      timeExampleQuestions(pool, schema, {
        questions: [{ name: 'broken', sql: 'select from nowhere_at_all' }],
      }),
    ).rejects.toThrow(/example question "broken" failed: relation "nowhere_at_all" does not exist/);
  });
});
