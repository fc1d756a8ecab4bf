import { companyTimezone, type Config } from '../config.js';
import { checkZoneAgainstCep, formatOffset } from '../util/legal-time.js';
import { sql, type Selectable } from 'kysely';
import { ROLE_TABLES } from '../resources/index.js';
import type { Companies } from '../warehouse/database.js';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { unlessMissing } from './freshness.js';

/** A zone the sync uses for a company, and through which connection (null: none configured, API_TIMEZONE). */
export type ZoneInUse = { readonly connection: string | null; readonly zone: string };

/** Which zones the sync uses for a company, given the connections that synced it. */
export type ZonesInUse = (cnpj: string, syncedBy: readonly string[]) => readonly ZoneInUse[];

/** {@link ZonesInUse} of a configuration. */
export function zonesFromConfig(
  config: Pick<Config, 'connections' | 'apiTimezone' | 'companyTimezones'>,
): ZonesInUse {
  return (cnpj, syncedBy) => {
    const synced = config.connections.filter((c) => syncedBy.includes(c.name));
    const connections = synced.length > 0 ? synced : config.connections;
    if (connections.length === 0)
      return [{ connection: null, zone: config.companyTimezones[cnpj] ?? config.apiTimezone }];
    return connections.map((c) => ({ connection: c.name, zone: companyTimezone(c, cnpj) }));
  };
}

/** A company whose zone in use is not the legal time at its address. */
export interface TimeZoneWarning {
  readonly company: string;
  /** `zip_code` as stored, and the state of the CEP (`AM`). */
  readonly zipCode: string;
  readonly state: string;
  /** Connection that reads it in `zone` (null when none is configured). */
  readonly connection: string | null;
  /** The zone in use, and its UTC offset now, e.g. `UTC−3`. */
  readonly zone: string;
  readonly offset: string;
  /** The state's legal zone, e.g. `America/Manaus`. */
  readonly legalZone: string;
  /** The legal UTC offset now, e.g. `UTC−4` (`UTC−4 or UTC−5` where a state has two). */
  readonly legalOffset: string;
}

/** A company as the check reads it: its CEP, and the connections that synced it. */
export interface CompanyAddress {
  readonly cnpj: string;
  readonly zipCode: string | null;
  readonly syncedBy: readonly string[];
}

/**
 * The warnings of `companies` (pure): one per company and zone in use (spec 1.2: the company's local
 * time; COMPANY_TIMEZONES, else the connection's) that is not the legal time of the Brazilian state of
 * its CEP (`companies.zip_code`) at `now`. Every punch of such a company is stored an hour or two off,
 * silently, so `status` and `/metrics` say so. The zones come from the asking process's configuration,
 * for the connections that synced the company (sync_runs), or every configured one before any did.
 */
export function timeZoneWarnings(
  companies: readonly CompanyAddress[],
  zonesInUse: ZonesInUse,
  now: Date,
): TimeZoneWarning[] {
  return companies.flatMap((c) =>
    zonesInUse(c.cnpj, c.syncedBy).flatMap(({ connection, zone }) => {
      const check = checkZoneAgainstCep(zone, c.zipCode, now);
      if (!check || check.agrees) return [];
      return [
        {
          company: c.cnpj,
          zipCode: c.zipCode ?? '',
          state: check.legal.state,
          connection,
          zone,
          offset: formatOffset(check.offsetInUse),
          legalZone: check.legal.zones[0]!,
          legalOffset: check.legalOffsets.map(formatOffset).join(' or '),
        },
      ];
    }),
  );
}

/** Reads the companies' CEPs and who synced them; null when the warehouse is not migrated. */
export async function readCompanyAddresses(
  pool: SqlRunner,
  schema: string,
): Promise<CompanyAddress[] | null> {
  // The company table is the declarations' (ROLE_TABLES): the row type names its columns.
  const query = sql<Pick<Selectable<Companies>, 'cnpj'> & { zipCode: string | null; syncedBy: string[] }>`
      select c.cnpj, c.zip_code as "zipCode",
             coalesce((select array_agg(distinct r.connection) from ${sql.id(schema, 'sync_runs')} r where r.company_cnpj = c.cnpj and r.status = 'succeeded'), '{}') as "syncedBy"
        from ${sql.id(schema, ROLE_TABLES.company)} c order by c.cnpj`;
  return (await unlessMissing(query.execute(warehouseDb(pool, schema))))?.rows ?? null;
}
