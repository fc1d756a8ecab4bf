/**
 * The pure parts of `punchline status`: stale thresholds, freshness entries (never-synced
 * combinations included), the time-zone check and the text tables.
 */
import { describe, expect, it } from 'vitest';
import {
  agingAfterSeconds,
  freshnessState,
  parseStaleAfter,
  staleAfterSeconds,
} from '../src/reports/staleness.js';
import { buildFreshnessEntries, checkOf, type StatusReport } from '../src/reports/status-report.js';
import { formatAge, formatStatus } from '../src/reports/status-format.js';
import { QUEUE_STATES, type QueueState } from '../src/reports/queue-counts.js';
import { timeZoneWarnings, zonesFromConfig } from '../src/reports/time-zone-report.js';
import { loadConfig } from '../src/config.js';

const NOW = new Date('2025-03-10T12:00:00Z');
const A = '11222333000181';
const B = '11444777000161';

function counts(partial: Partial<Record<QueueState, number>>): Record<QueueState, number> {
  return Object.fromEntries(QUEUE_STATES.map((s) => [s, partial[s] ?? 0])) as Record<QueueState, number>;
}

describe('stale thresholds', () => {
  it('follow the schedule: punches after an hour, directory after 3 h, nightly resources after 30 h', () => {
    expect(staleAfterSeconds('punches')).toBe(3600);
    expect(staleAfterSeconds('collaborators')).toBe(3 * 3600);
    expect(staleAfterSeconds('hour_totals')).toBe(30 * 3600);
    expect(staleAfterSeconds('something_new')).toBe(30 * 3600);
  });

  it('are overridden by --stale-after, given in minutes', () => {
    expect(parseStaleAfter('90')).toBe(5400);
    expect(staleAfterSeconds('hour_totals', parseStaleAfter('90'))).toBe(5400);
    expect(parseStaleAfter(undefined)).toBeUndefined();
  });

  it('reject a --stale-after that is not a positive whole number, naming the option', () => {
    expect(() => parseStaleAfter('0')).toThrow(/--stale-after/);
    expect(() => parseStaleAfter('1.5')).toThrow(/--stale-after/);
    expect(() => parseStaleAfter('soon')).toThrow(/got "soon"/);
  });
});

describe('aging', () => {
  it('starts half-way to stale, and no earlier than four hours before it', () => {
    expect(agingAfterSeconds(3600)).toBe(1800);
    expect(agingAfterSeconds(3 * 3600)).toBe(5400);
    expect(agingAfterSeconds(30 * 3600)).toBe(26 * 3600);
  });

  it('sorts an age into fresh, aging, stale or never synced', () => {
    expect(freshnessState(1800, 3600)).toBe('fresh');
    expect(freshnessState(1801, 3600)).toBe('aging');
    expect(freshnessState(3600, 3600)).toBe('aging');
    expect(freshnessState(3601, 3600)).toBe('stale');
    expect(freshnessState(null, 3600)).toBe('never');
    // A nightly resource synced at 02:30 is still fresh at 18:00 the same day.
    expect(freshnessState(15.5 * 3600, 30 * 3600)).toBe('fresh');
  });
});

describe('the verdict of status --check', () => {
  it('fails on stale data, a failed job or a paused connection, each said in words', () => {
    expect(checkOf({ stale: 0, failed: 0 }, [])).toEqual({ ok: true, problems: [] });
    expect(
      checkOf({ stale: 3, failed: 1 }, [{ connection: 'default', code: 'invalid_service_token' }]),
    ).toEqual({
      ok: false,
      problems: [
        '3 company × resource pairs stale',
        '1 job failed',
        'connection "default" paused (invalid_service_token)',
      ],
    });
    expect(checkOf({ stale: 1, failed: 2 }, []).problems).toEqual([
      '1 company × resource stale',
      '2 jobs failed',
    ]);
  });
});

describe('freshness entries', () => {
  const rows = [
    { company: 'group', resource: 'companies', lastSuccessAt: new Date('2025-03-10T11:30:00Z') },
    { company: A, resource: 'punches', lastSuccessAt: new Date('2025-03-10T11:50:00Z') },
    { company: A, resource: 'hour_totals', lastSuccessAt: new Date('2025-03-08T02:30:00Z') },
    { company: B, resource: 'punches', lastSuccessAt: new Date('2025-03-10T09:00:00Z') },
  ];

  it('compute the age and flag those older than their threshold', () => {
    const entries = buildFreshnessEntries(rows, NOW);
    const get = (c: string, r: string) => entries.find((e) => e.company === c && e.resource === r)!;
    expect(get(A, 'punches')).toMatchObject({
      ageSeconds: 600,
      stale: false,
      state: 'fresh',
      lastSuccessAt: '2025-03-10T11:50:00.000Z',
    });
    expect(get(A, 'hour_totals')).toMatchObject({ ageSeconds: 207_000, stale: true, state: 'stale' });
    expect(get(B, 'punches')).toMatchObject({ ageSeconds: 10_800, stale: true, state: 'stale' });
    expect(get('group', 'companies')).toMatchObject({ ageSeconds: 1800, stale: false, state: 'fresh' });
  });

  it('list a resource one company synced and another never did as never synced and stale', () => {
    const entries = buildFreshnessEntries(rows, NOW);
    expect(entries.find((e) => e.company === B && e.resource === 'hour_totals')).toEqual({
      company: B,
      resource: 'hour_totals',
      lastSuccessAt: null,
      ageSeconds: null,
      staleAfterSeconds: 30 * 3600,
      stale: true,
      state: 'never',
    });
    expect(entries).toHaveLength(5);
  });
});

describe('formatAge', () => {
  it('reads at a glance', () => {
    expect(formatAge(45)).toBe('45s');
    expect(formatAge(600)).toBe('10m');
    expect(formatAge(3 * 3600 + 5 * 60)).toBe('3h 05m');
    expect(formatAge(2 * 86_400 + 9 * 3600 + 59)).toBe('2d 9h');
  });
});

describe('the status text', () => {
  const report: StatusReport = {
    generatedAt: NOW.toISOString(),
    queues: [
      { queue: 'sync', counts: counts({ waiting: 3, active: 1, failed: 1, completed: 120 }) },
      { queue: 'followups', counts: counts({ 'waiting-children': 2 }) },
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
        lastError: 'ServerError: the API answered 500\n    at stack',
        failedAt: '2025-03-10T11:00:00.000Z',
      },
    ],
    freshness: buildFreshnessEntries(
      [
        { company: A, resource: 'punches', lastSuccessAt: new Date('2025-03-10T11:50:00Z') },
        { company: A, resource: 'hour_totals', lastSuccessAt: new Date('2025-03-08T02:30:00Z') },
      ],
      NOW,
    ),
    summary: { stale: 1, aging: 0, failed: 1, retrying: 0 },
    check: { ok: false, problems: ['1 company × resource stale', '1 job failed'] },
  };
  const text = formatStatus(report);
  const lines = text.split('\n');

  it('shows counts per queue, with a column for a rare state only when some queue has it', () => {
    expect(lines[1]).toMatch(
      /^\s+queue\s+waiting\s+active\s+delayed\s+waiting-children\s+failed\s+completed$/,
    );
    expect(lines[2]).toMatch(/^\s+sync\s+3\s+1\s+0\s+0\s+1\s+120$/);
    expect(lines[3]).toMatch(/^\s+followups\s+0\s+0\s+0\s+2\s+0\s+0$/);
    expect(text).not.toMatch(/prioritized/);
  });

  it('lists failing jobs with their window and the first line of the last error', () => {
    const row = lines.find((l) => l.includes('punches.default') || l.includes('2025-01-01..2025-01-31'))!;
    expect(row).toMatch(
      /failed\s+sync\s+punches\s+11222333000181\s+2025-01-01\.\.2025-01-31\s+5\s+ServerError: the API answered 500 at stack/,
    );
  });

  it('flags the stale resource and not the fresh one', () => {
    const fresh = lines.find((l) => /\bpunches\b/.test(l) && l.includes('UTC'))!;
    const stale = lines.find((l) => l.includes('hour_totals'))!;
    expect(fresh).toMatch(/2025-03-10 11:50 UTC\s+10m$/);
    expect(stale).toMatch(/2025-03-08 02:30 UTC\s+2d 9h\s+STALE \(older than 1d 6h\)$/);
    expect(lines.at(-2)).toBe('1 stale, 1 failed, 0 retrying.');
  });

  it('tells what to run when the warehouse is not migrated', () => {
    expect(formatStatus({ ...report, freshness: null })).toMatch(/run `punchline migrate`/);
  });

  it('shows a connection paused after a 401 first, with its reason and next check, and counts it', () => {
    const paused = formatStatus({
      ...report,
      pausedConnections: [
        {
          connection: 'default',
          code: 'invalid_service_token',
          reason: 'collaborator: 401 invalid_service_token: the token is invalid',
          since: '2025-03-10T11:40:00.000Z',
          nextCheckAt: '2025-03-10T12:03:00.000Z',
        },
      ],
    }).split('\n');
    expect(paused[0]).toMatch(/^Paused connections/);
    expect(paused[2]).toMatch(
      /^\s+default\s+2025-03-10 11:40 UTC\s+2025-03-10 12:03 UTC\s+collaborator: 401 invalid_service_token/,
    );
    expect(paused.at(-2)).toBe('1 connection paused, 1 stale, 1 failed, 0 retrying.');
    expect(formatStatus({ ...report, pausedConnections: [] })).toBe(text);
  });

  it('shows open rejected records with their oldest record and how to re-read its window, and counts them', () => {
    const out = formatStatus({
      ...report,
      rejections: [
        {
          resource: 'punches',
          endpoint: 'point/getFromPeriod',
          open: 2,
          companies: 1,
          oldest: '2025-03-09T10:00:00.000Z',
          latest: '2025-03-10T11:00:00.000Z',
          example: {
            company: A,
            window: '2025-02-01..2025-02-28',
            path: 'data[3].days[2].points[1]',
            reason: 'datetime: not a date-time',
          },
        },
      ],
    }).split('\n');
    const at = out.findIndex((l) => l.startsWith('Rejected records'));
    expect(out[at + 2]).toMatch(
      /^\s+punches\s+point\/getFromPeriod\s+2\s+1\s+2025-03-09 10:00 UTC\s+11222333000181 2025-02-01\.\.2025-02-28 data\[3\]\.days\[2\]\.points\[1\]: datetime: not a date-time$/,
    );
    expect(out.join('\n')).toContain(
      `punchline backfill --resources punches --company ${A} --from 2025-02-01 --to 2025-02-28 --force`,
    );
    expect(out.at(-2)).toBe('1 stale, 1 failed, 0 retrying. 2 rejected records open.');
  });

  it('lists schema drift: new values and unknown fields', () => {
    const out = formatStatus({
      ...report,
      schemaDrift: [
        {
          kind: 'new_value',
          endpoint: '',
          field: 'point.origin',
          value: 'Quiosque',
          firstSeenAt: '2025-03-09T10:00:00.000Z',
          lastSeenAt: '2025-03-10T11:00:00.000Z',
        },
        {
          kind: 'unknown_field',
          endpoint: 'point/getFromPeriod',
          field: 'days[].points[].selfie_url',
          value: '',
          firstSeenAt: '2025-03-09T10:00:00.000Z',
          lastSeenAt: '2025-03-09T10:00:00.000Z',
        },
      ],
    });
    expect(out).toMatch(/^Schema drift/m);
    expect(out).toMatch(
      /^\s+new value\s+point\.origin\s+Quiosque\s+-\s+2025-03-09 10:00 UTC\s+2025-03-10 11:00 UTC$/m,
    );
    expect(out).toMatch(
      /^\s+unknown field\s+days\[\]\.points\[\]\.selfie_url\s+-\s+point\/getFromPeriod\s+/m,
    );
  });

  it('warns of a company read in another time than its CEP, with the setting that fixes it', () => {
    const out = formatStatus({
      ...report,
      timeZoneWarnings: [
        {
          company: A,
          zipCode: '69005040',
          state: 'AM',
          connection: 'default',
          zone: 'America/Sao_Paulo',
          offset: 'UTC−3',
          legalZone: 'America/Manaus',
          legalOffset: 'UTC−4 or UTC−5',
        },
      ],
    });
    expect(out).toMatch(
      /^\s+11222333000181\s+69005040\s+AM\s+default\s+America\/Sao_Paulo \(UTC−3\)\s+America\/Manaus \(UTC−4 or UTC−5\)$/m,
    );
    expect(out).toContain(`COMPANY_TIMEZONES=${A}=America/Manaus`);
    expect(out.trimEnd().split('\n').at(-1)).toBe(
      '1 stale, 1 failed, 0 retrying. 1 company in a doubtful time zone.',
    );
    expect(formatStatus({ ...report, rejections: [], schemaDrift: [], timeZoneWarnings: [] })).toBe(text);
  });
});

describe('the status text of many companies', () => {
  const resources = ['punches', 'hour_totals', 'collaborators'];
  const cnpj = (i: number) => `${String(10_000_000 + i)}000100`;
  /** 60 companies: company 7 never synced hour_totals, company 12 is a day behind on punches, company 30 is aging. */
  const rows = [
    { company: 'group', resource: 'companies', lastSuccessAt: new Date(NOW.getTime() - 600_000) },
    ...Array.from({ length: 60 }, (_, i) =>
      resources
        .filter((r) => !(i === 7 && r === 'hour_totals'))
        .map((resource) => {
          const minutes =
            i === 12 && resource === 'punches' ? 24 * 60 : i === 30 && resource === 'punches' ? 45 : 5;
          return { company: cnpj(i), resource, lastSuccessAt: new Date(NOW.getTime() - minutes * 60_000) };
        }),
    ).flat(),
  ];
  const freshness = buildFreshnessEntries(rows, NOW);
  const report: StatusReport = {
    generatedAt: NOW.toISOString(),
    queues: [],
    failing: [],
    freshness,
    summary: { stale: 2, aging: 1, failed: 0, retrying: 0 },
    check: checkOf({ stale: 2, failed: 0 }, []),
  };
  const text = formatStatus(report);

  it('sums each resource instead of a line per company and resource', () => {
    expect(freshness).toHaveLength(181);
    expect(text).toMatch(/^Freshness of 60 companies/m);
    expect(text).toMatch(/^\s+resource\s+fresh\s+aging\s+stale\s+never\s+oldest$/m);
    expect(text).toMatch(/^\s+punches\s+58\s+1\s+1\s+0\s+1d 0h$/m);
    expect(text).toMatch(/^\s+hour_totals\s+59\s+0\s+0\s+1\s+5m$/m);
    expect(text).toMatch(/^\s+companies\s+1\s+0\s+0\s+0\s+10m$/m);
    expect(text.split('\n').length).toBeLessThan(30);
  });

  it('lists the companies that are not fresh, worst first', () => {
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('Companies with the oldest data'));
    expect(lines[at]).toContain('3 of 3 not fresh');
    expect(lines[at + 2]).toMatch(
      new RegExp(`^\\s+${cnpj(7)}\\s+1\\s+0\\s+hour_totals\\s+never\\s+-\\s+STALE \\(never synced\\)$`),
    );
    expect(lines[at + 3]).toMatch(
      new RegExp(
        `^\\s+${cnpj(12)}\\s+1\\s+0\\s+punches\\s+\\S+ \\S+ UTC\\s+1d 0h\\s+STALE \\(older than 1h 00m\\)$`,
      ),
    );
    expect(lines[at + 4]).toMatch(
      new RegExp(`^\\s+${cnpj(30)}\\s+0\\s+1\\s+punches\\s+\\S+ \\S+ UTC\\s+45m\\s+aging$`),
    );
    expect(text).toContain('2 stale, 1 aging, 0 failed, 0 retrying.');
  });

  it('shows at most the number of companies asked for, and every line when told to', () => {
    expect(formatStatus(report, { worstCompanies: 1 })).toContain('1 of 3 not fresh');
    const all = formatStatus(report, { maxFreshnessLines: Number.POSITIVE_INFINITY });
    expect(all).toMatch(/^Freshness \(last successful sync per company and resource\)$/m);
    expect(all.split('\n').filter((l) => /^\s+\d{14}\s/.test(l))).toHaveLength(180);
  });
});

describe('time-zone warnings', () => {
  const companies = [
    { cnpj: A, zipCode: '01310100', syncedBy: ['default'] },
    { cnpj: B, zipCode: '69005040', syncedBy: ['default'] },
    { cnpj: '11222333000343', zipCode: null, syncedBy: [] },
  ];

  it('warns of a Manaus CEP read in São Paulo time, and not once COMPANY_TIMEZONES names a zone of its offset', () => {
    const plain = loadConfig({ SERVICE_API_BASE_URL: 'http://x.example', SERVICE_API_TOKEN: 'tok-1234' });
    expect(timeZoneWarnings(companies, zonesFromConfig(plain), NOW)).toEqual([
      {
        company: B,
        zipCode: '69005040',
        state: 'AM',
        connection: 'default',
        zone: 'America/Sao_Paulo',
        offset: 'UTC−3',
        legalZone: 'America/Manaus',
        legalOffset: 'UTC−4 or UTC−5',
      },
    ]);
    const named = loadConfig({
      SERVICE_API_BASE_URL: 'http://x.example',
      SERVICE_API_TOKEN: 'tok-1234',
      COMPANY_TIMEZONES: `${B}=America/Cuiaba`,
    });
    expect(timeZoneWarnings(companies, zonesFromConfig(named), NOW)).toEqual([]);
  });

  it('warns when COMPANY_TIMEZONES names a zone the CEP contradicts, even without connections', () => {
    const wrong = loadConfig({ COMPANY_TIMEZONES: `${A}=America/Rio_Branco` });
    expect(
      timeZoneWarnings(companies, zonesFromConfig(wrong), NOW).map((w) => [
        w.company,
        w.connection,
        w.zone,
        w.legalZone,
      ]),
    ).toEqual([
      [A, null, 'America/Rio_Branco', 'America/Sao_Paulo'],
      [B, null, 'America/Sao_Paulo', 'America/Manaus'],
    ]);
  });
});
