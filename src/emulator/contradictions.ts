/**
 * Quirk `contradictions` (docs/emulator.md "Data quirks"): a source that disagrees with itself, so the
 * warehouse's reconciliation checks have something to find. The headquarters' first collaborator
 * employed since history began gets, in `collaborator/totalHours`, {@link PHANTOM_SECONDS} more worked
 * time for every 15th of a month than its days of `point/getFromPeriod` hold (spec 2.7 against 2.12);
 * the next one has its first day with punches of every month listed without its punches.
 */
import { employmentEnd } from './entities.js';
import { civil } from './calendar.js';
import type { CollaboratorEntity } from './entities.js';
import type { World } from './world.js';

/** Worked time the totals count on each {@link PHANTOM_DAY_OF_MONTH} that no day holds (beyond tolerance). */
const PHANTOM_SECONDS = 8 * 3600;
const PHANTOM_DAY_OF_MONTH = 15;

/** Who the source contradicts itself about (null when the quirk is off). */
export interface Contradicting {
  /** Whose totals count phantom worked time. */
  readonly totals: CollaboratorEntity | null;
  /** Whose first day with punches each month is sent without them. */
  readonly punches: CollaboratorEntity | null;
}

/** Nobody: the quirk is off. */
export const NO_CONTRADICTIONS: Contradicting = Object.freeze({ totals: null, punches: null });

/**
 * Whom the quirk picks in the headquarters: generated records, neither dismissed nor blocked, employed
 * since history began, alone with their CPF (so one item of an answer is theirs); one may take both.
 */
export function pickContradicting(world: World): Contradicting {
  const hq = world.headquarters.collaborators;
  const alone = (c: CollaboratorEntity): boolean => hq.filter((x) => x.cpf === c.cpf).length === 1;
  const steady = hq.filter(
    (c) => c.generated && employmentEnd(c) === Infinity && c.beginDay <= world.fromDay && alone(c),
  );
  return { totals: steady[0] ?? null, punches: steady[1] ?? steady[0] ?? null };
}

/** Worked time the totals of `c` count on `day` beyond its day object (0 for every other day). */
export function phantomSeconds(who: Contradicting, c: CollaboratorEntity, day: number): number {
  return who.totals === c && civil(day)[2] === PHANTOM_DAY_OF_MONTH ? PHANTOM_SECONDS : 0;
}
