/**
 * One HTTP attempt over undici: a per-attempt timeout, a bounded body read, undici and socket
 * failures translated into `timeout` / `network`. A streamed body is bounded once its headers
 * are in: the longest pause between two chunks (undici's body timeout), a deadline for the
 * whole answer, and the most bytes it may hold, counted per chunk, never per byte.
 */
import type { Dispatcher, FormData } from 'undici';
import { ApiError } from './errors.js';
import { errorClass } from '../util/errors.js';

/** What one attempt sends. */
export interface AttemptRequest {
  /** Endpoint name, for errors. */
  endpoint: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Path and query, starting with `/`. */
  path: string;
  headers: Record<string, string>;
  body?: string | FormData;
  /** Wait for the headers, and for the whole body of an answer read whole. */
  timeoutMs: number;
  /** Longest pause between two chunks of the body (default `timeoutMs`). */
  idleTimeoutMs?: number;
  maxResponseBytes: number;
  /** Caller's signal; its abort reason is rethrown unchanged. */
  signal?: AbortSignal;
}

/** What one attempt received. */
export interface AttemptResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Connection errors after which the request certainly never reached the server. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);
/** Connection errors during or after sending (the server may have acted on the request). */
const SENT_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'HPE_INVALID_CHUNK_SIZE',
  'HPE_INVALID_CONSTANT',
  'HPE_UNEXPECTED_CONTENT_LENGTH',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; errors?: unknown[]; cause?: unknown } | null;
  if (!e || typeof e !== 'object') return undefined;
  if (typeof e.code === 'string') return e.code;
  // Happy-eyeballs connects fail with an AggregateError of per-address errors.
  if (Array.isArray(e.errors))
    for (const inner of e.errors) {
      const code = errorCode(inner);
      if (code) return code;
    }
  return e.cause ? errorCode(e.cause) : undefined;
}

/** Marks our own per-attempt timeout, to tell it from the caller's abort. */
class AttemptTimeout extends errorClass('AttemptTimeout', 'timeout') {}

/** Which of our own limits ended an attempt, if one did. */
type Expiry = 'timeout' | 'deadline' | undefined;

/**
 * Translates a failure of one attempt: the caller's abort is rethrown as is, timeouts become
 * `timeout`, socket failures `network`; anything else (a programming error) is left unchanged.
 */
function translate(
  err: unknown,
  req: AttemptRequest & { deadlineMs?: number },
  expired: Expiry,
  scrub: (s: string) => string,
): unknown {
  if (req.signal?.aborted) return req.signal.reason ?? err;
  const code = errorCode(err);
  const detail = scrub(err instanceof Error ? err.message : String(err));
  const timeout = (message: string) =>
    new ApiError('timeout', { endpoint: req.endpoint, message, cause: err });
  const network = (message: string, mayHaveReachedServer: boolean) =>
    new ApiError('network', { endpoint: req.endpoint, message, mayHaveReachedServer, cause: err });
  if (expired === 'deadline') {
    return timeout(
      `the answer was not complete within ${req.deadlineMs} ms (API_ANSWER_DEADLINE_MS); reading stopped`,
    );
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    const idleMs = req.idleTimeoutMs ?? req.timeoutMs;
    return timeout(`no data for ${idleMs} ms while the body was arriving (API_BODY_IDLE_TIMEOUT_MS)`);
  }
  if (expired || err instanceof AttemptTimeout || (code && TIMEOUT_CODES.has(code))) {
    return timeout(`no complete response within ${req.timeoutMs} ms`);
  }
  if (code && NOT_SENT_CODES.has(code)) return network(`could not connect (${code}: ${detail})`, false);
  if ((code && SENT_CODES.has(code)) || /socket|closed|reset|hang up/i.test(detail)) {
    return network(`connection lost (${code ?? 'socket'}: ${detail})`, true);
  }
  return err;
}

/** A response whose body is still to be read. */
export interface OpenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body's chunks; failures come out translated like the attempt's own (`timeout`, `network`). */
  body: AsyncIterable<Buffer>;
  /** Stops reading and frees the socket (an abandoned body). */
  destroy(): void;
}

/** The error `kind` once a body of `bytes` (so far, or as announced) is over `limitBytes`. */
function sizeCheck(
  kind: 'answer_too_large' | 'response_too_large',
  endpoint: string,
  status: number,
  limitBytes: number,
) {
  return (bytes: number) =>
    bytes > limitBytes ? new ApiError(kind, { endpoint, status, limitBytes }) : undefined;
}

/**
 * Sends one request and returns once the headers arrived, within the attempt's timeout.
 * A body that pauses over `idleTimeoutMs`, is still arriving `deadlineMs` after the request
 * or grows past `maxAnswerBytes` then fails (`timeout`, `answer_too_large`). `onBytes` tells bytes read.
 */
export async function openAttempt(
  dispatcher: Dispatcher,
  req: AttemptRequest,
  limits: { readonly deadlineMs: number; readonly maxAnswerBytes: number },
  scrub: (s: string) => string,
  onBytes: (n: number) => void,
): Promise<OpenResponse> {
  const attempt = await startAttempt(dispatcher, req, scrub, limits.deadlineMs);
  attempt.clearTimer();
  const { statusCode: status, headers } = attempt.res;
  const tooLarge = sizeCheck('answer_too_large', req.endpoint, status, limits.maxAnswerBytes);
  const announced = tooLarge(Number(headers['content-length']));
  if (announced) {
    attempt.close();
    throw announced;
  }
  return { status, headers, body: attempt.chunks(onBytes, tooLarge), destroy: attempt.close };
}

/** Sends one request, reads at most `maxResponseBytes` in the timeout; `onBytes` counts even on failure. */
export async function sendAttempt(
  dispatcher: Dispatcher,
  req: AttemptRequest,
  scrub: (s: string) => string,
  onBytes: (n: number) => void,
): Promise<AttemptResponse> {
  const attempt = await startAttempt(dispatcher, req, scrub);
  const { statusCode: status, headers } = attempt.res;
  const tooLarge = sizeCheck('response_too_large', req.endpoint, status, req.maxResponseBytes);
  try {
    const announced = tooLarge(Number(headers['content-length']));
    if (announced) throw announced;
    const chunks: Buffer[] = [];
    for await (const chunk of attempt.chunks(onBytes, tooLarge)) chunks.push(chunk);
    return { status, headers, body: Buffer.concat(chunks) };
  } catch (err) {
    attempt.close();
    throw err;
  } finally {
    attempt.clearTimer();
  }
}

/** An attempt whose headers arrived. */
interface StartedAttempt {
  res: Dispatcher.ResponseData;
  /** The body's chunks, failures translated; `onBytes` and `tooLarge` see the running total of bytes. */
  chunks(
    onBytes: (n: number) => void,
    tooLarge?: (bytes: number) => Error | undefined,
  ): AsyncGenerator<Buffer>;
  /** Stops the timer of the wait for the headers (and of a body read whole). */
  clearTimer(): void;
  /** Stops reading, frees the socket and stops every timer. */
  close(): void;
}

/** Sends the request and waits for the headers; `deadlineMs` bounds the whole answer, body included. */
async function startAttempt(
  dispatcher: Dispatcher,
  req: AttemptRequest,
  scrub: (s: string) => string,
  deadlineMs?: number,
): Promise<StartedAttempt> {
  const controller = new AbortController();
  let expired: Expiry;
  // Our timeout names the failure even after the deadline passed; the deadline only when first.
  const expireAfter = (ms: number, kind: Expiry, message: string) =>
    setTimeout(() => {
      expired = kind === 'timeout' ? kind : (expired ?? kind);
      controller.abort(new AttemptTimeout(message));
    }, ms);
  const timer = expireAfter(req.timeoutMs, 'timeout', 'attempt timed out');
  const deadline =
    deadlineMs === undefined ? undefined : expireAfter(deadlineMs, 'deadline', 'answer deadline passed');
  const onCallerAbort = () => controller.abort(req.signal?.reason);
  if (req.signal?.aborted) onCallerAbort();
  else req.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const clearTimer = () => clearTimeout(timer);
  const context = { ...req, deadlineMs };
  const cleanUp = () => {
    clearTimer();
    clearTimeout(deadline);
    req.signal?.removeEventListener('abort', onCallerAbort);
  };

  let res: Dispatcher.ResponseData;
  try {
    res = await dispatcher.request({
      path: req.path,
      method: req.method,
      headers: req.headers,
      body: req.body ?? null,
      signal: controller.signal,
      headersTimeout: req.timeoutMs,
      // undici restarts it at every chunk: the longest pause a body may make.
      bodyTimeout: req.idleTimeoutMs ?? req.timeoutMs,
    });
  } catch (err) {
    cleanUp();
    throw translate(err, context, expired, scrub);
  }
  const close = () => {
    if (!res.body.destroyed) res.body.destroy();
    cleanUp();
  };
  async function* chunks(
    onBytes: (n: number) => void,
    tooLarge?: (bytes: number) => Error | undefined,
  ): AsyncGenerator<Buffer> {
    let bytes = 0;
    try {
      for await (const chunk of res.body) {
        bytes += (chunk as Buffer).length;
        onBytes(bytes);
        const limit = tooLarge?.(bytes);
        if (limit) throw limit;
        yield chunk as Buffer;
      }
    } catch (err) {
      // A size limit is ours, not a failure of the transport.
      throw err instanceof ApiError ? err : translate(err, context, expired, scrub);
    } finally {
      // Stop reading and free the socket of an abandoned body.
      close();
    }
  }
  return { res, chunks, clearTimer, close };
}
