/**
 * Every write kind of `punchline push`, by the name typed on the command line, in the order of spec
 * 4.2. Adding a write is one declaration here and its file.
 */
import type { WriteKind } from '../kind.js';
import type { PushKind } from '../kind-names.js';
import { absences } from './absences.js';
import { collaborators } from './collaborators.js';
import { dismissals } from './dismissals.js';
import { LOOKUP_KINDS } from './lookups.js';
import { photos } from './photos.js';
import { punches } from './punches.js';

/** The declaration of each kind. */
export const WRITE_KINDS: Readonly<Record<PushKind, WriteKind>> = {
  collaborators,
  photos,
  dismissals,
  punches,
  absences,
  ...LOOKUP_KINDS,
};

export { PUSH_KINDS, isPushKind, type PushKind } from '../kind-names.js';
