/**
 * src/alerts/ — webhook alerts for the conditions that need a person.
 *
 * A JSON POST to `NOTIFY_WEBHOOK_URL` (Slack's incoming-webhook `text`, plus structured
 * fields) when a job failed for good, a connection's token was rejected, or a company's data
 * is older than its schedule allows, and again when it clears. Conditions live in Redis
 * under the queue prefix, shared by every worker process; one Lua script per transition
 * decides atomically who announces. A condition is announced at most once per hour (one
 * back within the hour is announced when the hour is over, if it still holds), a clear only
 * when its start was. Event conditions clear on a later successful run of the same connection
 * (and company × resource), staleness when the data is fresh again. The URL is a secret
 * (Slack's carries its key): the CLI registers it with the logger; no log line or error here has it.
 */
import type { Logger } from '../logger.js';
import { LuaCommand, type CommandHost } from '../util/lua-command.js';
import type { ConditionScope, JobFailure, OpsEventSink } from '../telemetry/events.js';
import { readFreshness } from '../reports/freshness.js';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { freshnessEntriesOf } from '../reports/status-report.js';

/** Kinds of condition, as the `condition` field of a message. */
export const CONDITIONS = ['job_failed', 'token_rejected', 'stale'] as const;
/** One of {@link CONDITIONS}. */
export type ConditionKind = (typeof CONDITIONS)[number];

/** A condition: its kind and where it applies. */
export interface Condition extends ConditionScope {
  readonly condition: ConditionKind;
  /** What a person should know, one line. */
  readonly detail: string;
}

/** Body of a webhook POST. */
export interface NotificationMessage {
  /** Plain text for chat tools (Slack, Mattermost, Teams via Slack-compatible hooks). */
  readonly text: string;
  readonly condition: ConditionKind;
  /** `raised` when it starts, `cleared` when it ends. */
  readonly state: 'raised' | 'cleared';
  /** Connection name, or null when it does not apply. */
  readonly connection: string | null;
  /** Company CNPJ (`group` for group-level resources), or null. */
  readonly company: string | null;
  readonly resource: string | null;
  /** When the condition started (ISO 8601). */
  readonly since: string;
  readonly detail: string;
}

/** The Redis commands the notifier uses (an ioredis client; its scripts are defined on it). */
export interface NotifierRedis extends CommandHost {
  smembers(key: string): Promise<string[]>;
  hget(key: string, field: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', ms: number, nx: 'NX'): Promise<'OK' | null>;
}

/** Options of {@link WebhookNotifier}. */
export interface NotifierOptions {
  /** Where messages are posted (a secret). */
  readonly url: string;
  readonly redis: NotifierRedis;
  /** Key prefix (the queue prefix); keys are `<prefix>:notify:*`. */
  readonly prefix: string;
  /** Never given the URL. */
  readonly logger?: Logger;
  readonly now?: () => Date;
}

/** The warehouse the periodic check reads. */
export type CheckSources = { readonly pool: SqlRunner; readonly schema: string };

/** Fewest milliseconds between two announcements of one condition, and the deadline of one POST. */
const ANNOUNCE_INTERVAL_MS = 60 * 60 * 1000;
const POST_TIMEOUT_MS = 10_000;

// KEYS: open set, condition hash, last-announced key. ARGV: id, now ms, interval ms,
// fields JSON, since ms. Opens the condition if needed; returns 1 when the caller must
// announce it (not announced yet, and nothing announced for it within the interval).
const RAISE = new LuaCommand(
  'alertRaise',
  `
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('HSET', KEYS[2], 'since', ARGV[5], 'announced', '0', 'fields', ARGV[4])
  redis.call('SADD', KEYS[1], ARGV[1])
end
if redis.call('HGET', KEYS[2], 'announced') == '1' then return 0 end
local last = tonumber(redis.call('GET', KEYS[3]) or '0')
if tonumber(ARGV[2]) - last < tonumber(ARGV[3]) then return 0 end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
redis.call('HSET', KEYS[2], 'announced', '1')
return 1`,
  3,
);

// KEYS: open set, condition hash. ARGV: id. Closes the condition; returns {announced,
// since} to the one caller that closed it, or nothing.
const CLEAR = new LuaCommand(
  'alertClear',
  `
if redis.call('EXISTS', KEYS[2]) == 0 then return nil end
local announced = redis.call('HGET', KEYS[2], 'announced')
local since = redis.call('HGET', KEYS[2], 'since')
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[1], ARGV[1])
return {announced, since}`,
  2,
);

// KEYS: condition hash, last-announced key. Undoes an announcement whose POST failed, so
// a later check tries again.
const UNANNOUNCE = new LuaCommand(
  'alertUnannounce',
  `
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'announced', '0') end
redis.call('DEL', KEYS[2])
return 1`,
  2,
);

/** The identity of a condition: its kind and scope. */
export function conditionId(c: Pick<Condition, 'condition' | 'connection' | 'company' | 'resource'>): string {
  return [c.condition, c.connection ?? '', c.company ?? '', c.resource ?? ''].join('|');
}

/** What the condition is about, for the text of a message. */
function summary(c: Condition): string {
  const company = c.company === 'group' ? 'the group' : c.company ? `company ${c.company}` : undefined;
  const where = [company, c.resource].filter(Boolean).join(', ');
  switch (c.condition) {
    case 'job_failed': {
      const scope = [where, c.connection ? `connection ${c.connection}` : undefined]
        .filter(Boolean)
        .join(', ');
      return `a job failed for good${scope ? ` (${scope})` : ''}`;
    }
    case 'token_rejected':
      return `the API rejected the token of connection "${c.connection ?? '?'}" (401); its jobs wait until the token works again`;
    case 'stale':
      return `data of ${where} is older than its schedule allows`;
  }
}

/** Builds the body of a webhook POST (pure). */
export function buildMessage(c: Condition, state: 'raised' | 'cleared', since: Date): NotificationMessage {
  const text =
    state === 'raised'
      ? `:rotating_light: punchline: ${summary(c)}. ${c.detail}`
      : `:white_check_mark: punchline: resolved: ${summary(c)} (since ${since.toISOString()}).`;
  const { condition, connection = null, company = null, resource = null, detail } = c;
  return { text, condition, state, connection, company, resource, since: since.toISOString(), detail };
}

/** Posts alerts to a webhook, once per condition and hour across every worker process. */
export class WebhookNotifier implements OpsEventSink {
  readonly #o: NotifierOptions & { readonly now: () => Date };
  readonly #pending = new Set<Promise<void>>();

  constructor(options: NotifierOptions) {
    this.#o = { ...options, now: options.now ?? (() => new Date()) };
  }

  jobFailedForGood(e: JobFailure): void {
    const { connection, company, resource } = e;
    const detail = `${e.jobId ? `job ${e.jobId}: ` : ''}${e.detail}`;
    this.#track(this.raise({ condition: 'job_failed', connection, company, resource, detail }));
  }

  tokenRejected(e: { readonly connection: string; readonly detail: string }): void {
    this.#track(this.raise({ condition: 'token_rejected', connection: e.connection, detail: e.detail }));
  }

  /** Waits for the messages in flight (shutdown, tests). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  /**
   * Opens `c` (from `since`, default now) if it is not open, and announces it unless it
   * was announced already or within the interval. Resolves true when this call posted.
   */
  async raise(c: Condition, since: Date = this.#o.now()): Promise<boolean> {
    const id = conditionId(c);
    const [key, last] = [this.#key('condition', id), this.#key('last', id)];
    const args = [id, this.#o.now().getTime(), ANNOUNCE_INTERVAL_MS, JSON.stringify(c), since.getTime()];
    if (Number(await RAISE.run(this.#o.redis, this.#key('open'), key, last, ...args)) !== 1) return false;
    const opened = Number((await this.#o.redis.hget(key, 'since')) ?? since.getTime());
    if (await this.#post(buildMessage(c, 'raised', new Date(opened)))) return true;
    await UNANNOUNCE.run(this.#o.redis, key, last);
    return false;
  }

  /** Closes `c` if open; announces the clear when its start was announced. Resolves true when this call posted. */
  async clear(c: Condition): Promise<boolean> {
    const id = conditionId(c);
    const closed = (await CLEAR.run(this.#o.redis, this.#key('open'), this.#key('condition', id), id)) as
      [string | null, string | null] | null;
    if (!closed || closed[0] !== '1') return false;
    return this.#post(buildMessage(c, 'cleared', new Date(Number(closed[1]))));
  }

  /**
   * The periodic check: raises staleness for every company × resource older than its
   * schedule allows, clears conditions that no longer hold, and announces open ones that
   * could not be announced before (interval, failed POST). One process does it per `lockMs` (0: no lock).
   */
  async check(sources: CheckSources, lockMs = 50_000): Promise<void> {
    const lock = () => this.#o.redis.set(this.#key('check-lock'), String(process.pid), 'PX', lockMs, 'NX');
    if (lockMs > 0 && (await lock()) !== 'OK') return;
    const now = this.#o.now();
    const entries = freshnessEntriesOf(await readFreshness(sources.pool, sources.schema), now);
    const staleIds = new Set<string>();
    for (const e of (entries ?? []).filter((x) => x.stale)) {
      const detail = e.lastSuccessAt
        ? `Last successful sync ${e.lastSuccessAt}; stale after ${Math.round(e.staleAfterSeconds / 60)} min.`
        : 'Never synced, while other companies have this resource.';
      const c: Condition = { condition: 'stale', company: e.company, resource: e.resource, detail };
      staleIds.add(conditionId(c));
      const since = e.lastSuccessAt
        ? new Date(Date.parse(e.lastSuccessAt) + e.staleAfterSeconds * 1000)
        : now;
      await this.raise(c, since);
    }
    for (const id of await this.#o.redis.smembers(this.#key('open'))) {
      const key = this.#key('condition', id);
      const fields = await this.#o.redis.hget(key, 'fields');
      if (fields === null) continue;
      const c = JSON.parse(fields) as Condition;
      const since = new Date(Number((await this.#o.redis.hget(key, 'since')) ?? now.getTime()));
      const holds =
        c.condition === 'stale'
          ? entries === null || staleIds.has(id)
          : !(await succeededSince(sources, c, since));
      if (!holds) await this.clear(c);
      else if (c.condition !== 'stale') await this.raise(c, since);
    }
  }

  #key(...parts: string[]): string {
    return [this.#o.prefix, 'notify', ...parts].join(':');
  }

  #track(work: Promise<unknown>): void {
    const p: Promise<void> = work
      .then(() => undefined)
      .catch((err: unknown) => this.#o.logger?.warn({ err }, 'notifier: could not record a condition'))
      .finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /** Posts one message; false (logged, without the URL) when it could not be delivered. */
  async #post(message: NotificationMessage): Promise<boolean> {
    const { condition, state, company, resource } = message;
    const fields = { condition, state, company, resource };
    const logger = this.#o.logger;
    try {
      const res = await fetch(this.#o.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(message),
        signal: AbortSignal.timeout(POST_TIMEOUT_MS),
        redirect: 'error',
      });
      await res.body?.cancel().catch(() => undefined);
      if (res.ok) {
        logger?.info(fields, 'notification sent');
        return true;
      }
      logger?.warn({ ...fields, status: res.status }, 'notification refused by the webhook');
    } catch (err) {
      // undici's errors name the address it tried; the cause's code says enough.
      const e = err as Error & { cause?: { code?: string } };
      logger?.warn({ ...fields, reason: e.cause?.code ?? e.name }, 'notification could not be sent');
    }
    return false;
  }
}

/**
 * True when the warehouse has a run of `c`'s scope that started after `since` and
 * succeeded. Only the parts of the scope the condition names are matched: a failed
 * schedule tick names a connection only, a token rejection too.
 */
async function succeededSince(sources: CheckSources, c: Condition, since: Date): Promise<boolean> {
  const { connection } = c;
  const { company, resource } = c.condition === 'job_failed' ? c : {};
  const run = await warehouseDb(sources.pool, sources.schema)
    .selectFrom('sync_runs')
    .select('id')
    .where('status', '=', 'succeeded')
    .where('started_at', '>', since)
    .$if(connection !== undefined, (q) => q.where('connection', '=', connection!))
    .$if(company !== undefined, (q) =>
      q.where('company_cnpj', 'is not distinct from', company === 'group' ? null : company!),
    )
    .$if(resource !== undefined, (q) => q.where('resource', '=', resource!))
    .limit(1)
    .executeTakeFirst();
  return run !== undefined;
}

/** Runs `notifier.check` every minute until `stop` (which waits for a check in progress); logs failures. */
export function startStalenessWatch(
  notifier: Pick<WebhookNotifier, 'check'>,
  sources: CheckSources,
  options: { logger?: Logger } = {},
): { stop(): Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    // The lock lasts just under a minute: one process checks per tick.
    running = running
      .then(() => notifier.check(sources, 59_000))
      .catch((err: unknown) => options.logger?.warn({ err }, 'notifier: staleness check failed'));
  };
  const timer = setInterval(tick, 60_000).unref();
  tick();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
