/**
 * Every write kind of `punchline push`, by the name typed on the command line, in the
 * order of spec 4.2. Adding a write is one declaration here and its file.
 */
import type { WriteKind } from '../kind.js';
import type { PushKind } from '../kind-names.js';
import { absences } from './absences.js';
import { collaborators } from './collaborators.js';
import { dismissals } from './dismissals.js';
import { costCenters, departments, firedTypes, occupations } from './lookups.js';
import { photos } from './photos.js';
import { punches } from './punches.js';

/** The declaration of each kind. */
export const WRITE_KINDS: Readonly<Record<PushKind, WriteKind<unknown>>> = {
  collaborators: collaborators as WriteKind<unknown>,
  photos: photos as WriteKind<unknown>,
  dismissals: dismissals as WriteKind<unknown>,
  punches: punches as WriteKind<unknown>,
  absences: absences as WriteKind<unknown>,
  departments: departments as WriteKind<unknown>,
  occupations: occupations as WriteKind<unknown>,
  'fired-types': firedTypes as WriteKind<unknown>,
  'cost-centers': costCenters as WriteKind<unknown>,
};

export { PUSH_KINDS, isPushKind, type PushKind } from '../kind-names.js';
