import { describe, expect, it } from 'vitest';
import { DataStream, MAX_ELEMENT_DEPTH, NotAnEnvelopeError, TooDeepElement } from '../src/api/data-stream.js';
import { storableJson, storableText } from '../src/util/storable-text.js';

async function* inChunks(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function elementsOf(text: string, size = 97): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of new DataStream(inChunks(text, size))) out.push(e);
  return out;
}

/** JSON arrays nested `levels` deep around `inner`. */
const nested = (levels: number, inner = '') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

describe('elements nested too deep', () => {
  it('hands over an element nested 10,000 levels deep (20 KB) unparsed, and the elements around it', async () => {
    const body = `{"data":[{"a":1},${nested(10_000)},{"b":[{"c":2}]}],"meta":{"n":3}}`;
    const got = await elementsOf(body);
    expect(got).toEqual([{ a: 1 }, new TooDeepElement(1, MAX_ELEMENT_DEPTH), { b: [{ c: 2 }] }]);
  });

  it('parses an element of exactly the limit, and refuses one level more', async () => {
    const [atLimit, over] = await elementsOf(
      `{"data":[${nested(MAX_ELEMENT_DEPTH, '1')},${nested(MAX_ELEMENT_DEPTH + 1, '1')}]}`,
      5,
    );
    expect(JSON.stringify(atLimit)).toBe(nested(MAX_ELEMENT_DEPTH, '1'));
    expect(over).toEqual(new TooDeepElement(1, MAX_ELEMENT_DEPTH));
  });

  it('refuses an envelope nested too deep outside data as no envelope', async () => {
    await expect(elementsOf(`{"data":[],"meta":${nested(10_000)}}`)).rejects.toThrow(NotAnEnvelopeError);
  });
});

describe('text made fit for the warehouse', () => {
  it('drops NUL and control characters, keeps tabs and line breaks, mends a lone surrogate', () => {
    expect(storableText('a\u0000b\u0007c\td\ne\u009bf\ud800g')).toBe('abc\td\nef\ufffdg');
    expect(storableText('emoji 😀 ok')).toBe('emoji 😀 ok');
  });

  it('cleans every string and key of a record, and bounds its depth', () => {
    expect(storableJson({ 'k\u0000': ['v\u0000', 1, null, { x: 'y\u0001' }] })).toEqual({
      k: ['v', 1, null, { x: 'y' }],
    });
    const deep = JSON.parse(nested(200, '1')) as unknown;
    expect(JSON.stringify(storableJson(deep, 3))).toBe('[[["(nested deeper than 3 levels)"]]]');
  });
});
