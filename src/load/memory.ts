/**
 * What a runtime's loads remember across jobs: the window spans an endpoint accepted, the
 * warnings already said, and the schema drift not yet written. One per runtime (never
 * module-level), so two runtimes in one process share nothing.
 */
import { DriftLog } from './drift-log.js';

/** The memory of one runtime's loads. */
export class EngineMemory {
  /** Most days a window may span, learned per endpoint and company (`endpoint:cnpj`) from earlier splits. */
  readonly spans = new Map<string, number>();
  /** Schema drift heard by the runtime's API clients, written by the next load. */
  readonly drift = new DriftLog();
  readonly #said = new Set<string>();

  /** Whether the warning `key` is said now: true the first time only. */
  firstTime(key: string): boolean {
    if (this.#said.has(key)) return false;
    this.#said.add(key);
    return true;
  }
}
