/**
 * Reads the `data` array of a success envelope (spec 1.1) element by element while the
 * body is still arriving, so memory holds one chunk and the element being parsed, never
 * the whole answer: a big company's month of punches is tens of megabytes.
 *
 * Parsing is @discoveryjs/json-ext's `parseChunked`, which feeds `JSON.parse` with
 * complete fragments (about as fast as `JSON.parse` itself, several times faster than
 * token-by-token parsers). After every chunk it exposes the value built so far; the
 * elements of `data` before the last one are complete, so they are handed over and
 * their slots cleared, and the envelope never grows past the element in progress.
 */
import { parseChunked } from '@discoveryjs/json-ext';

/** A one-shot wake-up between the parser side and the consumer side. */
class Signal {
  #pending = false;
  #resolve: (() => void) | undefined;

  notify(): void {
    const resolve = this.#resolve;
    this.#resolve = undefined;
    if (resolve) resolve();
    else this.#pending = true;
  }

  wait(): Promise<void> {
    if (this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.#resolve = resolve));
  }
}

/** The body was JSON, but not an object with a `data` array (spec 1.1). */
export class NotAnEnvelopeError extends Error {
  override readonly name = 'NotAnEnvelopeError';
}

/**
 * The elements of an envelope's `data` array, in order, as they complete. Once the
 * iteration has ended, {@link DataStream.rest} holds the envelope's other keys
 * (`meta`, ...). Iterate it once. A body that is not JSON rejects with the parser's
 * SyntaxError; one that is JSON but no envelope, with {@link NotAnEnvelopeError}.
 * Stopping early (break, throw) stops reading the source.
 */
export class DataStream implements AsyncIterable<unknown> {
  readonly #source: AsyncIterable<Uint8Array | string>;
  readonly #stop: () => void;
  #rest: Record<string, unknown> | undefined;
  #count = 0;

  /** `stop` ends the source (e.g. destroys the HTTP body) when the consumer stops early. */
  constructor(source: AsyncIterable<Uint8Array | string>, stop: () => void = () => undefined) {
    this.#source = source;
    this.#stop = stop;
  }

  /** The envelope without `data`, once iteration has completed. */
  get rest(): Record<string, unknown> | undefined {
    return this.#rest;
  }

  /** Elements handed over so far. */
  get count(): number {
    return this.#count;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<unknown> {
    const ready: unknown[] = [];
    let taken = 0;
    let drained = 0;
    let done = false;
    let failure: unknown;
    let stopped = false;
    const parsed = new Signal();
    const consumed = new Signal();
    const source = this.#source;

    // The parser pulls chunks from here; after a chunk that completed elements it waits
    // until they are consumed, so a slow consumer slows the reading of the body.
    async function* feed(): AsyncGenerator<Uint8Array | string> {
      for await (const chunk of source) {
        for (const piece of piecesOf(chunk)) {
          if (stopped) return;
          yield piece;
          if (stopped) return;
          if (taken < ready.length) await consumed.wait();
        }
      }
    }

    const drain = (root: unknown, final: boolean): void => {
      if (root === null || typeof root !== 'object' || Array.isArray(root)) return;
      const data = (root as { data?: unknown }).data;
      if (!Array.isArray(data)) return;
      // Only the last element can still be under construction.
      const complete = final ? data.length : data.length - 1;
      for (; drained < complete; drained++) {
        ready.push(data[drained]);
        data[drained] = undefined;
      }
    };

    const parsing = parseChunked(feed(), {
      onChunk: (_parsed: number, chunk: string | null, _pending: string | null, state: { currentRootValue: unknown }) => {
        drain(state.currentRootValue, chunk === null);
        if (taken < ready.length) parsed.notify();
      },
    })
      .then((root: unknown) => {
        this.#rest = envelopeRest(root);
      })
      .catch((err: unknown) => {
        failure = err;
      })
      .finally(() => {
        done = true;
        parsed.notify();
      });

    try {
      for (;;) {
        while (taken < ready.length) {
          const element = ready[taken];
          ready[taken++] = undefined;
          this.#count++;
          yield element;
        }
        ready.length = 0;
        taken = 0;
        if (done) break;
        consumed.notify();
        await parsed.wait();
      }
      if (failure !== undefined) throw failure;
    } finally {
      if (!done) {
        // Ending the source ends the download; the parser then fails on the truncated
        // text, which nobody is waiting for any more.
        stopped = true;
        this.#stop();
        consumed.notify();
        await parsing;
      }
    }
  }
}

const OPEN_BRACE = 0x7b;

/**
 * A chunk as the parser is fed it: in pieces of at most {@link PIECE_BYTES}, each cut
 * after its last `{`. Small pieces keep the text the parser holds between two answers
 * small, so it dies young instead of being promoted by the garbage collector while the
 * consumer waits on the database (any cut is valid input; UTF-8 sequences cut in two are
 * joined by the parser).
 */
function* piecesOf(chunk: Uint8Array | string): Generator<Uint8Array | string> {
  for (let start = 0; start < chunk.length; start += PIECE_BYTES) {
    const end = Math.min(chunk.length, start + PIECE_BYTES);
    const piece = typeof chunk === 'string' ? chunk.slice(start, end) : chunk.subarray(start, end);
    yield* splitAtLastBrace(piece);
  }
}

/** Largest piece of a chunk fed to the parser at once. */
const PIECE_BYTES = 16 * 1024;

/**
 * Cuts a chunk just after its last `{`. The parser publishes the elements it completed
 * only when a chunk ends at another nesting depth than the previous one; a source that
 * sends whole elements per chunk would otherwise keep them all unpublished until the
 * end. A cut inside an object forces the depth change. (`{` is ASCII, so the cut never
 * splits a UTF-8 sequence; a `{` inside a string is harmless: any cut is valid input.)
 */
function splitAtLastBrace(chunk: Uint8Array | string): (Uint8Array | string)[] {
  const at = typeof chunk === 'string' ? chunk.lastIndexOf('{') : chunk.lastIndexOf(OPEN_BRACE);
  if (at <= 0 || at >= chunk.length - 1) return [chunk];
  return typeof chunk === 'string'
    ? [chunk.slice(0, at + 1), chunk.slice(at + 1)]
    : [chunk.subarray(0, at + 1), chunk.subarray(at + 1)];
}

/** The envelope's keys but `data`; throws unless it is an object with a `data` array. */
function envelopeRest(root: unknown): Record<string, unknown> {
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw new NotAnEnvelopeError('(body): expected the success envelope, an object with "data" (spec 1.1)');
  }
  const { data, ...rest } = root as Record<string, unknown>;
  if (!('data' in root)) throw new NotAnEnvelopeError('data: missing from the success envelope (spec 1.1)');
  if (!Array.isArray(data)) throw new NotAnEnvelopeError('data: expected an array (spec 4.1)');
  return rest;
}
