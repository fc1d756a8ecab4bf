/**
 * src/emulator/ — the Customer API v2 emulator: a seeded stand-in for the real API (docs/emulator.md).
 */
export { startEmulator, BODY_LIMIT, type RunningEmulator, type EmulatedCompany } from './server.js';
export {
  NO_FAULTS,
  EmulatorOptionError,
  parseScale,
  type EmulatorOptions,
  type Faults,
  type Scale,
} from './options.js';
export { parseFaultsSpec } from './faults-spec.js';
export {
  QUIRK_NAMES,
  NEW_ENUM_VALUES,
  parseQuirksSpec,
  type QuirkName,
  type Quirks,
  type QuirksOption,
} from './quirks.js';
export {
  QUEUED_FAULT_KINDS,
  type QueuedFault,
  type QueuedFaultInput,
  type QueuedFaultKind,
} from './queued-faults.js';
export type {
  EmulatorTruth,
  TruthCollaborator,
  TruthCompany,
  TruthDuplicate,
  TruthPoint,
  TruthQuirks,
} from './truth.js';
export type { TrafficSnapshot } from './http/traffic.js';
export { INVALID_LIST_PARAMETER } from './errors.js';
