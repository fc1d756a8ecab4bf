/**
 * Reads the `data` array of a success envelope (spec 1.1) element by element as the body
 * arrives, so memory holds one chunk and one element, never the answer (a big company's month
 * of punches is tens of megabytes). The body is scanned as bytes, once: byte by byte outside
 * strings, quote to quote with `Buffer.indexOf` inside (JSON's structural characters are
 * ASCII, never inside a UTF-8 sequence); each element is then parsed whole by `JSON.parse`.
 * One over `maxElementBytes` is only scanned to its end and handed over as an
 * {@link OversizedElement}: a huge attachment must not be buffered whole, nor stop the rest.
 * One nested deeper than {@link MAX_ELEMENT_DEPTH} levels is handed over unparsed as a
 * {@link TooDeepElement}: whatever later walks an element (its validation, `JSON.stringify` of
 * a rejected record) recurses, and ten thousand levels in 20 KB would overflow the stack.
 */
import { errorClass } from '../util/errors.js';

/** The body was JSON, but not an object with a `data` array (spec 1.1). */
export class NotAnEnvelopeError extends errorClass('NotAnEnvelopeError', 'response_invalid') {}

/** An element of `data` over the limit, skipped unparsed: its place, size in bytes and the limit. */
export class OversizedElement {
  constructor(
    readonly index: number,
    readonly bytes: number,
    readonly limitBytes: number,
  ) {}
}

/** Deepest nesting of objects and arrays in one element (the element itself is level 1); spec 2's deepest is 4. */
export const MAX_ELEMENT_DEPTH = 64;

/** An element of `data` nested deeper than {@link MAX_ELEMENT_DEPTH}, skipped unparsed: its place and the limit. */
export class TooDeepElement {
  constructor(
    readonly index: number,
    readonly limitDepth: number,
  ) {}
}

/**
 * The elements of an envelope's `data` array, in order, as they complete; then
 * {@link DataStream.rest} holds its other keys (`meta`, ...). Iterate it once. A body that is
 * not JSON rejects with a SyntaxError quoting none of it; JSON but no envelope, with
 * {@link NotAnEnvelopeError}. Stopping early (break, throw) stops reading the source.
 */
export class DataStream implements AsyncIterable<unknown> {
  readonly #source: AsyncIterable<Uint8Array | string>;
  readonly #stop: () => void;
  readonly #maxElementBytes: number;
  #rest: Record<string, unknown> | undefined;
  #count = 0;

  /**
   * `stop` ends the source (e.g. the HTTP body) when the consumer stops early;
   * `maxElementBytes` (default 32 MiB) bounds an element of `data` and the envelope outside it.
   */
  constructor(
    source: AsyncIterable<Uint8Array | string>,
    stop: () => void = () => undefined,
    options: { readonly maxElementBytes?: number } = {},
  ) {
    this.#source = source;
    this.#stop = stop;
    this.#maxElementBytes = options.maxElementBytes ?? 32 * 1024 * 1024;
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
    const scanner = new EnvelopeScanner(this.#maxElementBytes);
    let finished = false;
    try {
      for await (const chunk of this.#source) {
        const ready = scanner.push(asBuffer(chunk));
        for (let i = 0; i < ready.length; i++) {
          const element = ready[i];
          ready[i] = undefined;
          this.#count++;
          yield element;
        }
      }
      const { rest, late } = scanner.finish();
      for (const element of late) {
        this.#count++;
        yield element;
      }
      this.#rest = rest;
      finished = true;
    } finally {
      // Ending the source ends the download of an answer nobody reads any more.
      if (!finished) this.#stop();
    }
  }
}

function asBuffer(chunk: Uint8Array | string): Buffer {
  if (typeof chunk === 'string') return Buffer.from(chunk, 'utf8');
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;

/** Longest key of the envelope that is remembered (to recognise `data`). */
const MAX_KEY_BYTES = 64;

/** Depth of the elements of `data`: inside the root object (1) and the array (2). */
const ELEMENT_DEPTH = 2;

/** A SyntaxError that names where, never what: a body may hold personal data. */
const notJson = (where: string, what = 'is not valid JSON'): SyntaxError =>
  new SyntaxError(`${where}: ${what}`);

/** Behind {@link DataStream}: returns the elements each chunk completes, keeps the rest for the end. */
class EnvelopeScanner {
  readonly #max: number;
  /** Containers open at the current byte. */
  #depth = 0;
  #inString = false;
  /** The previous chunk ended on a backslash inside a string: the next byte is escaped. */
  #escaped = false;
  /** Inside the `data` array (at or below {@link ELEMENT_DEPTH}). */
  #inData = false;
  /** `data` was met (and streamed). */
  #dataSeen = false;
  /** An element is being read. */
  #started = false;
  /** The element being read is an object or array (it ends when its container closes). */
  #container = false;
  /** A container element has ended; a comma or the end of `data` must come next. */
  #awaitingSeparator = false;
  /** A comma was read; an element must come next. */
  #afterComma = false;
  /** The element being read is over the limit: its bytes are only counted. */
  #skipping = false;
  /** The element being read is nested deeper than {@link MAX_ELEMENT_DEPTH}. */
  #tooDeep = false;
  /** Bytes of the element being read, before the current chunk. */
  #elementBytes = 0;
  /** Its bytes from earlier chunks (unless skipping). */
  #parts: Buffer[] = [];
  /** Elements completed so far. */
  #index = 0;
  /** The envelope outside `data`'s elements, copied. */
  #root: Buffer[] = [];
  #rootBytes = 0;
  /** A string of the root object being read (its last one is the key of what follows), or null when too long. */
  #key: Buffer[] | null = null;
  #keyBytes = 0;
  /** The last string read at the root object's level. */
  #lastKey: string | undefined;

  constructor(maxElementBytes: number) {
    this.#max = maxElementBytes;
  }

  /** Scans one chunk; returns the elements it completed. */
  push(chunk: Buffer): unknown[] {
    const out: unknown[] = [];
    const n = chunk.length;
    // Where the current element's bytes and the root's bytes start in this chunk (-1: none).
    let element = this.#started ? 0 : -1;
    let root = this.#inData ? -1 : 0;
    let keyFrom = this.#key !== null && this.#inString ? 0 : -1;
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        if (this.#escaped) {
          this.#escaped = false;
          i++;
          if (i >= n) break;
        }
        const from = i;
        let q = chunk.indexOf(QUOTE, i);
        // A quote preceded by an odd run of backslashes is escaped: look further.
        while (q >= 0 && backslashesBefore(chunk, q, from) % 2 === 1) q = chunk.indexOf(QUOTE, q + 1);
        if (q < 0) {
          this.#escaped = backslashesBefore(chunk, n, from) % 2 === 1;
          break;
        }
        this.#inString = false;
        if (keyFrom >= 0) {
          this.#addKeyBytes(chunk, keyFrom, q);
          this.#lastKey = this.#key === null ? undefined : Buffer.concat(this.#key).toString('utf8');
          this.#key = null;
          keyFrom = -1;
        }
        i = q + 1;
        continue;
      }
      const c = chunk[i]!;
      if (c === SPACE || c === LF || c === CR || c === TAB) {
        i++;
        continue;
      }
      const atElements = this.#inData && this.#depth === ELEMENT_DEPTH;
      if (atElements && this.#awaitingSeparator && c !== COMMA && c !== CLOSE_ARRAY)
        throw notJson(`data[${this.#index - 1}]`, 'expected "," or "]" after the element');
      switch (c) {
        case QUOTE:
          if (atElements && !this.#started) element = this.#start(i, false);
          this.#inString = true;
          if (this.#depth === 1 && !this.#inData) {
            this.#lastKey = undefined;
            this.#key = [];
            this.#keyBytes = 0;
            keyFrom = i + 1;
          }
          break;
        case OPEN_OBJECT:
        case OPEN_ARRAY:
          if (atElements && !this.#started) element = this.#start(i, true);
          if (this.#depth - ELEMENT_DEPTH >= MAX_ELEMENT_DEPTH) {
            // Deeper than any element may be: skip it unparsed; outside data the answer is no envelope.
            if (!this.#inData || !this.#started)
              throw new NotAnEnvelopeError(`(body): nested deeper than ${MAX_ELEMENT_DEPTH} levels`);
            this.#tooDeep = true;
            this.#skipping = true;
            this.#parts = [];
          }
          if (this.#depth === 1 && c === OPEN_ARRAY && !this.#dataSeen && this.#lastKey === 'data') {
            // The `data` array: the root keeps its brackets, the elements go their own way.
            this.#addRoot(chunk, root, i + 1);
            root = -1;
            this.#inData = true;
            this.#dataSeen = true;
          }
          this.#depth++;
          break;
        case CLOSE_OBJECT:
        case CLOSE_ARRAY:
          if (this.#depth === 0) throw notJson('(body)');
          this.#depth--;
          if (this.#inData && this.#depth === ELEMENT_DEPTH && this.#started && this.#container) {
            out.push(this.#finish(chunk, element, i + 1));
            element = -1;
            this.#awaitingSeparator = true;
          } else if (this.#inData && this.#depth === 1) {
            if (this.#started) out.push(this.#finish(chunk, element, i));
            else if (this.#afterComma) throw notJson(`data[${this.#index}]`, 'expected an element after ","');
            element = -1;
            this.#awaitingSeparator = false;
            this.#afterComma = false;
            this.#inData = false;
            root = i;
          }
          break;
        case COMMA:
          if (atElements) {
            if (this.#started) out.push(this.#finish(chunk, element, i));
            else if (!this.#awaitingSeparator)
              throw notJson(`data[${this.#index}]`, 'expected an element before ","');
            element = -1;
            this.#awaitingSeparator = false;
            this.#afterComma = true;
          }
          break;
        default:
          if (atElements && !this.#started) element = this.#start(i, false);
      }
      i++;
    }
    if (keyFrom >= 0) this.#addKeyBytes(chunk, keyFrom, n);
    if (this.#started) {
      this.#elementBytes += n - Math.max(0, element);
      if (!this.#skipping && this.#elementBytes > this.#max) {
        this.#skipping = true;
        this.#parts = [];
      }
      if (!this.#skipping) this.#parts.push(chunk.subarray(Math.max(0, element), n));
    }
    this.#addRoot(chunk, root, n);
    return out;
  }

  /** The body has ended: the envelope without `data`, and the elements of a `data` that could not be streamed. */
  finish(): { rest: Record<string, unknown>; late: unknown[] } {
    if (this.#depth !== 0 || this.#inString) throw notJson('(body)', 'the body ended before the JSON did');
    let root: unknown;
    try {
      root = JSON.parse(Buffer.concat(this.#root).toString('utf8'));
    } catch {
      throw notJson('(body)');
    }
    const { data, ...rest } = envelopeOf(root);
    // `data` was streamed unless it was not recognised as it arrived (an escaped key).
    return { rest, late: this.#dataSeen ? [] : data };
  }

  /** Starts an element at `at`; returns where its bytes start in the chunk. */
  #start(at: number, container: boolean): number {
    this.#started = true;
    this.#container = container;
    this.#afterComma = false;
    this.#skipping = false;
    this.#tooDeep = false;
    this.#elementBytes = 0;
    this.#parts = [];
    return at;
  }

  /** Ends the element whose bytes in this chunk are [from, end): its value, an OversizedElement or a TooDeepElement. */
  #finish(chunk: Buffer, from: number, end: number): unknown {
    const start = Math.max(0, from);
    const bytes = this.#elementBytes + (end - start);
    const index = this.#index++;
    this.#started = false;
    const parts = this.#parts;
    this.#parts = [];
    if (this.#tooDeep) return new TooDeepElement(index, MAX_ELEMENT_DEPTH);
    if (this.#skipping || bytes > this.#max) return new OversizedElement(index, bytes, this.#max);
    const text =
      parts.length === 0
        ? chunk.toString('utf8', start, end)
        : Buffer.concat([...parts, chunk.subarray(start, end)]).toString('utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw notJson(`data[${index}]`);
    }
  }

  /** Keeps a copy of the root's bytes [from, end) of the chunk (none when `from` is -1). */
  #addRoot(chunk: Buffer, from: number, end: number): void {
    if (from < 0 || end <= from) return;
    this.#rootBytes += end - from;
    if (this.#rootBytes > this.#max)
      throw new NotAnEnvelopeError(`(body): the envelope outside data exceeds ${this.#max} bytes`);
    this.#root.push(Buffer.from(chunk.subarray(from, end)));
  }

  #addKeyBytes(chunk: Buffer, from: number, end: number): void {
    if (this.#key === null || end <= from) return;
    this.#keyBytes += end - from;
    if (this.#keyBytes > MAX_KEY_BYTES) this.#key = null;
    else this.#key.push(Buffer.from(chunk.subarray(from, end)));
  }
}

/** Backslashes right before position `at`, counted back to `from`. */
function backslashesBefore(chunk: Buffer, at: number, from: number): number {
  let j = at - 1;
  while (j >= from && chunk[j] === BACKSLASH) j--;
  return at - 1 - j;
}

/** The envelope's keys, `data` an array; throws unless it is an object with a `data` array. */
function envelopeOf(root: unknown): { data: unknown[] } & Record<string, unknown> {
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw new NotAnEnvelopeError('(body): expected the success envelope, an object with "data" (spec 1.1)');
  }
  if (!('data' in root)) throw new NotAnEnvelopeError('data: missing from the success envelope (spec 1.1)');
  const { data } = root as { data: unknown };
  if (!Array.isArray(data)) throw new NotAnEnvelopeError('data: expected an array (spec 4.1)');
  return root as { data: unknown[] } & Record<string, unknown>;
}
