/**
 * The bounds of a streamed answer, over HTTP against the emulator's answer faults: a body
 * that trickles meets the idle timeout or the deadline, an endless `data` array the most
 * bytes of an answer, and a huge attachment the most bytes of an element — each a clear
 * one-line error, the first three transient, the last one element handed over unread
 * while the others still arrive.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, type ClientOptions, type StreamedElement } from '../src/api/client.js';
import { ApiError } from '../src/api/errors.js';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';

let emu: RunningEmulator;
const clients: ApiClient[] = [];
const PERIOD = { begin_date: '2024-11-01', end_date: '2024-11-30' };

function client(options: Partial<ClientOptions> = {}): ApiClient {
  const c = new ApiClient({
    baseUrl: emu.url,
    token: emu.headquartersToken,
    retryBaseMs: 1,
    maxAttempts: 1,
    ...options,
  });
  clients.push(c);
  return c;
}

async function all<T>(stream: AsyncIterable<StreamedElement<T>>): Promise<StreamedElement<T>[]> {
  const out: StreamedElement<T>[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** What a promise rejected with. */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  emu = await startEmulator({ seed: 'answer-limits', scale: 'small', today: '2025-03-15' });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await emu?.close();
});

describe('a body that trickles', () => {
  it('fails on the idle timeout when it pauses longer than allowed between two chunks, and a retry reads it whole', async () => {
    const expected = await all(client().stream('department', {}));
    // undici checks the pause between chunks about once a second.
    emu.queueFault({ kind: 'trickle', endpoint: 'department', intervalMs: 4_000 });
    const started = Date.now();
    const once = await failure(all(client({ bodyIdleTimeoutMs: 1_000 }).stream('department', {})));
    expect(once).toMatchObject({ kind: 'timeout' });
    expect(once.message).toBe(
      'department: timeout: no data for 1000 ms while the body was arriving (API_BODY_IDLE_TIMEOUT_MS)',
    );
    expect((once as ApiError).retryable).toBe(true);
    expect(Date.now() - started).toBeLessThan(3_500);

    emu.queueFault({ kind: 'trickle', endpoint: 'department', intervalMs: 4_000 });
    const retries: string[] = [];
    const again = client({
      bodyIdleTimeoutMs: 1_000,
      maxAttempts: 2,
      hooks: { onRetry: (e) => retries.push(e.reason) },
    });
    expect((await all(again.stream('department', {}))).map((e) => e.raw)).toEqual(expected.map((e) => e.raw));
    expect(retries).toEqual(['timeout']);
  }, 30_000);

  it('fails at the deadline when it keeps coming without ever ending in time', async () => {
    emu.queueFault({ kind: 'trickle', endpoint: 'point/getFromPeriod', intervalMs: 5 });
    const started = Date.now();
    const err = await failure(
      all(
        client({ bodyIdleTimeoutMs: 5_000, answerDeadlineMs: 1_500 }).stream('point/getFromPeriod', PERIOD),
      ),
    );
    expect(err).toMatchObject({ kind: 'timeout' });
    expect(err.message).toBe(
      'point/getFromPeriod: timeout: the answer was not complete within 1500 ms (API_ANSWER_DEADLINE_MS); reading stopped',
    );
    expect(Date.now() - started).toBeLessThan(4_000);
  });
});

describe('an endless data array', () => {
  it('stops at the most bytes of an answer, after the elements that arrived, with a transient error', async () => {
    emu.queueFault({ kind: 'endless', endpoint: 'point/getFromPeriod' });
    const seen: unknown[] = [];
    const err = await failure(
      (async () => {
        for await (const e of client({ maxAnswerBytes: 2 * 1024 * 1024 }).stream(
          'point/getFromPeriod',
          PERIOD,
        ))
          seen.push(e);
      })(),
    );
    expect(err).toMatchObject({ kind: 'answer_too_large' });
    expect(err.message).toBe(
      'point/getFromPeriod: 200 answer_too_large: the answer exceeded 2097152 bytes (API_MAX_ANSWER_BYTES); reading stopped',
    );
    expect((err as ApiError).retryable).toBe(true);
    expect(seen.length).toBeGreaterThan(0);
  });
});

describe('a huge attachment', () => {
  it('is handed over unread as an element too large, and the attachments after it still arrive, in little memory', async () => {
    // An absence with three files, so that two follow the huge one.
    const api = client();
    const person = (await api.listCollaborators())[0]!.national_registry;
    const files = ['a', 'b', 'c'].map((n) => ({
      filename: `${n}.pdf`,
      mimeType: 'application/pdf',
      content: Buffer.from(`%PDF-1.4\n% ${n}\n`),
    }));
    const { absence_id } = await api.createAbsence(
      {
        national_registry: [person],
        absence_type_id: 6,
        description: 'Treinamento',
        details: 'Três arquivos',
        begin_date: '2025-03-10',
        end_date: '2025-03-10',
        paid: true,
        full_day: true,
        sum_on_work_time: true,
        sum_total_on_work_time: true,
      },
      files,
    );
    const target = { id: absence_id, files: await all(api.stream('absence/attachment', { absence_id })) };
    expect(target.files.map((f) => (f.raw as { filename: string }).filename)).toEqual([
      'a.pdf',
      'b.pdf',
      'c.pdf',
    ]);

    emu.queueFault({ kind: 'huge-attachment', endpoint: 'absence/attachment', bytes: 256 * 1024 * 1024 });
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    let peak = 0;
    const out: StreamedElement<unknown>[] = [];
    for await (const e of client({ maxElementBytes: 1024 * 1024 }).stream('absence/attachment', {
      absence_id: target.id,
    })) {
      peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      out.push(e);
    }
    expect(out).toHaveLength(target.files.length);
    const first = out[0]!;
    expect(first.ok).toBe(false);
    const error = (first as { error: Error }).error;
    expect(error).toMatchObject({ kind: 'element_too_large' });
    expect((error as ApiError).bytes).toBeGreaterThan(256 * 1024 * 1024);
    expect(error.message).toMatch(
      /^absence\/attachment: data\[0\]: the element is \d+ bytes, over the limit of 1048576 bytes \(API_MAX_ELEMENT_BYTES\); skipped unread$/,
    );
    expect(out.slice(1).map((e) => e.raw)).toEqual(target.files.slice(1).map((e) => e.raw));
    // 256 MiB of base64 went by; the heap never held it.
    expect(peak).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
