/** A deadline for a probe (health checks, scrape-time reads): a hung service must not hang the ops routes. */
import { PunchlineError } from './errors.js';

/** Raised when a probe does not answer in time. */
export class ProbeTimeoutError extends PunchlineError<'probe_timeout'> {
  override readonly name = 'ProbeTimeoutError';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super('probe_timeout', `${what} did not answer within ${timeoutMs} ms`);
  }
}

/** Resolves like `work`, or rejects with {@link ProbeTimeoutError} after `timeoutMs`. */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeoutError(what, timeoutMs)), timeoutMs);
    timer.unref();
  });
  // The losing promise may still reject later; swallow that so it is not "unhandled".
  work.catch(() => undefined);
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
