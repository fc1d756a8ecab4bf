/**
 * The Customer API v2 emulator: a faithful, seeded stand-in for the real API, used by
 * the demo, the tests and the benchmarks (docs/emulator.md).
 */
export { startEmulator, BODY_LIMIT, type RunningEmulator, type EmulatedCompany } from './server.js';
export { NO_FAULTS, EmulatorOptionError, parseScale, type EmulatorOptions, type Faults, type Scale } from './options.js';
export { parseFaultsSpec } from './faults-spec.js';
export type { EmulatorTruth, TruthCollaborator } from './truth.js';
export type { TrafficSnapshot } from './http/traffic.js';
export { INVALID_LIST_PARAMETER } from './errors.js';
