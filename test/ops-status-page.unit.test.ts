/**
 * The HTML of the status page (the browser test, ops-status-page.e2e.test.ts, looks at it
 * rendered): what the report says and nothing more, every text escaped, no script and no
 * external asset, a grid cell per company × resource with its state, and a banner that
 * says all is well only when it is.
 */
import { describe, expect, it } from 'vitest';
import { buildFreshnessEntries, checkOf, type StatusReport } from '../src/reports/status-report.js';
import { escapeHtml, renderStatusPage } from '../src/http/status-page.js';

const NOW = new Date('2025-03-10T12:00:00Z');
const A = '11222333000181';
const B = '11444777000161';
const options = { dashboardPath: '/dashboard', jsonPath: '/status.json' };

const freshness = buildFreshnessEntries(
  [
    { company: 'group', resource: 'companies', lastSuccessAt: new Date('2025-03-10T11:30:00Z') },
    { company: A, resource: 'punches', lastSuccessAt: new Date('2025-03-10T11:55:00Z') },
    { company: A, resource: 'hour_totals', lastSuccessAt: new Date('2025-03-08T02:30:00Z') },
    { company: B, resource: 'punches', lastSuccessAt: new Date('2025-03-10T11:15:00Z') },
  ],
  NOW,
);
const report: StatusReport = {
  generatedAt: NOW.toISOString(),
  queues: [
    {
      queue: 'sync',
      counts: {
        waiting: 0,
        active: 0,
        delayed: 0,
        prioritized: 0,
        'waiting-children': 0,
        failed: 1,
        completed: 3,
      },
    },
  ],
  failing: [
    {
      queue: 'sync',
      id: 'punches.default.x',
      state: 'failed',
      resource: 'punches',
      company: A,
      window: '2025-01-01..2025-01-31',
      attempts: 5,
      lastError: 'the API answered <script>alert(1)</script> & "quit"',
    },
  ],
  freshness,
  summary: { stale: 2, aging: 1, failed: 1, retrying: 0 },
  check: checkOf({ stale: 2, failed: 1 }, []),
};

describe('the status page', () => {
  const html = renderStatusPage(report, options);

  it('escapes every text it shows', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('the API answered &#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;quit&#34;');
  });

  it('holds no script and loads nothing from elsewhere', () => {
    expect(html).not.toMatch(/<script|<link|<img|src=|@import|url\(/i);
    expect(
      [...html.matchAll(/href="([^"]*)"/g)]
        .map((m) => m[1])
        .filter((href) => !href!.startsWith('/') && !href!.startsWith('#')),
    ).toEqual([]);
  });

  it('has a cell per company × resource with its state, the worst company first', () => {
    const cells = [
      ...html.matchAll(
        /<td class="cell (\w+)" data-company="(\d+)" data-resource="(\w+)" data-state="(\w+)"/g,
      ),
    ].map((m) => [m[2], m[3], m[1]]);
    expect(cells).toEqual([
      [B, 'hour_totals', 'never'],
      [B, 'punches', 'aging'],
      [A, 'hour_totals', 'stale'],
      [A, 'punches', 'fresh'],
    ]);
    // B has a never-synced resource: as bad as A's stale one, and further past (never) its threshold.
    expect([...html.matchAll(/<tr data-company="(\d+)">/g)].map((m) => m[1])).toEqual([B, A]);
    expect(html).toMatch(/<span class="chip fresh"[^>]*>companies 30m<\/span>/);
  });

  it('says what status --check fails on, and links to the dashboard and the JSON', () => {
    expect(html).toContain('<div class="verdict problem" id="verdict">');
    expect(html).toContain('<li>2 company × resource pairs stale</li><li>1 job failed</li>');
    expect(html).toContain('<a href="/dashboard">queue dashboard</a>');
    expect(html).toContain('<a href="/status.json">as JSON</a>');
    expect(html).toContain('<a href="/dashboard/queue/sync">sync</a>');
  });

  it('says all is well only when nothing is stale, failed or paused, and never on an unmigrated warehouse', () => {
    const well = renderStatusPage(
      {
        ...report,
        failing: [],
        summary: { stale: 0, aging: 0, failed: 0, retrying: 0 },
        check: checkOf({ stale: 0, failed: 0 }, []),
      },
      options,
    );
    expect(well).toContain('<div class="verdict ok" id="verdict">All well');
    const unmigrated = renderStatusPage(
      { ...report, freshness: null, check: checkOf({ stale: 0, failed: 0 }, []) },
      options,
    );
    expect(unmigrated).toContain('<div class="verdict problem" id="verdict">The warehouse is not migrated');
    expect(unmigrated).not.toContain('All well');
  });
});
