/**
 * The local half of `punchline push`: reading CSV and JSONL files, reading column
 * values, preparing rows of a kind (files, references), the summary, the exit code
 * and the sync jobs a push queues.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/commands/context.js';
import { readField } from '../src/push/fields.js';
import { detectDelimiter, readRows, type ColumnRules, type RawRow } from '../src/push/input.js';
import { PUSH_KINDS, WRITE_KINDS } from '../src/push/kinds/index.js';
import { allRowsDone, countOutcomes } from '../src/push/outcomes.js';
import { columnRules, isPrepared, prepareRows } from '../src/push/prepare.js';
import { spreadsheetText, summaryLines, writeReport } from '../src/push/report.js';
import { parse } from 'csv-parse/sync';
import { pushSyncJobs } from '../src/push/sync-after.js';
import { writeErrorResult, type PushResult } from '../src/push/engine.js';
import { pushProgressLine } from '../src/push/progress.js';
import { ApiError } from '../src/api/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'push-input-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function all(gen: AsyncGenerator<RawRow>): Promise<RawRow[]> {
  const out: RawRow[] = [];
  for await (const r of gen) out.push(r);
  return out;
}

const RULES: ColumnRules = {
  accepted: ['national_registry', 'datetime', 'note'],
  required: [['national_registry'], ['datetime']],
};
/** A 1x1 PNG (header bytes are what the local check reads). */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4df0000000049454e44ae426082',
  'hex',
);

describe('reading a CSV file', () => {
  it('takes ";" or "," from the header, strips a BOM, honours quotes and numbers rows by line', async () => {
    const semi = file(
      'semi.csv',
      '\uFEFFnational_registry;datetime;note\n52998224725;2026-05-04 08:00:00;"a; b"\n\n52998224725;2026-05-04 12:00:00;"say ""hi"""\n',
    );
    expect(await all(readRows(semi, 'csv', RULES))).toEqual([
      {
        line: 2,
        values: { national_registry: '52998224725', datetime: '2026-05-04 08:00:00', note: 'a; b' },
      },
      {
        line: 4,
        values: { national_registry: '52998224725', datetime: '2026-05-04 12:00:00', note: 'say "hi"' },
      },
    ]);
    const comma = file('comma.csv', 'datetime,national_registry\r\n2026-05-04 08:00:00,52998224725\r\n');
    expect(await all(readRows(comma, 'csv', RULES))).toEqual([
      { line: 2, values: { datetime: '2026-05-04 08:00:00', national_registry: '52998224725' } },
    ]);
    expect(detectDelimiter('a;b,c;d')).toBe(';');
    expect(detectDelimiter('description')).toBe(',');
  });

  it('reports a line with the wrong number of cells as that row’s error and goes on', async () => {
    const broken = file(
      'broken.csv',
      'national_registry,datetime\n52998224725,2026-05-04 08:00:00\n52998224725\n52998224725,2026-05-04 12:00:00\n',
    );
    const rows = await all(readRows(broken, 'csv', RULES));
    expect(rows.map((r) => r.line)).toEqual([2, 3, 4]);
    expect(rows[1]).toMatchObject({
      line: 3,
      error: expect.stringMatching(/not a valid CSV record: Invalid Record Length/),
    });
  });

  it('refuses the whole file for an unknown, duplicate or missing column, or a quote never closed', async () => {
    const cases: [string, RegExp][] = [
      [
        'national_registry,datetime,colour\n1,2,3\n',
        /unknown column "colour" \(accepted: national_registry, datetime, note\)/,
      ],
      ['national_registry,datetime,datetime\n1,2,3\n', /column "datetime" appears twice/],
      ['national_registry,note\n1,2\n', /missing column "datetime"/],
      [
        'national_registry,datetime\n52998224725,2026-05-03 08:00:00\n52998224725,"2026-05-04\n52998224725,2026-05-05 08:00:00\n',
        /a quoted field opened after line 2 is never closed/,
      ],
    ];
    for (const [i, [content, message]] of cases.entries()) {
      const path = file(`bad${i}.csv`, content);
      const error = await all(readRows(path, 'csv', RULES)).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, content).toBeInstanceOf(UsageError);
      expect((error as Error).message, content).toMatch(message);
    }
  });
});

describe('reading a JSONL file', () => {
  it('reads one object per line, skips blank lines, and makes a broken line or an unknown field that row’s error', async () => {
    const path = file(
      'rows.jsonl',
      '{"national_registry":"52998224725","datetime":"2026-05-04 08:00:00"}\n\n{"national_registry": 52998224725,\nnot json\n[1,2]\n{"national_registry":"1","datetime":"x","colour":"red"}\n',
    );
    const rows = await all(readRows(path, 'jsonl', RULES));
    expect(rows.map((r) => [r.line, 'error' in r ? r.error.slice(0, 20) : 'ok'])).toEqual([
      [1, 'ok'],
      [3, 'not valid JSON: Expe'],
      [4, 'not valid JSON: Unex'],
      [5, 'not a JSON object'],
      [6, 'unknown field "colou'],
    ]);
  });
});

describe('reading a value', () => {
  it('reads the spec formats and names the column and the expectation when it cannot', () => {
    expect(readField('national_registry', 'cpf', '529.982.247-25')).toBe('52998224725');
    expect(readField('national_registry', 'cpf', '1234567890')).toBe('01234567890');
    expect(() => readField('national_registry', 'cpf', '52998224726')).toThrow(
      /52998224726 is not a valid CPF/,
    );
    expect(readField('national_registry', 'cpfs', '52998224725 | 01234567890|52998224725')).toEqual([
      '52998224725',
      '01234567890',
    ]);
    expect(readField('datetime', 'datetime', '2026-05-04T08:00')).toBe('2026-05-04 08:00:00');
    expect(() => readField('datetime', 'datetime', '2026-02-30 08:00:00')).toThrow(
      /datetime: expected a local date-time/,
    );
    expect(readField('paid', 'boolean', '1')).toBe(true);
    expect(readField('paid', 'boolean', false)).toBe(false);
    expect(() => readField('paid', 'boolean', 'yes')).toThrow(/paid: expected 1 or 0/);
    expect(readField('department_id', 'integer', ' 12 ')).toBe(12);
    expect(() => readField('department_id', 'integer', '12a')).toThrow(
      /department_id: expected a whole number/,
    );
    expect(readField('description', 'text', '   ')).toBeUndefined();
    expect(() => readField('photo_base64', 'base64', 'data:image/png;base64,AAAA')).toThrow(
      /without the data:/,
    );
  });
});

describe('preparing the rows of a kind', () => {
  it('checks types, references and files before anything is sent, one reason per invalid row', async () => {
    file('face.png', PNG);
    file('notes.txt', 'not an image');
    file('big.png', Buffer.concat([PNG, Buffer.alloc(2048)]));
    const photos = file(
      'photos.csv',
      [
        'national_registry,photo,photo_base64',
        '52998224725,face.png,',
        '52998224725,missing.png,',
        '52998224725,notes.txt,',
        '52998224725,big.png,',
        `52998224725,,${PNG.toString('base64')}`,
        '52998224725,face.png,' + PNG.toString('base64'),
      ].join('\n'),
    );
    const rows = await prepareRows(WRITE_KINDS.photos, photos, { maxFileBytes: 1024 });
    expect(rows).toHaveLength(6);
    expect(isPrepared(rows[0]!)).toBe(true);
    const reasons = rows.map((r) => (isPrepared(r) ? 'ok' : r.message));
    expect(reasons[1]).toMatch(
      /photo: missing.png does not exist \(paths are relative to the files folder\)/,
    );
    expect(reasons[2]).toMatch(/photo: notes.txt is not a JPEG or PNG image/);
    expect(reasons[3]).toMatch(
      /photo: big.png is 2.\d KiB, above the limit of 1 KiB \(PUSH_MAX_FILE_BYTES\)/,
    );
    expect(reasons[4]).toBe('ok');
    // both forms given: the kind's own rule refuses it later, when the body is built
    expect(reasons[5]).toBe('ok');

    const collaborators = file(
      'collaborators.jsonl',
      '{"name":"A","national_registry":"52998224725","email":"a@b.co","birth_date":"1990-01-01","begin_date":"2026-01-01","department_id":3,"department":"Vendas"}\n',
    );
    const [row] = await prepareRows(WRITE_KINDS.collaborators, collaborators, { maxFileBytes: 1024 });
    expect(isPrepared(row!)).toBe(false);
    expect((row as { message: string }).message).toMatch(/give department_id or department, not both/);
    expect((row as { message: string }).message).toMatch(/journey_id or journey: missing/);
  });
});

describe('the summary and the exit code', () => {
  const rows = [
    { line: 2, outcome: 'created' as const, key: '52998224725|2026-05-04 08:00:00', id: '9001' },
    {
      line: 3,
      outcome: 'skipped' as const,
      key: '52998224725|2026-05-04 08:00:00',
      code: 'duplicate_in_file',
      message: 'the same entity as line 2',
    },
    {
      line: 4,
      outcome: 'refused' as const,
      key: '52998224725|2099-01-01 08:00:00',
      code: 'date_time_greater_than_now',
      message: 'POST point: 422 date_time_greater_than_now: in the future',
    },
  ];
  const result: PushResult = {
    kind: 'punches',
    file: 'p.csv',
    applied: true,
    rows,
    counts: countOutcomes(rows),
    touched: [],
    interrupted: false,
  };

  it('lists every row that was not created with its reason, and counts as done only when all were created or skipped', () => {
    const lines = summaryLines(result);
    expect(lines[0]).toBe('push punches: 3 rows in p.csv: 1 created, 1 skipped, 1 refused');
    expect(lines).toContain(
      '  line 4: refused: 52998224725|2099-01-01 08:00:00: date_time_greater_than_now: POST point: 422 date_time_greater_than_now: in the future',
    );
    expect(allRowsDone(rows)).toBe(false);
    expect(allRowsDone(rows.slice(0, 2))).toBe(true);
    expect(allRowsDone([{ line: 2, outcome: 'would_create' }])).toBe(true);
    expect(allRowsDone([{ line: 2, outcome: 'invalid' }])).toBe(false);
  });
});

describe('the CSV report', () => {
  it('writes a cell a spreadsheet would run as a formula as text, and leaves the others as they are', async () => {
    const hostile = ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'];
    const rows = hostile.map((text, i) => ({
      line: i + 2,
      outcome: 'invalid' as const,
      key: text,
      code: 'invalid_row',
      message: `${text}: bad`,
    }));
    rows.push({
      line: 8,
      outcome: 'invalid' as const,
      key: '52998224725|2026-05-04 08:00:00',
      code: 'invalid_row',
      message: 'datetime: not a date',
    });
    const path = join(dir, 'report.csv');
    await writeReport(path, {
      kind: 'punches',
      file: 'p.csv',
      applied: false,
      rows,
      counts: countOutcomes(rows),
      touched: [],
      interrupted: false,
    });
    const records = parse(readFileSync(path, 'utf8'), { columns: true }) as {
      key: string;
      message: string;
    }[];
    expect(records.map((r) => r.key)).toEqual([
      ...hostile.map((t) => `'${t}`),
      '52998224725|2026-05-04 08:00:00',
    ]);
    expect(records.map((r) => r.message)).toEqual([
      ...hostile.map((t) => `'${t}: bad`),
      'datetime: not a date',
    ]);
    expect(spreadsheetText('12,5')).toBe('12,5');
  });
});

describe('the sync a push queues', () => {
  it('queues the company’s directory resources and the calendar months of punches and absences', () => {
    const target = { connection: 'default', company: '60000341000199', scoped: true };
    const jobs = pushSyncJobs(target, [
      { resource: 'collaborators' },
      { resource: 'punches', window: { from: '2026-05-01', to: '2026-05-31' } },
      { resource: 'absences', window: { from: '2026-06-01', to: '2026-06-30' } },
    ]);
    expect(jobs.map((j) => j.id)).toEqual([
      'collaborators.default.60000341000199',
      'punches.default.60000341000199.2026-05-01.2026-05-31',
      'absences.default.60000341000199.2026-06-01.2026-06-30',
    ]);
    expect(jobs.every((j) => j.data.origin === 'push' && j.data.scoped === true)).toBe(true);
    expect(jobs.find((j) => j.name === 'absences')!.data.followUp).toBe(true);
    expect(pushSyncJobs(target, [])).toEqual([]);
  });
});

describe('docs/push.md', () => {
  it('names every kind and every column each kind accepts', () => {
    const doc = readFileSync(new URL('../docs/push.md', import.meta.url), 'utf8');
    for (const kind of PUSH_KINDS) {
      expect(doc, kind).toContain(`\`${kind}\``);
      for (const column of columnRules(WRITE_KINDS[kind]).accepted)
        expect(doc, `${kind}.${column}`).toContain(`\`${column}\``);
    }
  });
});

describe('how a failed write is reported', () => {
  it('is refused for an API answer, failed when the answer is not conclusive, and stops the run on a rejected token', () => {
    const endpoint = 'POST point';
    expect(
      writeErrorResult(
        new ApiError('date_time_greater_than_now', { endpoint, status: 422, message: 'in the future' }),
      ),
    ).toMatchObject({
      outcome: 'refused',
      code: 'date_time_greater_than_now',
    });
    expect(
      writeErrorResult(
        new ApiError('network', { endpoint, mayHaveReachedServer: true, message: 'connection lost' }),
      ),
    ).toMatchObject({
      outcome: 'failed',
      code: 'network',
      message: expect.stringMatching(/may have taken effect: run the same file again/),
    });
    expect(
      writeErrorResult(
        new ApiError('network', { endpoint, mayHaveReachedServer: false, message: 'could not connect' }),
      ),
    ).toMatchObject({
      outcome: 'failed',
      message: expect.stringMatching(/did not reach the API/),
    });
    expect(writeErrorResult(new ApiError('server_error', { endpoint, status: 500 }))).toMatchObject({
      outcome: 'failed',
      code: 'server_error',
    });
    expect(writeErrorResult(new ApiError('invalid_service_token', { endpoint, status: 401 }))).toMatchObject({
      outcome: 'refused',
      stop: true,
    });
    const aborted = AbortSignal.abort(new Error('stop'));
    expect(writeErrorResult(new Error('stop'), aborted)).toMatchObject({
      outcome: 'failed',
      code: 'interrupted',
    });
  });

  it('shows write progress with what is not done', () => {
    expect(pushProgressLine('punches', { done: 3, total: 5, created: 2, notDone: 1, elapsedMs: 3000 })).toBe(
      'push punches: 3/5 writes, 2 created, 1 refused or failed, ETA 2s',
    );
  });
});
