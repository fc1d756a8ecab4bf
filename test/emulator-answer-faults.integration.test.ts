/**
 * The emulator's faults that spoil a 200 body, over HTTP: a body that trickles, a `data`
 * array that never ends, an attachment grown huge, an element sent twice and an element
 * that names another company — queued one at a time, and drawn by the `--faults`
 * probabilities.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { parseFaultsSpec } from '../src/emulator/faults-spec.js';
import { callAdmin, callEmulator } from './support/emulator-http.js';

let emu: RunningEmulator;
const PERIOD = 'begin_date=2025-02-01&end_date=2025-02-28';

const call = (path: string): Promise<Response> => callEmulator(emu, path);

/** Reads a body chunk by chunk: the time each arrived (ms from the start) and its size; stops past `limit` bytes. */
async function timedChunks(res: Response, limit = Infinity): Promise<{ at: number; bytes: number }[]> {
  const started = Date.now();
  const out: { at: number; bytes: number }[] = [];
  let total = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    out.push({ at: Date.now() - started, bytes: value.length });
    if (total > limit) {
      await reader.cancel();
      break;
    }
  }
  return out;
}

beforeAll(async () => {
  emu = await startEmulator({ seed: 'answer-faults', scale: 'small', today: '2025-03-15' });
});
afterAll(async () => {
  await emu?.close();
});

describe('a queued trickle', () => {
  it('sends the same body a few bytes at a time, pausing between pieces', async () => {
    const whole = await (await call('department')).text();
    const res = await callAdmin(emu, 'faults/next', {
      kind: 'trickle',
      endpoint: 'department',
      intervalMs: 40,
    });
    expect(res.status).toBe(200);
    const slow = await call('department');
    expect(slow.status).toBe(200);
    const chunks = await timedChunks(slow.clone());
    expect(await slow.text()).toBe(whole);
    expect(Math.max(...chunks.map((c) => c.bytes))).toBeLessThanOrEqual(64);
    // ceil(bytes / 64) pieces, 40 ms apart.
    expect(chunks.at(-1)!.at).toBeGreaterThanOrEqual(
      40 * (Math.ceil(Buffer.byteLength(whole) / 64) - 1) * 0.9,
    );
  });
});

describe('a queued endless answer', () => {
  it('keeps sending elements of data after the real ones, until the client hangs up', async () => {
    const real = ((await (await call('department')).json()) as { data: unknown[] }).data;
    emu.queueFault({ kind: 'endless', endpoint: 'department' });
    const res = await call('department');
    expect(res.status).toBe(200);
    const chunks = await timedChunks(res, 2 * 1024 * 1024);
    expect(chunks.reduce((n, c) => n + c.bytes, 0)).toBeGreaterThan(2 * 1024 * 1024);
    expect(real.length).toBeGreaterThan(0);
    // The emulator is still serving afterwards.
    expect(((await (await call('department')).json()) as { data: unknown[] }).data).toEqual(real);
  });
});

describe('a queued huge attachment', () => {
  it('grows the base64 of the first attachment by the bytes asked, still valid base64, the rest unchanged', async () => {
    const absences = (
      (await (
        await call(`absence/getFromPeriod?begin_date=2024-11-01 00:00:00&end_date=2024-11-30 23:59:59`)
      ).json()) as {
        data: { absence_id: number; has_attachment: boolean }[];
      }
    ).data;
    const id = absences.find((a) => a.has_attachment)!.absence_id;
    const before = (await (await call(`absence/attachment?absence_id=${id}`)).json()) as {
      data: { base64: string; filename: string }[];
    };
    emu.queueFault({ kind: 'huge-attachment', endpoint: 'absence/attachment', bytes: 3_000_001 });
    const res = await call(`absence/attachment?absence_id=${id}`);
    expect(res.status).toBe(200);
    const after = (await res.json()) as { data: { base64: string; filename: string }[] };
    expect(after.data[0]!.base64.length).toBe(before.data[0]!.base64.length + 3_000_004);
    expect(after.data[0]!.base64.endsWith(before.data[0]!.base64)).toBe(true);
    expect(Buffer.from(after.data[0]!.base64, 'base64').length).toBe(
      Buffer.from(before.data[0]!.base64, 'base64').length + 2_250_003,
    );
    expect(after.data.slice(1)).toEqual(before.data.slice(1));
  });

  it('applies to files only: a list without base64 is not touched and keeps the fault queued', async () => {
    emu.queueFault({ kind: 'huge-attachment', bytes: 1000 });
    const res = await call('department');
    expect(((await res.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    expect(emu.queuedFaults()).toEqual([{ kind: 'huge-attachment', count: 1, bytes: 1000 }]);
    emu.clearQueuedFaults();
  });
});

describe('a queued repeat and foreign company', () => {
  it('sends the first element twice in a row', async () => {
    const real = ((await (await call(`tardiness?${PERIOD}`)).json()) as { data: unknown[] }).data;
    emu.queueFault({ kind: 'repeat', endpoint: 'tardiness' });
    const twice = ((await (await call(`tardiness?${PERIOD}`)).json()) as { data: unknown[] }).data;
    expect(twice).toEqual([real[0], ...real]);
  });

  it('names another company of the group in the first element with a company block', async () => {
    const hq = emu.companies[0]!.cnpj;
    const real = (
      (await (await call(`tardiness?${PERIOD}`)).json()) as {
        data: { company: { national_registry: string } }[];
      }
    ).data;
    expect(real[0]!.company.national_registry).toBe(hq);
    emu.queueFault({ kind: 'foreign-company', endpoint: 'tardiness' });
    const spoiled = (
      (await (await call(`tardiness?${PERIOD}`)).json()) as {
        data: { company: { national_registry: string } }[];
      }
    ).data;
    expect(spoiled[0]!.company.national_registry).not.toBe(hq);
    expect(emu.companies.map((c) => c.cnpj)).toContain(spoiled[0]!.company.national_registry);
    expect(spoiled.slice(1)).toEqual(real.slice(1));
  });

  it('refuses an unknown option of a queued fault', async () => {
    const res = await callAdmin(emu, 'faults/next', { kind: 'trickle', intervalMs: -1 });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/intervalMs must be a whole number from 0 to 600000/);
  });
});

describe('the --faults probabilities of answer faults', () => {
  it('reads trickle, endless and huge with their suffixes', () => {
    expect(parseFaultsSpec('trickle=0.5:3000,endless=0.1,huge=0.2:1048576')).toMatchObject({
      trickle: 0.5,
      trickleMs: 3000,
      endless: 0.1,
      huge: 0.2,
      hugeBytes: 1_048_576,
    });
    expect(() => parseFaultsSpec('endless=0.1:5')).toThrow(/only slow, trickle and huge take :N/);
  });

  it('spoil every GET answer at probability 1', async () => {
    emu.setFaults({ trickle: 1, trickleMs: 5, endless: 1 });
    try {
      const res = await call('department');
      const chunks = await timedChunks(res, 20_000);
      expect(chunks.every((c) => c.bytes <= 64)).toBe(true);
      expect(chunks.reduce((n, c) => n + c.bytes, 0)).toBeGreaterThan(20_000);
    } finally {
      emu.setFaults({ trickle: 0, endless: 0 });
    }
  });
});
