/**
 * The slow timer that re-checks the token of a paused connection (src/connections/connection-pause.ts):
 * every worker process ticks, but a re-check is claimed through Redis, so one cheap
 * request (`GET economic-group`, one attempt) is made per `API_TOKEN_RECHECK_MS` for
 * the whole deployment. A passing check resumes the connection; its waiting jobs run
 * when their delay ends (they were delayed until about the next check).
 */
import { apiErrorHas } from '../api/errors.js';
import type { Logger } from '../logger.js';
import { tickMs, type ConnectionPauses } from '../connections/connection-pause.js';
import { healingFor } from './job-guard.js';
import type { SyncRuntime } from './runtime.js';

/** What the re-check needs of the runtime. */
export interface TokenRecheckOptions {
  /** Connection names to watch. */
  readonly connections: readonly string[];
  /** Shared pause state. */
  readonly pauses: ConnectionPauses;
  /** One request with the connection's token; throws `invalid_service_token` while the token is rejected. */
  readonly probe: (connection: string) => Promise<unknown>;
  /** Period of the re-check, ms. */
  readonly recheckMs: number;
  /** Where checks are logged. */
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
}

/** A running re-check timer. */
export interface TokenRecheck {
  /** One round now: claims and runs the checks that are due (also what the timer calls). */
  tick(): Promise<void>;
  /** Stops the timer. */
  stop(): void;
}

/** Starts the re-check timer of this process. */
function startTokenRecheck(options: TokenRecheckOptions): TokenRecheck {
  const { pauses, logger } = options;
  let running: Promise<void> | undefined;
  const checkOne = async (connection: string): Promise<void> => {
    if (!(await pauses.claimRecheck(connection))) return;
    try {
      await options.probe(connection);
      if (await pauses.resume(connection)) logger.info({ connection }, 'the API accepts the token again: connection resumed');
    } catch (err) {
      const still = apiErrorHas(err, 'pauses');
      logger.warn(
        { connection, nextCheckMs: options.recheckMs, err },
        still ? 'token still rejected: connection stays paused' : 'token re-check failed: connection stays paused',
      );
    }
  };
  const tick = (): Promise<void> => {
    running ??= Promise.all(options.connections.map(checkOne))
      .then(() => undefined)
      .catch((err: unknown) => logger.error({ err }, 'token re-check round failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(() => void tick(), tickMs(options.recheckMs));
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}

/** The re-check of every connection of `rt`, probing with `GET economic-group` (one attempt). */
export function startConnectionRecheck(rt: SyncRuntime): TokenRecheck {
  return startTokenRecheck({
    connections: rt.config.connections.map((c) => c.name),
    pauses: healingFor(rt).pauses,
    probe: (name) => rt.client(name).api.getEconomicGroup(undefined, { maxAttempts: 1 }),
    recheckMs: rt.config.apiTokenRecheckMs,
    logger: rt.logger,
  });
}
