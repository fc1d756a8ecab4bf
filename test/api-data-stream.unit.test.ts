import { describe, expect, it } from 'vitest';
import { DataStream, NotAnEnvelopeError, OversizedElement } from '../src/api/data-stream.js';

/** Splits `text` into UTF-8 chunks of pseudo-random sizes (multi-byte characters get cut). */
function* chunksOf(text: string, seed: number, max: number): Generator<Uint8Array> {
  const bytes = Buffer.from(text, 'utf8');
  let s = seed;
  for (let i = 0; i < bytes.length;) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    const n = 1 + (s % max);
    yield bytes.subarray(i, i + n);
    i += n;
  }
}

async function* asAsync<T>(items: Iterable<T>): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function collect(stream: DataStream): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

const tricky = {
  meta: { begin_date: '2025-05-01', end_date: '2025-05-31' },
  data: Array.from({ length: 40 }, (_, i) => ({
    national_registry: String(10_000_000_000 + i),
    name: i % 3 === 0 ? 'João Ção "Aspas" [colchete] {chave}, vírgula' : `Pessoa ${i}`,
    escaped: 'barra \\ e \n nova linha \u0001 e emoji 😀',
    days: Array.from({ length: i % 5 }, (_d, d) => ({
      date: `2025-05-0${d + 1}`,
      points: [{ point_id: i * 10 + d, n: -1.5e-3 }],
    })),
    nested: [[], [[]], {}, { a: [1, 2, { b: null }] }],
    flag: i % 2 === 0,
  })),
};

describe('DataStream', () => {
  it('hands over exactly the elements JSON.parse sees, whatever the chunk boundaries', async () => {
    const text = JSON.stringify(tricky);
    for (const [seed, max] of [
      [1, 1],
      [2, 3],
      [3, 17],
      [4, 256],
      [5, 100_000],
    ] as const) {
      const stream = new DataStream(asAsync(chunksOf(text, seed, max)));
      expect(await collect(stream), `chunks up to ${max} bytes`).toEqual(tricky.data);
      expect(stream.rest).toEqual({ meta: tricky.meta });
      expect(stream.count).toBe(tricky.data.length);
    }
  });

  it('reads the rest of the envelope whether meta comes before or after data', async () => {
    const text = JSON.stringify({ data: [{ a: 1 }, { a: 2 }], meta: { date: '2025-01-02' }, extra: [1] });
    const stream = new DataStream(asAsync(chunksOf(text, 9, 5)));
    expect(await collect(stream)).toEqual([{ a: 1 }, { a: 2 }]);
    expect(stream.rest).toEqual({ meta: { date: '2025-01-02' }, extra: [1] });
  });

  it('handles an empty data array and whitespace around tokens', async () => {
    const stream = new DataStream(asAsync(['{ "data" : [ ] ,\n "meta": {} }\n']));
    expect(await collect(stream)).toEqual([]);
    expect(stream.rest).toEqual({ meta: {} });
  });

  it('hands elements over before the body has ended, and reads no further than the consumer', async () => {
    const element = { x: 'y'.repeat(1000) };
    let pulled = 0;
    async function* slow(): AsyncGenerator<string> {
      yield '{"data":[';
      for (let i = 0; i < 1000; i++) {
        pulled++;
        yield `${i ? ',' : ''}${JSON.stringify(element)}`;
      }
      yield ']}';
    }
    const stream = new DataStream(slow());
    let seen = 0;
    for await (const e of stream) {
      expect(e).toEqual(element);
      seen++;
      // The parser is at most a couple of chunks ahead of the consumer.
      expect(pulled - seen).toBeLessThanOrEqual(3);
      if (seen === 10) break;
    }
    expect(seen).toBe(10);
    expect(pulled).toBeLessThan(15);
  });

  it('keeps memory at one element, not the whole body', async () => {
    const element = JSON.stringify({
      name: 'n'.repeat(200),
      days: Array.from({ length: 30 }, (_, d) => ({ d, s: 's'.repeat(50) })),
    });
    const count = 20_000; // ~55 MB of JSON
    async function* big(): AsyncGenerator<string> {
      yield '{"data":[';
      let chunk = '';
      for (let i = 0; i < count; i++) {
        chunk += `${i ? ',' : ''}${element}`;
        if (chunk.length > 64 * 1024) {
          yield chunk;
          chunk = '';
        }
      }
      yield `${chunk}]}`;
    }
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    let n = 0;
    for await (const _ of new DataStream(big())) {
      if (++n % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapUsed - before);
    }
    expect(n).toBe(count);
    // The whole body would be well over 100 MB as strings and objects.
    expect(peak).toBeLessThan(40 * 1024 * 1024);
  });

  it('rejects a body that is not JSON (an HTML page) with a SyntaxError', async () => {
    const stream = new DataStream(asAsync(['<!doctype html><html><body>Login</body></html>']));
    await expect(collect(stream)).rejects.toBeInstanceOf(SyntaxError);
  });

  it('rejects a cut body after the elements that did arrive', async () => {
    const text = JSON.stringify(tricky);
    const stream = new DataStream(asAsync(chunksOf(text.slice(0, text.length / 2), 7, 50)));
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for await (const e of stream) seen.push(e);
      })(),
    ).rejects.toBeInstanceOf(SyntaxError);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual(tricky.data.slice(0, seen.length));
  });

  it('rejects JSON that is not an envelope with data', async () => {
    await expect(collect(new DataStream(asAsync(['[1,2]'])))).rejects.toThrow(NotAnEnvelopeError);
    await expect(collect(new DataStream(asAsync(['{"meta":{}}'])))).rejects.toThrow(/data: missing/);
    await expect(collect(new DataStream(asAsync(['{"data":{"id":1}}'])))).rejects.toThrow(
      /data: expected an array/,
    );
  });

  it('passes on a failure of the source', async () => {
    async function* failing(): AsyncGenerator<string> {
      yield '{"data":[{"a":1},';
      throw new Error('socket hang up');
    }
    await expect(collect(new DataStream(failing()))).rejects.toThrow('socket hang up');
  });

  it('stops the source when the consumer stops early', async () => {
    let stopped = 0;
    async function* endless(): AsyncGenerator<string> {
      yield '{"data":[';
      for (let i = 0; ; i++) yield `${i ? ',' : ''}{"i":${i}}`;
    }
    const stream = new DataStream(endless(), () => stopped++);
    for await (const e of stream) if ((e as { i: number }).i === 5) break;
    expect(stopped).toBe(1);
  });

  it('skips an element over the size limit unread, whatever the chunk boundaries, and hands over the ones after it', async () => {
    const big = { national_registry: '01234567890', base64: 'QUJD'.repeat(5000), note: 'a "quoted" \\ tail' };
    const text = JSON.stringify({ data: [{ a: 1 }, big, { a: 2 }, 'scalar', 7], meta: { n: 1 } });
    const bigBytes = Buffer.byteLength(JSON.stringify(big));
    for (const [seed, max] of [
      [1, 7],
      [2, 1000],
      [3, 100_000],
    ] as const) {
      const stream = new DataStream(asAsync(chunksOf(text, seed, max)), undefined, {
        maxElementBytes: 10_000,
      });
      const out = await collect(stream);
      expect(out, `chunks up to ${max} bytes`).toEqual([
        { a: 1 },
        new OversizedElement(1, bigBytes, 10_000),
        { a: 2 },
        'scalar',
        7,
      ]);
      expect(stream.rest).toEqual({ meta: { n: 1 } });
    }
  });

  it('holds none of an element over the limit: a 64 MB attachment passes in little memory', async () => {
    const piece = 'A'.repeat(64 * 1024);
    async function* huge(): AsyncGenerator<string> {
      yield '{"data":[{"filename":"a.pdf","base64":"';
      for (let i = 0; i < 1024; i++) yield piece;
      yield '"},{"filename":"b.pdf","base64":"QUJD"}]}';
    }
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    const out: unknown[] = [];
    const source = huge();
    const measured = (async function* () {
      for await (const chunk of source) {
        peak = Math.max(peak, process.memoryUsage().heapUsed - before);
        yield chunk;
      }
    })();
    for await (const e of new DataStream(measured, undefined, { maxElementBytes: 1024 * 1024 })) out.push(e);
    expect(out).toEqual([
      new OversizedElement(0, 64 * 1024 * 1024 + 32, 1024 * 1024),
      { filename: 'b.pdf', base64: 'QUJD' },
    ]);
    expect(peak).toBeLessThan(24 * 1024 * 1024);
  });

  it('says where the JSON broke without quoting any of it (a body may hold personal data)', async () => {
    const secret = 'Maria Secreta 12345678909';
    const broken = collect(new DataStream(asAsync([`{"data":[{"name":"${secret}"} {"x":1}]}`])));
    await expect(broken).rejects.toThrow(new SyntaxError('data[0]: expected "," or "]" after the element'));
    const bad = collect(new DataStream(asAsync([`{"data":[{"name": ${secret}}]}`])));
    await expect(bad).rejects.toThrow(new SyntaxError('data[0]: is not valid JSON'));
    const root = collect(new DataStream(asAsync([`{"data":[], "meta": ${secret}}`])));
    await expect(root).rejects.toThrow(new SyntaxError('(body): is not valid JSON'));
  });

  it('refuses an envelope outside data larger than the element limit', async () => {
    const stream = new DataStream(asAsync([`{"meta":"${'m'.repeat(20_000)}","data":[]}`]), undefined, {
      maxElementBytes: 10_000,
    });
    await expect(collect(stream)).rejects.toThrow(/the envelope outside data exceeds 10000 bytes/);
  });
});
