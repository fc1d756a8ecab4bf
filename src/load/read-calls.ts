/**
 * The reading side of a load: the calls a declaration's read kind makes (one per month
 * window, in halves when the API refuses the span; one per day; one per list; one per
 * item), a few at a time, each answer handed to the element writer as it arrives.
 */
import pLimit from 'p-limit';
import type { CallOptions } from '../api/client.js';
import { apiErrorHas, elementTooLarge, isApiError } from '../api/errors.js';
import { ENDPOINTS, elementSchema, type ListEndpointName, type StreamEndpoint } from '../api/endpoints.js';
import { endpointName, type CallTarget, type ReadDeclaration } from '../resources/declaration.js';
import { chunkWindow, daysOf, halveWindow, windowDays, type DateWindow } from '../plan/windows.js';
import type { EngineContext, CompanyLoad } from './context.js';
import type { ElementWriter } from './element-writer.js';
import { InvalidJobError } from './errors.js';

/** Reads every call of the load into the writer; returns the items that were answered. */
export async function readAll(
  ctx: EngineContext,
  req: CompanyLoad,
  writer: ElementWriter,
  items: number[] | undefined,
  signal: AbortSignal | undefined,
): Promise<number[]> {
  const { declaration, window } = req;
  const answered: number[] = [];
  switch (declaration.read) {
    case 'month':
      if (!window) throw new InvalidJobError(`${req.name} needs a window`);
      for (const read of declaration.reads) await readWindow(ctx, req, window, read, writer, signal);
      break;
    case 'day':
      if (!window) throw new InvalidJobError(`${req.name} needs a window`);
      await runAtMost(
        ctx.callsAtOnce,
        signal,
        declaration.reads.flatMap((read) => daysOf(window).map((date) => ({ read, date }))),
        ({ read, date }, s) => readCall(ctx, req, read, writer, { date }, ctx.call(undefined, s)),
      );
      break;
    case 'list':
      await runAtMost(ctx.callsAtOnce, signal, declaration.reads, (read, s) =>
        readCall(ctx, req, read, writer, {}, ctx.call(undefined, s)),
      );
      break;
    case 'items':
      await runAtMost(
        ctx.callsAtOnce,
        signal,
        declaration.reads.flatMap((read) => (items ?? []).map((item) => ({ read, item }))),
        async ({ read, item }, s) => {
          try {
            await readCall(ctx, req, read, writer, { item }, ctx.call(undefined, s));
            answered.push(item);
          } catch (err) {
            if (!read.gone?.(err)) throw err;
            ctx.logger.info({ item }, 'item no longer exists; skipped');
          }
        },
      );
      break;
  }
  return answered.sort((a, b) => a - b);
}

/**
 * Reads a month window in one call; when the API refuses the span (spec 8 `date_range_exceeded`)
 * or the call times out before any element arrived, in halves instead, down to single days.
 * The size of the parts that worked is remembered per endpoint and company for the next window.
 */
async function readWindow(
  ctx: EngineContext,
  req: CompanyLoad,
  window: DateWindow,
  read: ReadDeclaration,
  writer: ElementWriter,
  signal: AbortSignal | undefined,
): Promise<void> {
  const hintKey = `${endpointName(read.endpoint)}:${req.company}`;
  // What earlier loads of this runtime learned: the most days a window of this endpoint and company may span.
  const spans = ctx.memory.spans;
  const learned = spans.get(hintKey);
  const pending: DateWindow[] = learned === undefined ? [window] : chunkWindow(window, learned);
  let split = false;
  while (pending.length > 0) {
    const w = pending.shift()!;
    let started = false;
    try {
      await readCall(ctx, req, read, writer, { window: w }, ctx.call(w, signal), () => (started = true));
    } catch (err) {
      // A failure a smaller window may avoid, before any element came.
      const halves = !started && apiErrorHas(err, 'splits') ? halveWindow(w) : undefined;
      if (!halves) throw err;
      ctx.logger.info({ split: `${w.from}..${w.to}`, err }, 'splitting window');
      pending.unshift(...halves);
      split = true;
      continue;
    }
    if (split) spans.set(hintKey, Math.min(windowDays(w), spans.get(hintKey) ?? Infinity));
  }
}

/** One call: streams a list answer element by element, or takes an object answer as one element. */
async function readCall(
  ctx: EngineContext,
  req: CompanyLoad,
  read: ReadDeclaration,
  writer: ElementWriter,
  target: CallTarget,
  opts: CallOptions,
  onFirst?: () => void,
): Promise<void> {
  const query = read.query(target);
  const endpoint = read.endpoint;
  if (typeof endpoint !== 'string' || elementSchema(ENDPOINTS[endpoint])) {
    for await (const element of ctx.api.stream(
      endpoint as ListEndpointName | StreamEndpoint,
      query,
      req.scope,
      opts,
    )) {
      onFirst?.();
      if (writer.write(read, element, target)) await writer.flush();
    }
    return;
  }
  let data: unknown;
  try {
    ({ data } = await ctx.api.request(endpoint, { query, ...(req.scope ? { scope: req.scope } : {}) }, opts));
  } catch (err) {
    if (!isApiError(err, 'response_too_large')) throw err;
    // An object answer is one element: too large to read, it is rejected like one.
    const error = elementTooLarge({
      endpoint: err.endpoint,
      index: 0,
      limitBytes: err.limitBytes,
      setting: 'API_MAX_RESPONSE_BYTES',
    });
    writer.write(read, { index: 0, ok: false, raw: undefined, error }, target);
    return;
  }
  onFirst?.();
  if (writer.write(read, { index: 0, ok: true, value: data, raw: data }, target)) await writer.flush();
}

/** Runs calls `concurrency` at a time; the first failure aborts the running ones and starts no more. */
async function runAtMost<T>(
  concurrency: number,
  parent: AbortSignal | undefined,
  tasks: readonly T[],
  fn: (task: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const limit = pLimit(Math.max(1, concurrency));
  const controller = new AbortController();
  const onParent = () => controller.abort(parent?.reason);
  parent?.addEventListener('abort', onParent, { once: true });
  let failure: { err: unknown } | undefined;
  try {
    await Promise.all(
      tasks.map((task) =>
        limit(async () => {
          if (failure || controller.signal.aborted) return;
          try {
            await fn(task, controller.signal);
          } catch (err) {
            if (!failure) {
              failure = { err };
              controller.abort(err);
            }
          }
        }),
      ),
    );
  } finally {
    parent?.removeEventListener('abort', onParent);
  }
  if (failure) throw failure.err;
}
