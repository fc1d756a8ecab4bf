/**
 * The `company_calendar` mart: each company's calendar
 * (docs/warehouse.md "Company calendar"). National holidays (calendar.ts), the
 * fixed-date holidays of the company's state by its postal code (as its time zone is),
 * and the days the user declares in `declared_holidays`, read on every refresh.
 * Rewritten whole months at a time.
 */
import { legalTimeOfCep } from '../util/legal-time.js';
import { quoteIdent } from '../warehouse/db.js';
import { nationalHolidays, type Holiday } from './calendar.js';
import type { MartModule } from './module.js';
import { rewrite, wholeMonths } from './workforce-events.js';

/**
 * Fixed-date state holidays set by each state's law (month, day, name). States whose
 * holidays coincide with national ones (MG's 21 April) or that keep none on a fixed
 * weekday-independent date are absent.
 */
export const STATE_HOLIDAYS: Readonly<Record<string, readonly [number, number, string][]>> = {
  AC: [
    [1, 23, 'Dia do Evangélico'],
    [6, 15, 'Aniversário do Acre'],
    [8, 6, 'Início da Revolução Acreana'],
    [9, 5, 'Dia da Amazônia'],
    [11, 17, 'Assinatura do Tratado de Petrópolis'],
  ],
  AL: [
    [6, 24, 'São João'],
    [6, 29, 'São Pedro'],
    [9, 16, 'Emancipação Política de Alagoas'],
  ],
  AM: [[9, 5, 'Elevação do Amazonas à categoria de província']],
  AP: [
    [3, 19, 'Dia de São José'],
    [9, 13, 'Criação do Território Federal do Amapá'],
  ],
  BA: [[7, 2, 'Independência da Bahia']],
  CE: [
    [3, 19, 'Dia de São José'],
    [3, 25, 'Data Magna do Ceará'],
  ],
  DF: [[11, 30, 'Dia do Evangélico']],
  MA: [[7, 28, 'Adesão do Maranhão à Independência']],
  MS: [[10, 11, 'Criação do Estado de Mato Grosso do Sul']],
  PA: [[8, 15, 'Adesão do Grão-Pará à Independência']],
  PB: [[8, 5, 'Fundação do Estado da Paraíba']],
  PE: [[3, 6, 'Revolução Pernambucana']],
  PI: [[10, 19, 'Dia do Piauí']],
  PR: [[12, 19, 'Emancipação Política do Paraná']],
  RJ: [[4, 23, 'Dia de São Jorge']],
  RN: [[10, 3, 'Mártires de Cunhaú e Uruaçu']],
  RO: [
    [1, 4, 'Criação do Estado de Rondônia'],
    [6, 18, 'Dia do Evangélico'],
  ],
  RR: [[10, 5, 'Criação do Estado de Roraima']],
  RS: [[9, 20, 'Revolução Farroupilha']],
  SE: [[7, 8, 'Emancipação Política de Sergipe']],
  SP: [[7, 9, 'Revolução Constitucionalista']],
  TO: [
    [9, 8, 'Nossa Senhora da Natividade'],
    [10, 5, 'Criação do Estado do Tocantins'],
  ],
};

/** The two-letter state of a postal code (`PE (Fernando de Noronha)` is PE); undefined when unknown. */
export function stateOfCep(zip: string | null | undefined): string | undefined {
  return legalTimeOfCep(zip)?.state.slice(0, 2);
}

/** The holidays of `state` in the years `first`..`last`, by date. */
export function stateHolidays(state: string | undefined, first: number, last: number): Holiday[] {
  const out: Holiday[] = [];
  for (let y = first; y <= last; y++)
    for (const [m, d, name] of STATE_HOLIDAYS[state ?? ''] ?? [])
      out.push({ date: `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`, name });
  return out;
}

/** Rewrites company `$1`'s calendar of `$2`..`$3` (whole months), its state `$4`. */
function buildCompanyCalendarRefresh(
  schema: string,
  company: string,
  first: string,
  last: string,
  state: string | undefined,
) {
  const t = (name: string) => `${quoteIdent(schema)}.${quoteIdent(name)}`;
  const years = { first: Number(first.slice(0, 4)), last: Number(last.slice(0, 4)) };
  const national: Holiday[] = [];
  for (let y = years.first; y <= years.last; y++) national.push(...nationalHolidays(y));
  const ofState = stateHolidays(state, years.first, years.last);
  return {
    delete: {
      text: `WITH gone AS (DELETE FROM ${t('company_calendar')} WHERE company_cnpj = $1 AND calendar_date BETWEEN $2::date AND $3::date RETURNING 1)
SELECT count(*)::int AS n FROM gone`,
      values: [company, first, last],
    },
    insert: {
      text: `WITH zip AS (SELECT coalesce((SELECT zip_code FROM ${t('companies')} WHERE cnpj = $1), '') AS code),
days AS (SELECT g::date AS d FROM generate_series($2::date, $3::date, interval '1 day') g),
holidays AS (
  SELECT day, name, 'national' AS scope, true AS off, 1 AS rank FROM unnest($5::date[], $6::text[]) n (day, name)
  UNION ALL SELECT day, name, 'state', true, 2 FROM unnest($7::date[], $8::text[]) s (day, name)
  UNION ALL SELECT h.holiday_date, h.name, h.kind, h.is_day_off, 3 FROM ${t('declared_holidays')} h CROSS JOIN zip
   WHERE h.holiday_date BETWEEN $2::date AND $3::date
     AND (h.company_cnpj = $1 OR (h.company_cnpj = '' AND h.zip_prefix <> '' AND zip.code LIKE h.zip_prefix || '%'))
), first_off AS (
  SELECT DISTINCT ON (day) day, name, scope FROM holidays WHERE off ORDER BY day, rank, name
), made AS (
INSERT INTO ${t('company_calendar')} (company_cnpj, calendar_date, state, iso_day_of_week, is_holiday, holiday_name, holiday_scope,
  is_business_day, is_working_day)
SELECT $1, x.d, $4, extract(isodow FROM x.d)::int, h.day IS NOT NULL, h.name, h.scope,
       extract(isodow FROM x.d) < 6 AND h.day IS NULL, extract(isodow FROM x.d) < 7 AND h.day IS NULL
  FROM days x LEFT JOIN first_off h ON h.day = x.d
RETURNING 1
) SELECT count(*)::int AS n FROM made`,
      values: [
        company,
        first,
        last,
        state ?? null,
        national.map((h) => h.date),
        national.map((h) => h.name),
        ofState.map((h) => h.date),
        ofState.map((h) => h.name),
      ],
    },
  };
}

/** `company_calendar`, rewritten whole months of the scope. */
export const companyCalendar: MartModule = {
  name: 'company_calendar',
  reads: ['companies', 'declared_holidays'],
  writes: ['company_calendar'],
  refresh: async (client, scope) => {
    const { first, last } = wholeMonths(scope.from, scope.to);
    const { rows } = await client.query<{ zip_code: string | null }>(
      `SELECT zip_code FROM ${quoteIdent(scope.schema)}.companies WHERE cnpj = $1`,
      [scope.company],
    );
    const state = stateOfCep(rows[0]?.zip_code);
    return rewrite(client, buildCompanyCalendarRefresh(scope.schema, scope.company, first, last, state));
  },
};
