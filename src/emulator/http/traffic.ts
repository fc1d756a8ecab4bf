/** What meets every spec request before its handler: counting, the per-token rate limit, injected faults. */
import { ApiFault } from '../errors.js';
import { Rng, hashString } from '../random.js';
import type { Faults } from '../options.js';

/** Request statistics (docs/emulator.md, `stats()`). */
export interface TrafficSnapshot {
  /** Requests per endpoint, keyed `METHOD /customer/v2/path`. */
  requests: Record<string, number>;
  /** Most spec requests in flight at once. */
  maxInFlight: number;
  /** Start times (ms) of spec requests (the latest 100,000 to 200,000). */
  starts: number[];
  /** Start times (ms) per token sent (`''` when none). */
  startsByToken: Record<string, number[]>;
  /** Most requests in flight at once per token. */
  maxInFlightByToken: Record<string, number>;
}

/** How a passed request's answer is spoiled by the `--faults` probabilities (answer-faults.ts). */
export interface AnswerSpoils {
  /** Its body trickles, with this pause between pieces (ms). */
  readonly trickleMs?: number;
  /** Its list never ends. */
  readonly endless?: boolean;
  /** Its attachment grows by this many bytes. */
  readonly hugeBytes?: number;
}

/** What a request meets at the door. */
export type Admission =
  | { kind: 'pass'; delayMs: number; spoils?: AnswerSpoils }
  | { kind: 'fault'; fault: ApiFault; delayMs: number }
  | { kind: 'drop'; delayMs: number };

/** Start times kept per list; older ones are dropped so a long-running emulator stays small. */
const MAX_STARTS = 200_000;

function pushCapped(list: number[], t: number): void {
  if (list.length >= MAX_STARTS) list.splice(0, MAX_STARTS / 2);
  list.push(t);
}

/** Counts requests and decides faults. */
export class Traffic {
  private requests: Record<string, number> = {};
  private starts: number[] = [];
  private startsByToken: Record<string, number[]> = {};
  private maxInFlight = 0;
  private inFlight = 0;
  private readonly inFlightByToken = new Map<string, number>();
  private maxInFlightByToken: Record<string, number> = {};
  private readonly accepted = new Map<string, number[]>();
  private readonly rng: Rng;

  constructor(
    private faults: Faults,
    seed: string,
    private readonly now: () => number,
  ) {
    this.rng = new Rng(hashString(`${seed}|faults`));
  }

  /** Replaces the active faults. */
  setFaults(f: Faults): void {
    this.faults = { ...f };
  }

  /** The active faults. */
  getFaults(): Faults {
    return { ...this.faults };
  }

  /** Records the start of a request; returns the function that records its end (idempotent). */
  begin(endpoint: string, token: string): () => void {
    const t = this.now();
    this.requests[endpoint] = (this.requests[endpoint] ?? 0) + 1;
    pushCapped(this.starts, t);
    pushCapped((this.startsByToken[token] ??= []), t);
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const mine = (this.inFlightByToken.get(token) ?? 0) + 1;
    this.inFlightByToken.set(token, mine);
    this.maxInFlightByToken[token] = Math.max(this.maxInFlightByToken[token] ?? 0, mine);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.inFlight--;
      this.inFlightByToken.set(token, (this.inFlightByToken.get(token) ?? 1) - 1);
    };
  }

  /** Decides what happens to a request: rate limit first, then the random faults. */
  admit(token: string): Admission {
    const f = this.faults;
    const slow = f.slow > 0 && this.rng.chance(f.slow) ? f.slowMs : 0;
    if (f.rateLimitRps > 0) {
      const now = this.now();
      const list = (this.accepted.get(token) ?? []).filter((t) => t > now - 1000);
      this.accepted.set(token, list);
      if (list.length >= f.rateLimitRps) {
        const headers = { 'retry-after': String(Math.max(1, Math.ceil((list[0]! + 1000 - now) / 1000))) };
        const message = `Rate limit of ${f.rateLimitRps} requests per second exceeded.`;
        const fault = new ApiFault(429, 'too_many_requests', message, undefined, headers);
        return { kind: 'fault', delayMs: 0, fault };
      }
      list.push(now);
    }
    const u = this.rng.next();
    if (u < f.error403) {
      return {
        kind: 'fault',
        delayMs: slow,
        fault: new ApiFault(403, 'server_error', 'An unexpected error occurred. Please try again later.'),
      };
    }
    if (u < f.error403 + f.error500) {
      return {
        kind: 'fault',
        delayMs: slow,
        fault: new ApiFault(500, 'internal_server_error', 'Internal server error.'),
      };
    }
    if (u < f.error403 + f.error500 + f.drop) return { kind: 'drop', delayMs: slow };
    // Drawn only when asked for, so the sequence of the other faults stays what it was.
    const spoils: AnswerSpoils = {
      ...(f.trickle > 0 && this.rng.chance(f.trickle) ? { trickleMs: f.trickleMs } : {}),
      ...(f.endless > 0 && this.rng.chance(f.endless) ? { endless: true } : {}),
      ...(f.huge > 0 && this.rng.chance(f.huge) ? { hugeBytes: f.hugeBytes } : {}),
    };
    return Object.keys(spoils).length > 0
      ? { kind: 'pass', delayMs: slow, spoils }
      : { kind: 'pass', delayMs: slow };
  }

  /** A copy of the statistics. */
  snapshot(): TrafficSnapshot {
    return {
      requests: { ...this.requests },
      maxInFlight: this.maxInFlight,
      starts: [...this.starts],
      startsByToken: Object.fromEntries(Object.entries(this.startsByToken).map(([k, v]) => [k, [...v]])),
      maxInFlightByToken: { ...this.maxInFlightByToken },
    };
  }

  /** Clears the statistics (requests in flight stay counted). */
  reset(): void {
    this.requests = {};
    this.starts = [];
    this.startsByToken = {};
    this.maxInFlight = this.inFlight;
    this.maxInFlightByToken = Object.fromEntries(this.inFlightByToken);
  }
}
