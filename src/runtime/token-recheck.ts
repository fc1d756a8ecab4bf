/**
 * The slow timer that re-checks the token of a paused connection (src/connections/connection-pause.ts):
 * every worker process ticks, but a re-check is claimed through Redis, so one cheap
 * request (`GET economic-group`, one attempt) is made per `API_TOKEN_RECHECK_MS` for
 * the whole deployment. A passing check resumes the connection; its waiting jobs run
 * when their delay ends (they were delayed until about the next check).
 */
import { apiErrorHas } from '../api/errors.js';
import { tickMs } from '../connections/connection-pause.js';
import type { SyncRuntime } from './runtime.js';

/** Starts the re-check timer of this process for every connection of `rt`; returns what stops it. */
export function startConnectionRecheck(rt: SyncRuntime): { stop(): void } {
  const { pauses } = rt.healing;
  const { logger, config } = rt;
  let running: Promise<void> | undefined;
  const checkOne = async (connection: string): Promise<void> => {
    if (!(await pauses.claimRecheck(connection))) return;
    try {
      await rt.client(connection).api.getEconomicGroup(undefined, { maxAttempts: 1 });
      if (await pauses.resume(connection))
        logger.info({ connection }, 'the API accepts the token again: connection resumed');
    } catch (err) {
      const still = apiErrorHas(err, 'pauses');
      logger.warn(
        { connection, nextCheckMs: config.apiTokenRecheckMs, err },
        still
          ? 'token still rejected: connection stays paused'
          : 'token re-check failed: connection stays paused',
      );
    }
  };
  const tick = () => {
    running ??= Promise.all(config.connections.map((c) => checkOne(c.name)))
      .then(() => undefined)
      .catch((err: unknown) => logger.error({ err }, 'token re-check round failed'))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, tickMs(config.apiTokenRecheckMs));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
