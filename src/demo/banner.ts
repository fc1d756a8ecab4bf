/** Inputs of {@link formatDemoBanner}. */
export interface DemoBannerInput {
  /** Base URLs of the ops server (e.g. `http://127.0.0.1:9464`) and of the emulator. */
  readonly opsUrl: string;
  readonly emulatorUrl: string;
  /** Companies in the emulated group. */
  readonly companies: number;
  /** Warehouse connection string (its password is left out) and schema. */
  readonly databaseUrl: string;
  readonly schema: string;
  /** How to call the CLI here, e.g. `node bin/punchline.js` or `punchline`. */
  readonly cli: string;
}

/** Queries over the analyst views and marts (docs/warehouse.md). */
export const DEMO_QUERIES: readonly { title: string; sql: string }[] = [
  {
    title: 'attendance of the last 7 days',
    sql:
      'select work_date, count(*) filter (where punch_count > 0) as present, count(*) filter (where is_absent) as absent,\n' +
      '       count(*) filter (where is_late) as late,\n' +
      '       count(*) filter (where on_leave) as on_leave, round(sum(worked_hours), 1) as hours\n' +
      '  from daily_attendance group by work_date order by work_date desc limit 7;',
  },
  {
    title: 'hours worked and overtime (all bands) per department at the time and month',
    sql:
      'select month, department, round(sum(worked_time_hours)) as worked_hours,\n' +
      '       round(sum(over_time_total_hours)) as overtime_hours\n' +
      '  from monthly_hours group by month, department order by month, department;',
  },
  {
    title: 'headcount, hires, leavers and turnover per company, department and month',
    sql:
      'select company_cnpj, month, department, headcount_open, hires, leavers, headcount_close, turnover_rate\n' +
      '  from monthly_headcount order by company_cnpj, month, department;',
  },
  {
    title: 'how fresh each company and resource is',
    sql: 'select company_cnpj, resource, last_success_at, age_seconds from sync_freshness order by age_seconds desc;',
  },
];

/** The URL without its password: psql asks for it, and it never reaches the terminal. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url);
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** Quotes a value for a POSIX shell. */
const shellQuote = (value: string) =>
  /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;

/** What `punchline demo` prints once everything runs: where to look and a few queries that show the data. */
export function formatDemoBanner(i: DemoBannerInput): string {
  const psql = `PGOPTIONS=${shellQuote(`-c search_path=${i.schema}`)} psql ${shellQuote(withoutPassword(i.databaseUrl))}`;
  const lines = [
    '',
    'punchline demo is running. Press Ctrl-C to stop.',
    '',
    `  Dashboard   ${i.opsUrl}/dashboard   (queues, jobs, errors, retries)`,
    `  Metrics     ${i.opsUrl}/metrics   (Prometheus)    Ready: ${i.opsUrl}/readyz`,
    `  Emulator    ${i.emulatorUrl}   (Customer API v2 stand-in, ${i.companies} companies)`,
    `  Warehouse   ${psql}`,
    `  Status      ${i.opsUrl}/status   or   ${i.cli} status`,
    '',
    'Try in psql:',
  ];
  for (const q of DEMO_QUERIES) lines.push('', `  -- ${q.title}`, ...q.sql.split('\n').map((l) => `  ${l}`));
  return `${lines.join('\n')}\n\n`;
}
