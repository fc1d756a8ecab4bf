/**
 * `npm run bench:row-path`: the worker's CPU per byte of answer on the path every row
 * takes, stage by stage, with no network and no database — what is left of issue 12's
 * worker target once the parsing it asks for is paid (bench/README.md "Reading the full
 * run").
 *
 * Fetches one month of punches (spec 2.12) and one day of the hour bank (spec 2.11) of
 * the headquarters of an in-process emulator (3,000 collaborators, the bench's seed and
 * day), then runs each answer through cumulative stages, several times after a warm-up,
 * and prints the CPU-seconds per byte of each:
 *
 * 1. `JSON.parse` of the whole body (decoded first): how fd14db9 read an answer;
 * 2. the streaming parse the sync uses (`DataStream`, src/api/data-stream.ts);
 * 3. + each element validated against its schema (zod);
 * 4. + the resource's rows derived from it;
 * 5. + the rows encoded as COPY text into staging batches (`StagedTable.add`).
 */
import { ENDPOINTS, elementSchema } from '../src/api/endpoints.js';
import { DataStream } from '../src/api/data-stream.js';
import { startEmulator } from '../src/emulator/index.js';
import { CATALOG, type Resource } from '../src/resources/index.js';
import type { ReadDeclaration, RowContext } from '../src/resources/declaration.js';
import { createLocalTimeConverter } from '../src/util/local-time.js';
import { DEFAULT_BATCH_BYTES, StagedTable } from '../src/warehouse/staging.js';
import type { TableSpec } from '../src/warehouse/table-spec.js';

/** The stages, each including the ones before it (but the first, which stands alone). */
export const STAGES = [
  'JSON.parse whole body',
  'streaming parse',
  '+ validation',
  '+ rows',
  '+ COPY text',
] as const;

/** One answer to run through the stages. */
export interface Answer {
  readonly resource: Resource;
  readonly endpoint: 'point/getFromPeriod' | 'overtime';
  readonly body: Buffer;
}

/** CPU nanoseconds per byte of each stage, and the rows the last one staged per run. */
export interface RowPathFigures {
  readonly bytes: number;
  readonly rows: number;
  readonly nsPerByte: Readonly<Record<(typeof STAGES)[number], number>>;
}

const TIMEZONE = 'America/Sao_Paulo';

/** Feeds a body in 64 KiB chunks, as a socket would. */
async function* chunksOf(body: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < body.length; i += 65536) {
    yield body.subarray(i, i + 65536);
    await Promise.resolve();
  }
}

/** Runs `answer` through the stages up to `stage` (an index of {@link STAGES}); returns the rows staged. */
async function runStage(answer: Answer, stage: number): Promise<number> {
  if (stage === 0) {
    const parsed = JSON.parse(new TextDecoder().decode(answer.body)) as { data: unknown[] };
    return parsed.data.length;
  }
  const declaration = CATALOG[answer.resource];
  if (declaration.read === 'group') throw new Error(`${answer.resource} reads no elements`);
  const read = (declaration.reads as readonly ReadDeclaration[]).find((r) => r.endpoint === answer.endpoint)!;
  const schema = elementSchema(ENDPOINTS[answer.endpoint])!;
  const tables = Object.values(declaration.tables as Record<string, TableSpec>).map(
    (spec) => new StagedTable(spec, `stage_${spec.table}`),
  );
  let rows = 0;
  const emit: Record<string, (row: never) => void> = {};
  for (const t of tables) {
    emit[t.spec.table] =
      stage >= 4
        ? (row) => {
            t.add(row);
            // The batches are taken as the sync sends them, and dropped.
            if (t.pendingBytes >= DEFAULT_BATCH_BYTES) t.take();
          }
        : () => {
            rows++;
          };
  }
  const ctx: RowContext = {
    company: '',
    toUtc: createLocalTimeConverter(TIMEZONE),
    storeBinaries: false,
    cpfAsSent: () => null,
    window: { from: '2025-03-01', to: '2025-03-31' },
    date: '2025-03-31',
  };
  for await (const raw of new DataStream(chunksOf(answer.body))) {
    if (stage < 2) continue;
    const checked = schema.safeParse(raw);
    if (!checked.success)
      throw new Error(
        `${answer.endpoint}: an element breaks its schema: ${checked.error.issues[0]?.message}`,
      );
    if (stage < 3) continue;
    read.rows(checked.data as never, emit as never, ctx);
  }
  return stage >= 4 ? tables.reduce((n, t) => n + t.rows, 0) : rows;
}

/** Measures every stage over `answers`, `reps` times each after one warm-up run. */
export async function measureRowPath(answers: readonly Answer[], reps: number): Promise<RowPathFigures> {
  const bytes = answers.reduce((n, a) => n + a.body.length, 0);
  const nsPerByte = {} as Record<(typeof STAGES)[number], number>;
  let rows = 0;
  for (let stage = 0; stage < STAGES.length; stage++) {
    for (const a of answers) await runStage(a, stage);
    const before = process.cpuUsage();
    for (let r = 0; r < reps; r++) {
      let staged = 0;
      for (const a of answers) staged += await runStage(a, stage);
      if (stage === STAGES.length - 1) rows = staged;
    }
    const used = process.cpuUsage(before);
    nsPerByte[STAGES[stage]!] = ((used.user + used.system) * 1000) / (reps * bytes);
  }
  return { bytes, rows, nsPerByte };
}

/** One month of punches and one day of the hour bank of the headquarters of an emulator of `scale` collaborators. */
export async function fetchAnswers(scale: number): Promise<Answer[]> {
  const emulator = await startEmulator({ scale, seed: 'bench', today: '2025-06-30' });
  try {
    const hq = emulator.companies[0]!;
    const get = async (path: string): Promise<Buffer> => {
      const res = await fetch(`${emulator.url}/customer/v2/${path}`, {
        headers: { apiServiceToken: emulator.headquartersToken },
      });
      if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    };
    const scope = `company_national_registry=${hq.cnpj}`;
    return [
      {
        resource: 'punches',
        endpoint: 'point/getFromPeriod',
        body: await get(`point/getFromPeriod?begin_date=2025-03-01&end_date=2025-03-31&${scope}`),
      },
      { resource: 'hour_bank', endpoint: 'overtime', body: await get(`overtime?date=2025-03-31&${scope}`) },
    ];
  } finally {
    await emulator.close();
  }
}

async function main(): Promise<void> {
  const reps = Number(process.argv[2] ?? 5);
  const answers = await fetchAnswers(3000);
  const f = await measureRowPath(answers, reps);
  console.log(
    `row path: ${(f.bytes / 2 ** 20).toFixed(1)} MiB of answers (a month of punches, a day of the hour bank), ${f.rows.toLocaleString('en-US')} rows, ${reps} runs after a warm-up`,
  );
  for (const stage of STAGES)
    console.log(`  ${stage.padEnd(22)} ${f.nsPerByte[stage].toFixed(1).padStart(5)} ns of CPU per byte`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: unknown) => {
    console.error(`row path: ${(err as Error).message}`);
    process.exitCode = 1;
  });
}
