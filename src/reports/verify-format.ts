import {
  QUALITY_CHECKS,
  QUALITY_STATUSES,
  worse,
  type QualityFinding,
  type QualityStatus,
} from '../quality/checks.js';
import { oneLine, renderTable } from './status-format.js';

/** Findings listed in the text (the rest are in quality_status and in --json). */
const LISTED_FINDINGS = 20;

/** What a run of `punchline verify` checked, and the milliseconds it took. */
export interface VerifyRunInfo {
  readonly from?: string;
  readonly to?: string;
  readonly company?: string;
  readonly durationMs: number;
}

/** Outcome of each part (check, company, part): the worst status of its rows. */
export function partStatuses(
  findings: readonly QualityFinding[],
): Map<string, { check: string; status: QualityStatus }> {
  const parts = new Map<string, { check: string; status: QualityStatus }>();
  for (const f of findings) {
    const key = `${f.check}\u0000${f.company}\u0000${f.part}`;
    parts.set(key, { check: f.check, status: worse(parts.get(key)?.status ?? 'ok', f.status) });
  }
  return parts;
}

/** The rows that say what is wrong: not ok, and not a part's `all` summary. */
export function findingsOf(run: readonly QualityFinding[]): QualityFinding[] {
  return run.filter((f) => f.status !== 'ok' && f.scope !== 'all');
}

/** A difference in its measure: `+8:00:00`, `-1 row`, `28 days`. */
export function formatDifference(f: QualityFinding): string {
  const d = f.difference;
  if (d === null) return '-';
  const sign = d > 0 ? '+' : d < 0 ? '-' : '';
  const n = Math.abs(d);
  const pad = (x: number) => String(x).padStart(2, '0');
  const hours = Math.floor(n / 3600);
  if (f.measure === 'seconds') return `${sign}${hours}:${pad(Math.floor((n % 3600) / 60))}:${pad(n % 60)}`;
  const unit = f.measure === 'rows' ? 'row' : f.measure === 'days' ? 'day' : undefined;
  return unit ? `${sign}${n} ${unit}${n === 1 ? '' : 's'}` : `${sign}${n}`;
}

/** Formats a run of the checks for a terminal: a line per check, then the findings to look at first. */
export function formatVerify(findings: readonly QualityFinding[], info: VerifyRunInfo): string {
  const range =
    info.from || info.to
      ? `${info.from ?? 'the first synced day'}..${info.to ?? 'the last'}`
      : 'everything synced';
  const out: string[] = [
    `Quality checks of ${range}, ${info.company ? `company ${info.company}` : 'every company'} (${(info.durationMs / 1000).toFixed(1)} s)`,
  ];
  const parts = [...partStatuses(findings).values()];
  const listed = findingsOf(findings);
  const ran = QUALITY_CHECKS.filter((c) => parts.some((p) => p.check === c));
  if (ran.length === 0) {
    out.push('  nothing to check: no window of this range and company has been synced');
    return `${out.join('\n')}\n`;
  }
  out.push(
    renderTable(
      ['check', 'parts', ...QUALITY_STATUSES, 'findings'],
      ran.map((c) => {
        const mine = parts.filter((p) => p.check === c);
        return [
          c,
          String(mine.length),
          ...QUALITY_STATUSES.map((s) => String(mine.filter((p) => p.status === s).length)),
          String(listed.filter((f) => f.check === c).length),
        ];
      }),
      new Set([1, 2, 3, 4, 5]),
    ),
  );
  if (listed.length > 0) {
    const first = [...listed]
      .sort((a, b) => QUALITY_STATUSES.indexOf(b.status) - QUALITY_STATUSES.indexOf(a.status))
      .slice(0, LISTED_FINDINGS);
    out.push(
      '',
      `Findings${listed.length > first.length ? ` (the first ${first.length} of ${listed.length}; all of them in quality_status and --json)` : ''}`,
    );
    out.push(
      renderTable(
        ['status', 'check', 'company', 'part', 'scope', 'difference', 'detail'],
        first.map((f) => [
          f.status,
          f.check,
          f.company,
          f.part,
          f.cpf ? `${f.scope} (cpf ${f.cpf})` : f.scope,
          formatDifference(f),
          oneLine(f.detail ?? '', 90),
        ]),
      ),
    );
  }
  const failed = parts.filter((p) => p.status === 'fail').length;
  const warned = parts.filter((p) => p.status === 'warn').length;
  out.push(
    '',
    failed + warned === 0
      ? `All ${parts.length} parts agree.`
      : `${failed} part${failed === 1 ? '' : 's'} failed, ${warned} warned, of ${parts.length}. What each check means and what to do: docs/warehouse.md "Reconciliation checks".`,
  );
  return `${out.join('\n')}\n`;
}
