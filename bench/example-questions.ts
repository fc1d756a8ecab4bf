/**
 * The "Example questions" of docs/warehouse.md, as the benchmark times them and the docs
 * test runs them: every SQL block that follows an `<!-- example-question: name -->`
 * marker, with the docs' schema (`workforce.`) replaced by the one to ask.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { QuestionFigures } from './results.js';

/** One question: its name in the marker and its SQL. */
export interface ExampleQuestion {
  readonly name: string;
  readonly sql: string;
}

const MARKER = /<!-- example-question: ([^>]+?) -->\s*```sql\n([\s\S]*?)```/g;

/** The questions of a page (pure), asked of `schema`. */
export function exampleQuestions(markdown: string, schema: string): ExampleQuestion[] {
  const quoted = `"${schema.replace(/"/g, '""')}".`;
  return [...markdown.matchAll(MARKER)].map((m) => ({
    name: m[1]!.trim(),
    sql: m[2]!.replaceAll('workforce.', quoted).trim(),
  }));
}

/** The questions of docs/warehouse.md, asked of `schema`. */
export function warehouseDocQuestions(schema: string): ExampleQuestion[] {
  return exampleQuestions(
    readFileSync(fileURLToPath(new URL('../docs/warehouse.md', import.meta.url)), 'utf8'),
    schema,
  );
}

/** How long one run of a question may take before Postgres cancels it, ms: far above the 1 s target, and the run goes on. */
export const QUESTION_TIMEOUT_MS = 60_000;

/** Postgres' SQLSTATE of a statement cancelled by `statement_timeout`. */
const QUERY_CANCELED = '57014';

/** Options of {@link timeExampleQuestions}. */
export interface QuestionTimingOptions {
  /** Runs of each question, one after the other. */
  readonly times?: number;
  /** Postgres cancels a run after this many ms; the run counts as timed out, at this time. */
  readonly timeoutMs?: number;
  /** The questions (default: those of docs/warehouse.md, asked of the schema). */
  readonly questions?: readonly ExampleQuestion[];
}

/**
 * Asks each question of docs/warehouse.md (three times in a row by default) of `schema`,
 * on one connection, timing each run on the wall clock (sent to last row received).
 */
export async function timeExampleQuestions(
  pool: pg.Pool,
  schema: string,
  o: QuestionTimingOptions = {},
): Promise<QuestionFigures[]> {
  const { times = 3, timeoutMs = QUESTION_TIMEOUT_MS } = o;
  const client = await pool.connect();
  try {
    await client.query(`set statement_timeout = ${Math.round(timeoutMs)}`);
    const out: QuestionFigures[] = [];
    for (const q of o.questions ?? warehouseDocQuestions(schema)) {
      const runsMs: number[] = [];
      let rows = 0;
      let timedOut = false;
      for (let i = 0; i < times; i++) {
        const t0 = performance.now();
        try {
          rows = (await client.query(q.sql)).rowCount ?? 0;
          runsMs.push(performance.now() - t0);
        } catch (err) {
          if ((err as { code?: string }).code !== QUERY_CANCELED)
            throw new Error(`example question "${q.name}" failed: ${(err as Error).message}`, { cause: err });
          runsMs.push(timeoutMs);
          timedOut = true;
        }
      }
      out.push({ name: q.name, runsMs, rows, ...(timedOut ? { timedOut: true as const } : {}) });
    }
    return out;
  } finally {
    await client.query('reset statement_timeout').catch(() => undefined);
    client.release();
  }
}
