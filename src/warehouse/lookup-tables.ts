/**
 * The lookup lists of spec 2.4, named by their warehouse tables (docs/warehouse.md). The one
 * list the emulator, the sync and the loaders share.
 */
export const LOOKUP_KINDS = [
  'departments',
  'occupations',
  'cost_centers',
  'units',
  'journeys',
  'point_rules',
  'collaborator_settings',
  'digital_fences',
  'dismissal_types',
  'absence_types',
] as const;
/** One lookup table. */
export type LookupKind = (typeof LOOKUP_KINDS)[number];
