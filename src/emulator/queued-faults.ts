/**
 * One-off faults queued at run time: the next `count` GET answers of an endpoint (of a company) go
 * wrong in a chosen way. Unlike the rates of options.ts they are exact, so a test can aim a glitch.
 */
import { EmulatorOptionError } from './option-error.js';

/**
 * What a queued fault does to an answer. A 200 that is `empty` (`data: []` with its proper `meta`,
 * spec 1.3.1), `html` (a proxy's page), `cut` halfway, `corrupt` (one element with a date-time no
 * system could store, corrupt-element.ts), or, by answer-faults.ts, that trickles, never ends, has a
 * huge attachment, repeats an element, names another company, or gives its punches `odd-origins`
 * (schema drift a hostile source could send: every punch's `origin` set to `origin`, or, with
 * `values`, that many punches each with its own new origin), a `nul-element` (its first element's
 * `national_registry` holding a NUL and a control character) or a `deep-element` (an element
 * nested 10,000 levels deep put first). Or an error: `rate-limit` (429 with
 * `Retry-After`), `range-exceeded` (422 `date_range_exceeded` with `payload_data_required: null`, as
 * some servers write it; period endpoints only), `refuse` (422 `validation_failed`: refused for good).
 */
export const QUEUED_FAULT_KINDS = [
  'empty',
  'html',
  'cut',
  'rate-limit',
  'corrupt',
  'range-exceeded',
  'refuse',
  'trickle',
  'endless',
  'huge-attachment',
  'repeat',
  'foreign-company',
  'odd-origins',
  'nul-element',
  'deep-element',
] as const;
/** One kind of queued fault. */
export type QueuedFaultKind = (typeof QUEUED_FAULT_KINDS)[number];

/** A queued fault. */
export interface QueuedFault {
  /** What happens to the answer. */
  readonly kind: QueuedFaultKind;
  /** How many matching answers it spoils (default 1). */
  readonly count: number;
  /** Endpoint name, the path after `/customer/v2/` (`point/getFromPeriod`); any GET when absent. */
  readonly endpoint?: string;
  /** CNPJ: only requests whose scope includes this company; any when absent. */
  readonly company?: string;
  /** `Retry-After` of `rate-limit`, in seconds (default 60). */
  readonly retryAfterSeconds?: number;
  /** Pause between two pieces of a `trickle` body, in ms (default 1000). */
  readonly intervalMs?: number;
  /** Bytes a `huge-attachment` adds to the attachment's base64 (default 64 MiB). */
  readonly bytes?: number;
  /** The `origin` of every punch of an `odd-origins` answer (any text, up to 10,000 characters; default `Origem`). */
  readonly origin?: string;
  /** `odd-origins`: the answer holds at least this many punches (copies of its first one), each with origin `<origin> <n>`. */
  readonly values?: number;
}

/** A queued fault as asked for (`count` optional). */
export type QueuedFaultInput = Omit<QueuedFault, 'count'> & { readonly count?: number };

/** Checks a queued fault sent to the admin surface or `queueFault`. */
export function checkQueuedFault(raw: unknown): QueuedFault {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new EmulatorOptionError(
      'a queued fault must be an object like {"kind":"empty","endpoint":"point/getFromPeriod"}',
    );
  }
  const f = raw as Record<string, unknown>;
  const known = [
    'kind',
    'count',
    'endpoint',
    'company',
    'retryAfterSeconds',
    'intervalMs',
    'bytes',
    'origin',
    'values',
  ];
  for (const k of Object.keys(f)) {
    if (!known.includes(k))
      throw new EmulatorOptionError(
        `unknown field ${JSON.stringify(k)} of a queued fault (known: ${known.join(', ')})`,
      );
  }
  if (!(QUEUED_FAULT_KINDS as readonly unknown[]).includes(f.kind)) {
    throw new EmulatorOptionError(
      `queued fault kind must be one of ${QUEUED_FAULT_KINDS.join(', ')}, got ${JSON.stringify(f.kind)}`,
    );
  }
  const count = f.count ?? 1;
  wholeInRange('count', count, 1, 100_000, f.count);
  if (
    f.endpoint !== undefined &&
    (typeof f.endpoint !== 'string' || !/^[a-z][a-zA-Z/-]*$/.test(f.endpoint))
  ) {
    throw new EmulatorOptionError(
      `queued fault endpoint must be a path after /customer/v2/ such as point/getFromPeriod, got ${JSON.stringify(f.endpoint)}`,
    );
  }
  if (f.company !== undefined && (typeof f.company !== 'string' || !/^\d{14}$/.test(f.company))) {
    throw new EmulatorOptionError(
      `queued fault company must be a CNPJ of 14 digits, got ${JSON.stringify(f.company)}`,
    );
  }
  wholeInRange('retryAfterSeconds', f.retryAfterSeconds, 0, 86_400);
  wholeInRange('intervalMs', f.intervalMs, 0, 600_000);
  wholeInRange('bytes', f.bytes, 1, 2 ** 33);
  wholeInRange('values', f.values, 1, 100_000);
  if (f.origin !== undefined && (typeof f.origin !== 'string' || f.origin.length > 10_000)) {
    throw new EmulatorOptionError('queued fault origin must be a text of at most 10,000 characters');
  }
  const fields = known.map((k) => [k, k === 'count' ? count : f[k]]).filter(([, v]) => v !== undefined);
  return Object.fromEntries(fields) as QueuedFault;
}

/** Throws unless `value` is absent or a whole number from `min` to `max`; the message shows `sent`. */
function wholeInRange(field: string, value: unknown, min: number, max: number, sent = value): void {
  const ok = typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
  if (value !== undefined && !ok) {
    const what = `a whole number from ${min} to ${max}`;
    throw new EmulatorOptionError(`queued fault ${field} must be ${what}, got ${JSON.stringify(sent)}`);
  }
}

/** The queue of one emulator: faults are taken in the order they were queued. */
export class FaultQueue {
  private faults: QueuedFault[] = [];

  /** Queues a checked fault. */
  push(f: QueuedFault): void {
    this.faults.push({ ...f });
  }

  /** The faults still queued. */
  list(): QueuedFault[] {
    return this.faults.map((f) => ({ ...f }));
  }

  /** Drops every queued fault. */
  clear(): void {
    this.faults = [];
  }

  /** Takes one use of the first fault `applicable` allows that matches a GET of `endpoint` over `scope`. */
  take(
    endpoint: string,
    scope: readonly string[],
    applicable: (kind: QueuedFaultKind) => boolean,
  ): QueuedFault | undefined {
    const i = this.faults.findIndex(
      (f) =>
        applicable(f.kind) &&
        (f.endpoint === undefined || f.endpoint === endpoint) &&
        (f.company === undefined || scope.includes(f.company)),
    );
    if (i < 0) return undefined;
    const f = this.faults[i]!;
    if (f.count <= 1) this.faults.splice(i, 1);
    else this.faults[i] = { ...f, count: f.count - 1 };
    return f;
  }
}
