/**
 * Data quirks of real sources (docs/emulator.md, "Data quirks"). Each is off by default, so the
 * default data stays byte-identical; when on, it is seeded like the rest, and truth.ts knows it.
 */
import { EmulatorOptionError } from './option-error.js';

/** The quirks, by option name (`quirks: ['nulls', ...]`, `--quirks nulls,...`). */
export const QUIRK_NAMES = [
  'nulls',
  'newEnums',
  'unpaddedCpf',
  'duplicateCpf',
  'rehireInMonth',
  'otherTimeZone',
  'extraFields',
  'contradictions',
  'groupTransfer',
] as const;
/** One quirk. */
export type QuirkName = (typeof QUIRK_NAMES)[number];
/** Which quirks are on. */
export type Quirks = Readonly<Record<QuirkName, boolean>>;

/** How quirks are asked for: all (`true`), none (`false`), a list, or a partial record. */
export type QuirksOption = boolean | readonly QuirkName[] | Partial<Record<QuirkName, boolean>>;

/** Every quirk off. */
const NO_QUIRKS: Quirks = Object.freeze(
  Object.fromEntries(QUIRK_NAMES.map((q) => [q, false])) as Record<QuirkName, boolean>,
);

/** Values the spec does not list that `newEnums` sends (the sync must store them, not reject them). */
export const NEW_ENUM_VALUES = Object.freeze({
  /** spec 2.12 lists five origins; a sixth: a shared kiosk tablet. */
  origin: 'Quiosque',
  /** Method of the kiosk's punches. */
  method: 'QR Code',
  /** spec 2.9 lists three statuses; a fourth for requests under review (still awaiting a manager). */
  adjustmentStatus: 'Em análise',
  /** spec 2.11 lists four regimes; a fifth label, valued as `BH`. */
  regime: 'BH Semestral',
});

/** Fields the spec does not describe that `extraFields` sends (the sync must ignore them and report them once). */
export const EXTRA_FIELDS = Object.freeze({
  /** On every punch (spec 2.12 point object): the clock or phone that recorded it. */
  point: 'device_id',
});

/** The command line's name of a quirk: `newEnums` → `new-enums`. */
export function quirkFlag(name: QuirkName): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Checks a {@link QuirksOption} into the complete record. */
export function resolveQuirks(option: QuirksOption | undefined): Quirks {
  if (option === undefined || option === false) return NO_QUIRKS;
  if (option === true)
    return Object.freeze(Object.fromEntries(QUIRK_NAMES.map((q) => [q, true])) as Record<QuirkName, boolean>);
  const out: Record<QuirkName, boolean> = { ...NO_QUIRKS };
  const entries: [string, unknown][] = Array.isArray(option)
    ? (option as readonly string[]).map((q) => [q, true])
    : Object.entries(option as Record<string, unknown>);
  for (const [name, on] of entries) {
    const q = QUIRK_NAMES.find((x) => x === name);
    if (!q)
      throw new EmulatorOptionError(
        `unknown quirk ${JSON.stringify(name)} (known: ${QUIRK_NAMES.join(', ')})`,
      );
    if (typeof on !== 'boolean')
      throw new EmulatorOptionError(`quirk ${name} must be true or false, got ${JSON.stringify(on)}`);
    out[q] = on;
  }
  return Object.freeze(out);
}

/** Parses the CLI's `--quirks all | none | nulls,new-enums,...`. */
export function parseQuirksSpec(spec: string): Quirks {
  const parts = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (parts.length === 1 && parts[0]!.toLowerCase() === 'all') return resolveQuirks(true);
  if (parts.length === 1 && parts[0]!.toLowerCase() === 'none') return NO_QUIRKS;
  if (parts.length === 0)
    throw new EmulatorOptionError('--quirks must name at least one quirk, or all or none');
  return resolveQuirks(
    parts.map((p) => {
      // `nulls`, `new-enums`, `NEW_ENUMS` … all name a quirk.
      const q = QUIRK_NAMES.find((x) => x.toLowerCase() === p.replace(/[-_\s]/g, '').toLowerCase());
      if (!q)
        throw new EmulatorOptionError(
          `--quirks: unknown quirk ${JSON.stringify(p)} (known: all, none, ${QUIRK_NAMES.join(', ')})`,
        );
      return q;
    }),
  );
}
