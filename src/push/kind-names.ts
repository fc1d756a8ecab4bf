/** The closed set of `punchline push` kinds, in the order of spec 4.2 (no imports: the CLI's help reads it). */
export const PUSH_KINDS = [
  'collaborators',
  'photos',
  'dismissals',
  'punches',
  'absences',
  'departments',
  'occupations',
  'fired-types',
  'cost-centers',
] as const;
/** One push kind. */
export type PushKind = (typeof PUSH_KINDS)[number];

/** True when `name` is one of {@link PUSH_KINDS}. */
export function isPushKind(name: string): name is PushKind {
  return (PUSH_KINDS as readonly string[]).includes(name);
}
