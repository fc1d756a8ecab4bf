import { companiesWorstFirst, freshnessByResource } from './freshness-summary.js';
import { QUEUE_STATES, type QueueState } from './queue-counts.js';
import type { FreshnessEntry, StatusReport } from './status-report.js';
import type { DriftEntry } from './drift-report.js';

/** Options of {@link formatStatus}. */
export interface StatusFormatOptions {
  /** Most company × resource lines printed one by one (default 40, three companies), else a summary. */
  readonly maxFreshnessLines?: number;
  /** Companies listed worst first in the summary, and time-zone warnings listed (default 10). */
  readonly worstCompanies?: number;
}

/** States always shown as columns; the others only when some queue has such jobs. */
const CORE_STATES: readonly QueueState[] = ['waiting', 'active', 'delayed', 'failed', 'completed'];

/** Longest error text shown in the table (the `--json` output has all of it). */
const MAX_ERROR_CHARS = 100;

/** `45s`, `12m`, `3h 05m`, `2d 9h`. */
export function formatAge(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86_400)
    return `${Math.floor(seconds / 3600)}h ${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(seconds / 86_400)}d ${Math.floor((seconds % 86_400) / 3600)}h`;
}

/** `2025-03-10 11:50 UTC`. */
const formatInstant = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** `text` on one line, cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Renders rows as aligned columns; `right` lists the columns aligned right (numbers). */
export function renderTable(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  right: ReadonlySet<number> = new Set(),
): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].map((l) => `  ${l}`).join('\n');
}

/** The last success, age and flag (`STALE (older than …)`, `aging`) columns of an entry. */
function freshnessCells(f: FreshnessEntry): string[] {
  return [
    f.lastSuccessAt === null ? 'never' : formatInstant(f.lastSuccessAt),
    f.ageSeconds === null ? '-' : formatAge(f.ageSeconds),
    f.state === 'never'
      ? 'STALE (never synced)'
      : f.stale
        ? `STALE (older than ${formatAge(f.staleAfterSeconds)})`
        : f.state === 'aging'
          ? 'aging'
          : '',
  ];
}

/** Counts per resource, then the companies with the oldest data. */
function freshnessSummary(entries: readonly FreshnessEntry[], worstCompanies: number): string[] {
  const companies = companiesWorstFirst(entries.filter((e) => e.company !== 'group'));
  const out = [
    `Freshness of ${companies.length} companies (last successful sync; per resource, how many are fresh, aging, stale or never synced)`,
    renderTable(
      ['resource', 'fresh', 'aging', 'stale', 'never', 'oldest'],
      freshnessByResource(entries).map((r) => [
        r.resource,
        ...(['fresh', 'aging', 'stale', 'never'] as const).map((s) => String(r.counts[s])),
        r.oldestAgeSeconds === null ? '-' : formatAge(r.oldestAgeSeconds),
      ]),
      new Set([1, 2, 3, 4, 5]),
    ),
  ];
  const behind = companies.filter((c) => c.counts.fresh < c.entries.length);
  if (behind.length === 0) {
    out.push('', 'Every company is fresh.');
    return out;
  }
  const shown = behind.slice(0, worstCompanies);
  out.push(
    '',
    `Companies with the oldest data (${shown.length} of ${behind.length} not fresh, worst first; --all or --json lists every company and resource)`,
    renderTable(
      ['company', 'stale', 'aging', 'worst resource', 'last success', 'age', ''],
      shown.map((c) => [
        c.company,
        String(c.counts.stale + c.counts.never),
        String(c.counts.aging),
        c.worst.resource,
        ...freshnessCells(c.worst),
      ]),
      new Set([1, 2, 5]),
    ),
  );
  return out;
}

/**
 * Formats the whole report for a terminal (pure): queues, failing jobs, freshness with stale entries
 * flagged (summed per resource, with the worst companies, when there are many), then the data sections
 * that have something to say.
 */
export function formatStatus(report: StatusReport, options: StatusFormatOptions = {}): string {
  const maxLines = options.maxFreshnessLines ?? 40;
  const worstCompanies = options.worstCompanies ?? 10;
  const out: string[] = [];
  const paused = report.pausedConnections ?? [];
  if (paused.length > 0) {
    out.push(
      'Paused connections (the API rejects their token: their jobs wait, the token is re-checked on a slow timer)',
      renderTable(
        ['connection', 'since', 'next check', 'reason'],
        paused.map((p) => [
          p.connection,
          formatInstant(p.since),
          formatInstant(p.nextCheckAt),
          oneLine(p.reason, MAX_ERROR_CHARS),
        ]),
      ),
      '',
    );
  }

  const states = QUEUE_STATES.filter(
    (s) => CORE_STATES.includes(s) || report.queues.some((q) => q.counts[s] > 0),
  );
  out.push(
    'Queues',
    renderTable(
      ['queue', ...states],
      report.queues.map((q) => [q.queue, ...states.map((s) => String(q.counts[s]))]),
      new Set(states.map((_, i) => i + 1)),
    ),
    '',
  );
  if (report.failing.length === 0) {
    out.push('Failing jobs: none');
  } else {
    out.push(
      `Failing jobs (${report.summary.failed} failed, ${report.summary.retrying} retrying; most recent first)`,
      renderTable(
        ['state', 'queue', 'resource', 'company', 'window', 'tries', 'last error'],
        report.failing.map((f) => [
          f.state,
          f.queue,
          f.resource ?? '-',
          f.company ?? '-',
          f.window ?? '-',
          String(f.attempts),
          oneLine(f.lastError, MAX_ERROR_CHARS),
        ]),
        new Set([5]),
      ),
    );
  }

  out.push('');
  if (report.freshness === null) {
    out.push('Freshness: the warehouse has no sync_freshness view yet (run `punchline migrate`)');
  } else if (report.freshness.length === 0) {
    out.push('Freshness: nothing synced yet (run `punchline backfill` or start `punchline worker`)');
  } else if (report.freshness.length > maxLines) {
    out.push(...freshnessSummary(report.freshness, worstCompanies));
  } else {
    out.push(
      'Freshness (last successful sync per company and resource)',
      renderTable(
        ['company', 'resource', 'last success', 'age', ''],
        report.freshness.map((f) => [f.company, f.resource, ...freshnessCells(f)]),
        new Set([3]),
      ),
    );
  }

  out.push(...dataSections(report, worstCompanies));

  out.push('');
  const { stale, aging, failed, retrying } = report.summary;
  const pausedNote =
    paused.length > 0 ? `${paused.length} connection${paused.length === 1 ? '' : 's'} paused, ` : '';
  const open = (report.rejections ?? []).reduce((n, r) => n + r.open, 0);
  const zones = new Set((report.timeZoneWarnings ?? []).map((w) => w.company)).size;
  const failingParts = (report.quality ?? []).reduce((n, q) => n + q.parts.fail, 0);
  const dataNote = [
    open > 0 ? `${open} rejected record${open === 1 ? '' : 's'} open` : '',
    zones > 0 ? `${zones} compan${zones === 1 ? 'y' : 'ies'} in a doubtful time zone` : '',
    failingParts > 0
      ? `${failingParts} part${failingParts === 1 ? '' : 's'} of the warehouse failing a quality check`
      : '',
  ].filter((n) => n !== '');
  out.push(
    (stale === 0 && failed === 0 && retrying === 0 && paused.length === 0
      ? report.freshness?.length
        ? aging > 0
          ? `Nothing stale, ${aging} aging, no failing jobs.`
          : 'All fresh, no failing jobs.'
        : report.check.ok
          ? 'No failing jobs.'
          : 'Never synced, no failing jobs.'
      : `${pausedNote}${stale} stale, ${aging > 0 ? `${aging} aging, ` : ''}${failed} failed, ${retrying} retrying.`) +
      (dataNote.length > 0 ? ` ${dataNote.join(', ')}.` : ''),
  );
  return `${out.join('\n')}\n`;
}

/** How each kind of schema drift reads. */
export const DRIFT_KINDS: Readonly<Record<DriftEntry['kind'], string>> = {
  new_value: 'new value',
  unknown_field: 'unknown field',
  cleaned_value: 'cleaned value',
  too_many: 'too many to list',
};

/** The sections about the data itself, each only when it has something to say (at most `maxZones` zone lines). */
function dataSections(report: StatusReport, maxZones: number): string[] {
  const out: string[] = [];
  const quality = report.quality ?? [];
  if (quality.length > 0) {
    out.push(
      '',
      'Quality checks (latest outcome of each part of the warehouse: windows, months, totals periods, resources)',
      renderTable(
        ['check', 'ok', 'warn', 'fail', 'findings', 'last run', 'worst'],
        quality.map((q) => [
          q.check,
          ...[q.parts.ok, q.parts.warn, q.parts.fail, q.findings].map(String),
          formatInstant(q.lastCheckedAt),
          q.example
            ? oneLine(
                `${q.example.company} ${q.example.part} ${q.example.scope}: ${q.example.detail ?? q.example.status}`,
                MAX_ERROR_CHARS,
              )
            : '-',
        ]),
        new Set([1, 2, 3, 4]),
      ),
    );
    if (quality.some((q) => q.parts.warn + q.parts.fail > 0)) {
      out.push(
        '  Every finding is in the quality_status view; docs/warehouse.md "Reconciliation checks" says what each check means, whether',
        '  the source or the sync disagrees, and what to do. punchline verify runs the checks again.',
      );
    }
  }
  const marts = report.marts ?? [];
  if (marts.length > 0) {
    out.push(
      '',
      "Marts (how far each company's employee_daily and other marts lag its loaded tables)",
      renderTable(
        ['company', 'lag', 'pending loads', 'last refresh', 'loads taken in'],
        marts.map((m) => [
          m.company,
          m.pendingLoads === 0 ? 'current' : formatAge(m.lagSeconds),
          String(m.pendingLoads),
          m.lastRefreshAt === null ? '-' : formatInstant(m.lastRefreshAt),
          m.lastRefreshLoads === null ? '-' : String(m.lastRefreshLoads),
        ]),
        new Set([2, 4]),
      ),
    );
  }
  const rejections = report.rejections ?? [];
  if (rejections.length > 0) {
    out.push(
      '',
      'Rejected records (open: the sync could not store them; the rest of their windows loaded)',
      renderTable(
        ['resource', 'endpoint', 'open', 'companies', 'oldest', 'oldest record'],
        rejections.map((r) => [
          r.resource,
          r.endpoint,
          String(r.open),
          String(r.companies),
          formatInstant(r.oldest),
          oneLine(
            `${r.example.company} ${r.example.window ?? ''} ${r.example.path}: ${r.example.reason}`,
            MAX_ERROR_CHARS,
          ),
        ]),
        new Set([2, 3]),
      ),
    );
    const first = rejections[0]!;
    const [from, to] = (first.example.window ?? '').split('..');
    out.push(
      '  Each is in the rejected_records table (resolved_at is null) with its path, reason and the record as sent. Once the source',
      `  sends it right, re-read its window (e.g. punchline backfill --resources ${first.resource} --company ${first.example.company}${from && to ? ` --from ${from} --to ${to}` : ''} --force);`,
      '  a sync that receives it valid resolves it.',
    );
  }
  const drift = report.schemaDrift ?? [];
  if (drift.length > 0) {
    out.push(
      '',
      'Schema drift (what the API sends that its spec does not say; stored or ignored, never rejected)',
      renderTable(
        ['kind', 'field', 'value', 'endpoint', 'first seen', 'last seen'],
        drift.map((d) => [
          DRIFT_KINDS[d.kind],
          d.field,
          d.value || '-',
          d.endpoint || '-',
          formatInstant(d.firstSeenAt),
          formatInstant(d.lastSeenAt),
        ]),
      ),
    );
    if (drift.some((d) => d.kind === 'cleaned_value')) {
      out.push(
        '  cleaned value: text holding a NUL character, which the warehouse cannot store, was stored without it.',
      );
    }
    if (drift.some((d) => d.kind === 'too_many')) {
      out.push(
        '  too many to list: the API sent more new values of that field (or unknown fields of that endpoint) than are kept (100).',
      );
    }
  }
  const zones = report.timeZoneWarnings ?? [];
  if (zones.length > 0) {
    out.push(
      '',
      "Time zones (companies whose date-times are read in a zone that is not the legal time at their address's CEP)",
      renderTable(
        ['company', 'zip code', 'state', 'connection', 'zone in use', 'legal time'],
        zones
          .slice(0, maxZones)
          .map((z) => [
            z.company,
            z.zipCode,
            z.state,
            z.connection ?? '-',
            `${z.zone} (${z.offset})`,
            `${z.legalZone} (${z.legalOffset})`,
          ]),
      ),
    );
    if (zones.length > maxZones)
      out.push(`  … and ${zones.length - maxZones} more (--all or --json lists every one)`);
    const z = zones[0]!;
    out.push(
      `  Every date-time of such a company is stored off by the difference. If the CEP is right, set COMPANY_TIMEZONES=${z.company}=${z.legalZone}`,
      '  (docs/configuration.md) and re-read its history with punchline backfill --force.',
    );
  }
  return out;
}
