/**
 * The status page of the ops port (`/status`, docs/operations.md "The status page"): the
 * report of `punchline status --json` as one self-contained HTML page — no script, no
 * external asset, so it works offline and under a strict Content-Security-Policy.
 * Readable at hundreds of companies: the verdict and counts first, then per resource how
 * many companies are fresh, aging, stale or never synced, then a compact grid of every
 * company × resource coloured by age (companies worst first), with the long lists folded
 * away. It shows what the report holds and nothing else: CNPJs, resources, counts and
 * error texts, never a person's data. Pure: a report in, HTML out.
 */
import {
  companiesWorstFirst,
  freshnessByResource,
  overdue,
  type CompanyFreshness,
} from '../reports/freshness-summary.js';
import { FRESHNESS_STATES, type FreshnessState } from '../reports/staleness.js';
import { DRIFT_KINDS, formatAge, oneLine } from '../reports/status-format.js';
import type { FreshnessEntry, StatusReport } from '../reports/status-report.js';

/** Options of {@link renderStatusPage}. */
export interface StatusPageOptions {
  /** Path of the queue dashboard the page links to. */
  readonly dashboardPath: string;
  /** Path of the same report as JSON. */
  readonly jsonPath: string;
  /** Seconds between reloads of the page (0: never). */
  readonly refreshSeconds?: number;
}

/** Companies per grid block: blocks sit side by side, so 200 companies fit a screen or two. */
const GRID_BLOCK_ROWS = 50;

/** What each state is called on the page. */
const STATE_LABELS: Readonly<Record<FreshnessState, string>> = {
  fresh: 'fresh',
  aging: 'aging',
  stale: 'stale',
  never: 'never synced',
};

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const h = escapeHtml;

/** `2025-03-10 11:50 UTC`. */
function instant(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A table with a header row; cells are HTML already escaped. */
function table(
  headers: readonly string[],
  rows: readonly (readonly string[])[],
  numeric: ReadonlySet<number> = new Set(),
): string {
  const cell = (tag: 'th' | 'td', c: string, i: number) =>
    `<${tag}${numeric.has(i) ? ' class="num"' : ''}>${c}</${tag}>`;
  return (
    `<table class="list"><thead><tr>${headers.map((x, i) => cell('th', h(x), i)).join('')}</tr></thead>` +
    `<tbody>${rows.map((r) => `<tr>${r.map((c, i) => cell('td', c, i)).join('')}</tr>`).join('')}</tbody></table>`
  );
}

/** One line of an entry's age, for cell titles and lists. */
function describeEntry(e: FreshnessEntry): string {
  const age =
    e.ageSeconds === null
      ? 'never synced'
      : `last success ${instant(e.lastSuccessAt!)}, ${formatAge(e.ageSeconds)} ago`;
  return `${e.company} · ${e.resource}: ${age} (${STATE_LABELS[e.state]}; stale after ${formatAge(e.staleAfterSeconds)})`;
}

/** The headline counts, each a coloured tile. */
function tiles(report: StatusReport, companies: number): string {
  const paused = report.pausedConnections?.length ?? 0;
  const rejected = (report.rejections ?? []).reduce((n, r) => n + r.open, 0);
  const failingParts = (report.quality ?? []).reduce((n, q) => n + q.parts.fail, 0);
  const tile = (id: string, n: number, one: string, many: string, tone: 'bad' | 'warn' | 'plain') =>
    `<a class="tile ${n > 0 ? tone : 'zero'}" href="#${id}"><b>${n}</b><span>${h(n === 1 ? one : many)}</span></a>`;
  return `<nav class="tiles">
${tile('freshness', companies, 'company', 'companies', 'plain')}
${tile('freshness', report.summary.stale, 'company × resource stale', 'company × resource stale', 'bad')}
${tile('freshness', report.summary.aging, 'aging', 'aging', 'warn')}
${tile('failing', report.summary.failed, 'job failed', 'jobs failed', 'bad')}
${tile('failing', report.summary.retrying, 'job retrying', 'jobs retrying', 'warn')}
${tile('paused', paused, 'connection paused', 'connections paused', 'bad')}
${tile('rejections', rejected, 'rejected record open', 'rejected records open', 'warn')}
${tile('quality', failingParts, 'part failing a quality check', 'parts failing a quality check', 'bad')}
</nav>`;
}

/** Counts per resource, with each state's count coloured. */
function resourceSummary(entries: readonly FreshnessEntry[]): string {
  const rows = freshnessByResource(entries).map((r) => [
    h(r.resource),
    ...FRESHNESS_STATES.map(
      (s) => `<span class="count ${r.counts[s] > 0 ? s : 'zero'}">${r.counts[s]}</span>`,
    ),
    r.oldestAgeSeconds === null ? '-' : h(formatAge(r.oldestAgeSeconds)),
  ]);
  return table(
    ['resource', ...FRESHNESS_STATES.map((s) => STATE_LABELS[s]), 'oldest'],
    rows,
    new Set([1, 2, 3, 4, 5]),
  );
}

/** One block of the grid: a row per company, a coloured cell per resource. */
function gridBlock(companies: readonly CompanyFreshness[], resources: readonly string[]): string {
  const head = `<tr><th class="co">company</th>${resources.map((r) => `<th class="rs"><span>${h(r)}</span></th>`).join('')}</tr>`;
  const rows = companies.map((c) => {
    const byResource = new Map(c.entries.map((e) => [e.resource, e]));
    const cells = resources.map((r) => {
      const e = byResource.get(r);
      if (!e) return '<td class="cell none" title="not synced for any company"></td>';
      return `<td class="cell ${e.state}" data-company="${h(e.company)}" data-resource="${h(r)}" data-state="${e.state}" title="${h(describeEntry(e))}"></td>`;
    });
    const worst = c.counts.stale + c.counts.never > 0 ? 'stale' : c.counts.aging > 0 ? 'aging' : 'fresh';
    return `<tr data-company="${h(c.company)}"><th class="co ${worst}">${h(c.company)}</th>${cells.join('')}</tr>`;
  });
  return `<table class="grid"><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The freshness section: legend, per-resource counts, group-level resources, the grid and the folded list. */
function freshnessSection(report: StatusReport): string {
  if (report.freshness === null) {
    return '<section id="freshness"><h2>Freshness</h2><p class="bad-text">The warehouse is not migrated: run <code>punchline migrate</code>.</p></section>';
  }
  if (report.freshness.length === 0) {
    return '<section id="freshness"><h2>Freshness</h2><p>Nothing synced yet: run <code>punchline backfill</code> or start <code>punchline worker</code>.</p></section>';
  }
  const entries = report.freshness;
  const group = entries.filter((e) => e.company === 'group');
  const companies = companiesWorstFirst(entries.filter((e) => e.company !== 'group'));
  const resources = [...new Set(companies.flatMap((c) => c.entries.map((e) => e.resource)))];
  const blocks: string[] = [];
  for (let i = 0; i < companies.length; i += GRID_BLOCK_ROWS)
    blocks.push(gridBlock(companies.slice(i, i + GRID_BLOCK_ROWS), resources));
  const behind = entries
    .filter((e) => e.state !== 'fresh')
    .sort((a, b) => overdue(b) - overdue(a) || a.company.localeCompare(b.company));
  const legend = FRESHNESS_STATES.map(
    (s) => `<span class="key"><i class="cell ${s}"></i>${h(STATE_LABELS[s])}</span>`,
  ).join('');
  return `<section id="freshness">
<h2>Freshness <small>last successful sync of ${plural(companies.length, 'company', 'companies')} × ${plural(resources.length, 'resource')}</small></h2>
<p class="legend">${legend}<span class="note">stale: a few runs of its schedule missed (each cell's title gives its threshold); aging: past half of it, at most 4 h before it</span></p>
${resourceSummary(entries)}
${group.length > 0 ? `<p class="group">Group-level: ${group.map((e) => `<span class="chip ${e.state}" title="${h(describeEntry(e))}">${h(e.resource)} ${e.ageSeconds === null ? 'never' : h(formatAge(e.ageSeconds))}</span>`).join(' ')}</p>` : ''}
<h3>Every company × resource <small>worst first; hover a cell for its age</small></h3>
<div class="blocks">${blocks.join('\n')}</div>
<details id="behind"><summary>${plural(behind.length, 'company × resource', 'company × resource pairs')} not fresh</summary>
${table(
  ['state', 'company', 'resource', 'last success', 'age', 'stale after'],
  behind.map((e) => [
    `<span class="count ${e.state}">${h(STATE_LABELS[e.state])}</span>`,
    h(e.company),
    h(e.resource),
    e.lastSuccessAt === null ? 'never' : h(instant(e.lastSuccessAt)),
    e.ageSeconds === null ? '-' : h(formatAge(e.ageSeconds)),
    h(formatAge(e.staleAfterSeconds)),
  ]),
  new Set([4, 5]),
)}
</details>
</section>`;
}

/** Rows past which a section's table is folded away. */
const FOLD_AFTER_ROWS = 20;

/** A section with its table (`body`, of `count` rows; folded away when long), or one line when there is nothing (`body` null). */
function listSection(
  id: string,
  title: string,
  empty: string,
  body: string | null,
  count: number,
  note = '',
): string {
  if (body === null)
    return `<section id="${id}"><h2>${h(title)}</h2><p class="none">${h(empty)}</p></section>`;
  const shown =
    count > FOLD_AFTER_ROWS
      ? `<details><summary>show ${h(plural(count, 'row'))}</summary>${body}</details>`
      : body;
  return `<section id="${id}"><h2>${h(title)}</h2>${shown}${note}</section>`;
}

/** Paused connections, failing jobs, quality checks, rejections, drift, time zones and queues. */
function otherSections(report: StatusReport, dashboardPath: string): string {
  const paused = report.pausedConnections ?? [];
  const failing = report.failing;
  const quality = report.quality ?? [];
  const rejections = report.rejections ?? [];
  const marts = report.marts ?? [];
  const drift = report.schemaDrift ?? [];
  const zones = report.timeZoneWarnings ?? [];
  const dash = `<p class="note">Each job, its data and its whole error: <a href="${h(dashboardPath)}">the queue dashboard</a>.</p>`;
  return [
    listSection(
      'paused',
      'Paused connections',
      'No connection is paused.',
      paused.length === 0
        ? null
        : table(
            ['connection', 'code', 'since', 'next check', 'reason'],
            paused.map((p) => [
              h(p.connection),
              h(p.code),
              h(instant(p.since)),
              h(instant(p.nextCheckAt)),
              h(oneLine(p.reason, 160)),
            ]),
          ),
      paused.length,
      '<p class="note">The API rejects their token: their jobs wait, and the token is checked again on a slow timer.</p>',
    ),
    listSection(
      'failing',
      `Failing jobs (${report.summary.failed} failed, ${report.summary.retrying} retrying)`,
      'No failing jobs.',
      failing.length === 0
        ? null
        : table(
            ['state', 'queue', 'resource', 'company', 'window', 'tries', 'last error'],
            failing.map((f) => [
              `<span class="count ${f.state === 'failed' ? 'stale' : 'aging'}">${f.state}</span>`,
              h(f.queue),
              h(f.resource ?? '-'),
              h(f.company ?? '-'),
              h(f.window ?? '-'),
              String(f.attempts),
              h(oneLine(f.lastError, 200)),
            ]),
            new Set([5]),
          ),
      failing.length,
      dash,
    ),
    listSection(
      'quality',
      'Quality checks',
      'No check has run yet.',
      quality.length === 0
        ? null
        : table(
            ['check', 'ok', 'warn', 'fail', 'findings', 'last run', 'worst'],
            quality.map((q) => [
              h(q.check),
              `<span class="count ${q.parts.ok > 0 ? 'fresh' : 'zero'}">${q.parts.ok}</span>`,
              `<span class="count ${q.parts.warn > 0 ? 'aging' : 'zero'}">${q.parts.warn}</span>`,
              `<span class="count ${q.parts.fail > 0 ? 'stale' : 'zero'}">${q.parts.fail}</span>`,
              String(q.findings),
              h(instant(q.lastCheckedAt)),
              q.example
                ? h(
                    oneLine(
                      `${q.example.company} ${q.example.part} ${q.example.scope}: ${q.example.detail ?? q.example.status}`,
                      160,
                    ),
                  )
                : '-',
            ]),
            new Set([1, 2, 3, 4]),
          ),
      quality.length,
      '<p class="note">Every finding is in the <code>quality_status</code> view; <code>punchline verify</code> runs the checks again.</p>',
    ),
    listSection(
      'marts',
      'Marts',
      'No load has reached the marts yet.',
      marts.length === 0
        ? null
        : table(
            ['company', 'lag', 'pending loads', 'last refresh', 'loads taken in'],
            marts.map((m) => [
              h(m.company),
              m.pendingLoads === 0 ? 'current' : h(formatAge(m.lagSeconds)),
              String(m.pendingLoads),
              m.lastRefreshAt === null ? '-' : h(instant(m.lastRefreshAt)),
              m.lastRefreshLoads === null ? '-' : String(m.lastRefreshLoads),
            ]),
            new Set([2, 4]),
          ),
      marts.length,
      '<p class="note">How far each company\'s marts (<code>employee_daily</code> and the others) lag its loaded tables; also in the <code>sync_freshness</code> view.</p>',
    ),
    listSection(
      'rejections',
      'Rejected records',
      'No rejected record is open.',
      rejections.length === 0
        ? null
        : table(
            ['resource', 'endpoint', 'open', 'companies', 'oldest', 'oldest record'],
            rejections.map((r) => [
              h(r.resource),
              h(r.endpoint),
              String(r.open),
              String(r.companies),
              h(instant(r.oldest)),
              h(
                oneLine(
                  `${r.example.company} ${r.example.window ?? ''} ${r.example.path}: ${r.example.reason}`,
                  160,
                ),
              ),
            ]),
            new Set([2, 3]),
          ),
      rejections.length,
      '<p class="note">Each is in the <code>rejected_records</code> table; the rest of their windows loaded.</p>',
    ),
    listSection(
      'drift',
      'Schema drift',
      'The API sends nothing its spec does not say.',
      drift.length === 0
        ? null
        : table(
            ['kind', 'field', 'value', 'endpoint', 'first seen', 'last seen'],
            drift.map((d) => [
              h(DRIFT_KINDS[d.kind]),
              h(d.field),
              h(d.value || '-'),
              h(d.endpoint || '-'),
              h(instant(d.firstSeenAt)),
              h(instant(d.lastSeenAt)),
            ]),
          ),
      drift.length,
    ),
    listSection(
      'zones',
      'Time zones',
      'Every company is read in the legal time of its address.',
      zones.length === 0
        ? null
        : table(
            ['company', 'state', 'connection', 'zone in use', 'legal time'],
            zones.map((z) => [
              h(z.company),
              h(z.state),
              h(z.connection ?? '-'),
              h(`${z.zone} (${z.offset})`),
              h(`${z.legalZone} (${z.legalOffset})`),
            ]),
          ),
      zones.length,
    ),
    `<section id="queues"><h2>Queues</h2>${table(
      ['queue', 'waiting', 'active', 'delayed', 'failed', 'completed'],
      report.queues.map((q) => [
        `<a href="${h(`${dashboardPath}/queue/${encodeURIComponent(q.queue)}`)}">${h(q.queue)}</a>`,
        String(q.counts.waiting),
        String(q.counts.active),
        String(q.counts.delayed),
        String(q.counts.failed),
        String(q.counts.completed),
      ]),
      new Set([1, 2, 3, 4, 5]),
    )}</section>`,
  ].join('\n');
}

const STYLE = `
:root{--fresh:#2da44e;--aging:#d4a017;--stale:#cf222e;--never:#6e1423;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#f6f8fa}
*{box-sizing:border-box}body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:#fff}
header{padding:12px 20px;background:var(--bg);border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;gap:4px 24px;align-items:baseline}
h1{font-size:20px;margin:0}h2{font-size:17px;margin:22px 0 8px}h3{font-size:15px;margin:16px 0 6px}small{color:var(--muted);font-weight:normal;font-size:13px}
main{padding:0 20px 30px}a{color:#0969da}.meta{color:var(--muted)}
.verdict{margin:14px 0 4px;padding:10px 14px;border-radius:6px;font-weight:600}.verdict.ok{background:#dafbe1;color:#116329}.verdict.problem{background:#ffebe9;color:#a40e26}
.verdict ul{margin:4px 0 0;padding-left:20px;font-weight:normal}
.tiles{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}.tile{display:flex;flex-direction:column;min-width:120px;padding:8px 12px;border:1px solid var(--line);border-radius:6px;text-decoration:none;color:var(--ink)}
.tile b{font-size:22px}.tile span{color:var(--muted);font-size:12px}.tile.bad{border-color:var(--stale);background:#fff5f5}.tile.bad b{color:var(--stale)}.tile.warn{border-color:var(--aging);background:#fffbea}.tile.warn b{color:#9a6700}.tile.zero b{color:var(--muted)}
table.list{border-collapse:collapse;margin:4px 0}table.list th,table.list td{border-bottom:1px solid var(--line);padding:3px 12px 3px 0;text-align:left;vertical-align:top}table.list .num{text-align:right}
.count{display:inline-block;min-width:28px;padding:0 6px;border-radius:10px;text-align:center;font-weight:600;color:#fff}.count.zero{color:var(--muted);font-weight:normal}
.count.fresh{background:var(--fresh)}.count.aging{background:var(--aging);color:#1f2328}.count.stale{background:var(--stale)}.count.never{background:var(--never)}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;align-items:center;color:var(--muted)}.key{display:inline-flex;gap:5px;align-items:center;color:var(--ink)}
.cell{width:13px;height:13px;padding:0;border:1px solid #fff}i.cell{display:inline-block;border:0}
.cell.fresh{background:var(--fresh)}.cell.aging{background:var(--aging)}.cell.stale{background:var(--stale)}
.cell.never{background:repeating-linear-gradient(45deg,var(--never) 0 3px,var(--stale) 3px 5px)}.cell.none{background:#eaeef2}
.chip{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:12px}.chip.fresh{background:var(--fresh)}.chip.aging{background:var(--aging);color:#1f2328}.chip.stale,.chip.never{background:var(--stale)}
.blocks{display:flex;flex-wrap:wrap;gap:8px 28px;align-items:flex-start}
table.grid{border-collapse:collapse}table.grid th.co{font:11px/13px ui-monospace,SFMono-Regular,Menlo,monospace;text-align:left;padding:0 6px 0 0;font-weight:normal;white-space:nowrap}
table.grid th.co.stale{color:var(--stale);font-weight:700}table.grid th.co.aging{color:#9a6700}
table.grid th.rs{height:104px;vertical-align:bottom;padding:0;font-weight:normal;font-size:11px;color:var(--muted)}
table.grid th.rs span{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;display:inline-block;width:13px}
details{margin:4px 0}summary{cursor:pointer;color:#0969da}.note{color:var(--muted);font-size:13px}.none{color:var(--muted)}.bad-text{color:var(--stale);font-weight:600}
`;

/** The banner at the top: all well, or what `status --check` fails on. */
function verdictOf(report: StatusReport): string {
  if (report.freshness === null) {
    return '<div class="verdict problem" id="verdict">The warehouse is not migrated: run <code>punchline migrate</code>.</div>';
  }
  if (report.check.ok)
    return '<div class="verdict ok" id="verdict">All well: nothing stale, no failed job, no paused connection.</div>';
  const problems = report.check.problems.map((p) => `<li>${h(p)}</li>`).join('');
  return `<div class="verdict problem" id="verdict">Needs attention (what <code>punchline status --check</code> fails on):<ul>${problems}</ul></div>`;
}

/** Renders the status page of `report`. */
export function renderStatusPage(report: StatusReport, options: StatusPageOptions): string {
  const companies = new Set(
    (report.freshness ?? []).filter((e) => e.company !== 'group').map((e) => e.company),
  ).size;
  const verdict = verdictOf(report);
  const refresh = options.refreshSeconds ?? 60;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
${refresh > 0 ? `<meta http-equiv="refresh" content="${refresh}">` : ''}
<title>punchline status</title><style>${STYLE}</style></head>
<body><header><h1>punchline status</h1>
<span class="meta">generated ${h(instant(report.generatedAt))}${refresh > 0 ? `, reloads every ${refresh} s` : ''}</span>
<span><a href="${h(options.dashboardPath)}">queue dashboard</a> · <a href="${h(options.jsonPath)}">as JSON</a> · <a href="/metrics">metrics</a></span></header>
<main>${verdict}
${tiles(report, companies)}
${freshnessSection(report)}
${otherSections(report, options.dashboardPath)}
</main></body></html>
`;
}
