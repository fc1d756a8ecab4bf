/**
 * src/quality/ — the reconciliation checks, run inside Postgres after every window and by
 * `punchline verify`.
 */
import pLimit from 'p-limit';
import { withTransaction } from '../warehouse/transaction.js';
import { CHECK_SETTINGS, isCheckPool, type CheckPool } from './check-pool.js';
import {
  QUALITY_CHECKS,
  type QualityCheck,
  type QualityFinding,
  type QualityScope,
  type QualitySettings,
  type QualityStatus,
} from './checks.js';
import { cltVsSource } from './clt-source.js';
import { coverage } from './coverage.js';
import { punchesAgainstDays } from './day-punches.js';
import { historyOverlap, unknownCollaborator } from './consistency.js';
import { hoursAgreement } from './hours-agreement.js';
import { martsVsInputs } from './marts.js';
import { absenceDaysAgainstApi, headcountBridge } from './workforce.js';
import { CheckStatement, FINDING_COLUMNS, type CheckBuilder } from './statement.js';
import { windowCompleteness } from './window-completeness.js';

/** The statements, each computing the checks it names in one pass over the tables they share. */
const STATEMENTS: readonly { readonly checks: readonly QualityCheck[]; readonly build: CheckBuilder }[] = [
  { checks: ['window_completeness'], build: windowCompleteness },
  { checks: ['totals_vs_days', 'rule_vs_days'], build: hoursAgreement },
  { checks: ['day_vs_punches', 'punch_without_day'], build: punchesAgainstDays },
  { checks: ['unknown_collaborator'], build: unknownCollaborator },
  { checks: ['history_overlap'], build: historyOverlap },
  { checks: ['coverage'], build: coverage },
  { checks: ['marts_vs_inputs'], build: martsVsInputs },
  { checks: ['headcount_bridge'], build: headcountBridge },
  { checks: ['absence_days_vs_api'], build: absenceDaysAgainstApi },
  { checks: ['clt_vs_source'], build: cltVsSource },
];

/** The settings of a check pool's sessions, for one transaction of another pool. */
const SET_LOCAL = Object.entries(CHECK_SETTINGS)
  .map(([name, value]) => `SET LOCAL ${name} = '${value}'`)
  .join('; ');

/** The statement running `checks` (of one of {@link STATEMENTS}) over `scope`; null when nothing to check. */
function buildStatement(
  schema: string,
  build: CheckBuilder,
  checks: readonly QualityCheck[],
  scope: QualityScope,
  settings: QualitySettings,
) {
  const s = new CheckStatement(schema, scope, settings);
  const select = build(s, checks).trim();
  if (select === '') return null;
  const columns = FINDING_COLUMNS.join(', ');
  const runId = s.param(settings.runId ?? null, 'int8');
  const text =
    `WITH found (${columns}) AS (\n${select}\n), written AS (\n` +
    `  INSERT INTO ${s.table('quality_checks')} (${columns}, run_id)\n  SELECT ${columns}, ${runId} FROM found\n` +
    `  RETURNING ${columns}, difference\n)\nSELECT * FROM written ORDER BY company_cnpj, part, scope <> 'all', scope, cpf`;
  return { text, values: s.values };
}

/** The statement that runs one check over `scope` and writes its findings; null when the scope leaves it nothing to check. */
export function buildCheck(
  schema: string,
  check: QualityCheck,
  scope: QualityScope,
  settings: QualitySettings,
): { text: string; values: unknown[] } | null {
  return buildStatement(
    schema,
    STATEMENTS.find((st) => st.checks.includes(check))!.build,
    [check],
    scope,
    settings,
  );
}

type Row = Record<(typeof FINDING_COLUMNS)[number] | 'difference', unknown>;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

const findingOf = (r: Row): QualityFinding => ({
  check: r.check_name as QualityCheck,
  company: String(r.company_cnpj),
  part: String(r.part),
  scope: String(r.scope),
  cpf: (r.cpf as string | null) ?? null,
  measure: String(r.measure),
  expected: num(r.expected),
  actual: num(r.actual),
  difference: num(r.difference),
  tolerance: Number(r.tolerance),
  status: r.status as QualityStatus,
  detail: (r.detail as string | null) ?? null,
});

/** What one run of the checks found. */
export interface QualityRun {
  /** Every row written, by check in {@link QUALITY_CHECKS} order. */
  readonly findings: readonly QualityFinding[];
  /** Milliseconds each statement took, by the checks it ran (`totals_vs_days+rule_vs_days`). */
  readonly durations: Readonly<Record<string, number>>;
}

/**
 * Runs the checks of `scope` (all by default) over the warehouse of `schema`: each is one set-based
 * statement in its own short transaction that compares and writes its findings, never changing data, to
 * `quality_checks`. Returns them; errors are thrown as is. `concurrency` statements run at once, each
 * on its own connection (default 1: after a sync run, the checks must not crowd the loads).
 */
export async function runQualityChecks(
  pool: CheckPool,
  schema: string,
  scope: QualityScope = {},
  settings: QualitySettings = {},
  options: { readonly concurrency?: number } = {},
): Promise<QualityRun> {
  const findings: QualityFinding[] = [];
  const durations: Record<string, number> = {};
  const limit = pLimit(Math.max(1, options.concurrency ?? 1));
  const run = async (statement: (typeof STATEMENTS)[number]) => {
    const checks = statement.checks.filter((c) => !scope.checks || scope.checks.includes(c));
    const query =
      checks.length === 0 ? null : buildStatement(schema, statement.build, checks, scope, settings);
    if (!query) return;
    const started = Date.now();
    const rows = isCheckPool(pool)
      ? (await pool.query<Row>(query.text, query.values)).rows
      : await withTransaction(pool, async (client) => {
          await client.query(SET_LOCAL);
          return (await client.query<Row>(query.text, query.values)).rows;
        });
    findings.push(...rows.map(findingOf));
    durations[checks.join('+')] = Date.now() - started;
  };
  await Promise.all(STATEMENTS.map((statement) => limit(() => run(statement))));
  findings.sort((a, b) => QUALITY_CHECKS.indexOf(a.check) - QUALITY_CHECKS.indexOf(b.check));
  return { findings, durations };
}
