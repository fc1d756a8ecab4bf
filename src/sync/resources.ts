/**
 * The closed set of sync resources (DESIGN.md §2 `--resources`) and how each one is
 * read: per connection, per company, per date window, per day, or as a follow-up of
 * another resource's window.
 */

/** Every resource name `--resources` accepts, in the order a backfill runs them. */
export const RESOURCES = [
  'companies',
  'lookups',
  'collaborators',
  'punches',
  'hour_totals',
  'tardiness',
  'adjustments',
  'inconsistencies',
  'hour_bank',
  'absences',
  'audit_photos',
  'absence_attachments',
] as const;

/** One sync resource. */
export type Resource = (typeof RESOURCES)[number];

/**
 * How a resource is read:
 * - `group`: once per connection (the group walk);
 * - `directory`: once per company, current state, no window;
 * - `period`: per company and date window (`begin_date`/`end_date`, spec 4.1);
 * - `daily`: per company and date window, one call per day (spec 4.1 `overtime`);
 * - `followup`: per company and window, items found by a parent resource's window.
 */
export type ResourceKind = 'group' | 'directory' | 'period' | 'daily' | 'followup';

/** Static facts about one resource. */
export interface ResourceInfo {
  /** How the resource is read. */
  readonly kind: ResourceKind;
  /** For follow-ups: the resource whose windows list the items to fetch. */
  readonly parent?: Resource;
}

/** Facts of every resource. */
export const RESOURCE_INFO: Readonly<Record<Resource, ResourceInfo>> = Object.freeze({
  companies: { kind: 'group' },
  lookups: { kind: 'directory' },
  collaborators: { kind: 'directory' },
  punches: { kind: 'period' },
  hour_totals: { kind: 'period' },
  tardiness: { kind: 'period' },
  adjustments: { kind: 'period' },
  inconsistencies: { kind: 'period' },
  hour_bank: { kind: 'daily' },
  absences: { kind: 'period' },
  audit_photos: { kind: 'followup', parent: 'punches' },
  absence_attachments: { kind: 'followup', parent: 'absences' },
});

/** True when `name` is one of {@link RESOURCES}. */
export function isResource(name: string): name is Resource {
  return (RESOURCES as readonly string[]).includes(name);
}

/** True for resources read per date window (period, daily and follow-up ones). */
export function isWindowed(resource: Resource): boolean {
  const kind = RESOURCE_INFO[resource].kind;
  return kind === 'period' || kind === 'daily' || kind === 'followup';
}

/** The follow-up resource fed by `parent`'s windows, if any. */
export function followUpOf(parent: Resource): Resource | undefined {
  return RESOURCES.find((r) => RESOURCE_INFO[r].parent === parent);
}

/** Resources synced when none are named: all, audit photos only when opted in. */
export function defaultResources(syncAuditPhotos: boolean): Resource[] {
  return RESOURCES.filter((r) => r !== 'audit_photos' || syncAuditPhotos);
}

/**
 * Parses a comma-separated `--resources` value into resources in {@link RESOURCES}
 * order, without duplicates. Throws a RangeError naming the unknown name.
 */
export function parseResources(list: string): Resource[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) throw new RangeError(`--resources is empty (choose from: ${RESOURCES.join(', ')})`);
  for (const n of names) {
    if (!isResource(n)) throw new RangeError(`unknown resource "${n}" (choose from: ${RESOURCES.join(', ')})`);
  }
  return RESOURCES.filter((r) => names.includes(r));
}
