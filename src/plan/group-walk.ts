/**
 * The group walk (docs/architecture.md "Companies: the group walk", spec 1.4): which companies
 * a connection's token reaches, read through the catalog's `group` resource. A headquarters
 * token (its company is the group's `is_headquarter` entry and the group has branches) syncs
 * every company of the group, each read with `company_national_registry`; any other token
 * only its own, unscoped (spec 1.4 rule 3: a branch token sees only itself).
 */
import type { ApiClient, CallOptions } from '../api/client.js';
import type { Company, EconomicGroupEntry } from '../api/schemas.js';
import { CATALOG, type WalkDeclaration } from '../resources/index.js';

/** What the walk found: the own company, the group as listed (spec 2.3), the CNPJs to sync (own first). */
export interface GroupWalk {
  readonly own: Company;
  readonly group: readonly EconomicGroupEntry[];
  /** True for a headquarters token with branches. */
  readonly headquarters: boolean;
  readonly companies: readonly string[];
  /** Read each company with `company_national_registry` (spec 1.4). */
  readonly scoped: boolean;
}

/** The walk of the catalog's group resource. */
function catalogWalk(): WalkDeclaration {
  for (const declaration of Object.values(CATALOG)) if (declaration.read === 'group') return declaration.walk;
  throw new Error('the catalog declares no group resource');
}

/** Walks the group of the client's token (`GET economic-group`, `GET company`) and picks the companies. */
export async function walkGroup(
  api: Pick<ApiClient, 'request'>,
  opts?: CallOptions,
  walk: WalkDeclaration = catalogWalk(),
): Promise<GroupWalk> {
  const { data: group } = await api.request(walk.group, {}, opts);
  const { data: own } = await api.request(walk.company, {}, opts);
  const self = group.find((g) => g.national_registry === own.national_registry);
  const headquarters = self?.is_headquarter === true && group.length > 1;
  if (!headquarters) return { own, group, headquarters, companies: [own.national_registry], scoped: false };
  const companies = [...new Set([own.national_registry, ...group.map((g) => g.national_registry)])];
  return { own, group, headquarters, companies, scoped: true };
}
