/**
 * One-off faults queued at run time and revoked tokens, over HTTP: an empty answer with
 * proper `meta` for one company, an HTML page with 200, a body cut mid-way, a 429 with a
 * long Retry-After, one element with a broken date-time, a 422 `date_range_exceeded` with
 * a null payload, a refusal, and a token revoked then restored through the admin routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { callAdmin, callEmulator } from './support/emulator-http.js';

let emu: RunningEmulator;
const PERIOD = 'begin_date=2025-02-01&end_date=2025-02-28';

const call = (path: string, token?: string): Promise<Response> => callEmulator(emu, path, token);
const admin = (path: string, body?: unknown): Promise<Response> => callAdmin(emu, path, body);

beforeAll(async () => {
  emu = await startEmulator({ seed: 'queued', scale: 'small', today: '2025-03-15' });
});
afterAll(async () => {
  await emu?.close();
});

describe('a queued empty answer', () => {
  it('empties the next answer of that endpoint for that company only, with meta, then data comes back', async () => {
    const branch = emu.companies[1]!.cnpj;
    const other = emu.companies[2]!.cnpj;
    const res = await admin('faults/next', {
      kind: 'empty',
      endpoint: 'point/getFromPeriod',
      company: branch,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([
      { kind: 'empty', count: 1, endpoint: 'point/getFromPeriod', company: branch },
    ]);

    const hq = (await (await call(`point/getFromPeriod?${PERIOD}`)).json()) as { data: unknown[] };
    expect(hq.data.length).toBeGreaterThan(0);
    const untouched = (await (
      await call(`point/getFromPeriod?${PERIOD}&company_national_registry=${other}`)
    ).json()) as { data: unknown[] };
    expect(untouched.data.length).toBeGreaterThan(0);

    const empty = await call(`point/getFromPeriod?${PERIOD}&company_national_registry=${branch}`);
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual({
      data: [],
      meta: { begin_date: '2025-02-01', end_date: '2025-02-28' },
    });
    const back = (await (
      await call(`point/getFromPeriod?${PERIOD}&company_national_registry=${branch}`)
    ).json()) as { data: unknown[] };
    expect(back.data.length).toBeGreaterThan(0);
    expect(emu.queuedFaults()).toEqual([]);
  });

  it('empties lookups and the group walk too, for as many answers as counted', async () => {
    emu.queueFault({ kind: 'empty', endpoint: 'department', count: 2 });
    for (let i = 0; i < 2; i++) expect(await (await call('department')).json()).toEqual({ data: [] });
    expect(((await (await call('department')).json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    emu.queueFault({ kind: 'empty', endpoint: 'economic-group' });
    expect(await (await call('economic-group')).json()).toEqual({ data: [] });
  });
});

describe('a queued HTML page, cut body and 429', () => {
  it('answers 200 with an HTML page', async () => {
    emu.queueFault({ kind: 'html', endpoint: 'collaborator' });
    const res = await call('collaborator');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toMatch(/^<!DOCTYPE html>/);
    expect((await call('collaborator')).headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('closes the connection mid-body after a 200', async () => {
    emu.queueFault({ kind: 'cut', endpoint: 'point/getFromPeriod' });
    const res = await call(`point/getFromPeriod?${PERIOD}`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    expect((await call(`point/getFromPeriod?${PERIOD}`)).status).toBe(200);
  });

  it('answers 429 with the Retry-After asked for', async () => {
    emu.queueFault({ kind: 'rate-limit', retryAfterSeconds: 3600, company: emu.companies[0]!.cnpj });
    const res = await call('unit');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3600');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('too_many_requests');
    expect((await call('unit')).status).toBe(200);
  });

  it('refuses a malformed fault with 400 naming the problem, and clears the queue on demand', async () => {
    const bad = await admin('faults/next', { kind: 'explode' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /kind must be one of empty, html, cut, rate-limit, corrupt, range-exceeded, refuse/,
    );
    await admin('faults/next', { kind: 'html', count: 5 });
    expect(((await (await admin('faults/next')).json()) as unknown[]).length).toBe(1);
    expect(await (await admin('faults/next/clear', {})).json()).toEqual([]);
    expect((await call('unit')).headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('a queued corrupt element, date_range_exceeded with a null payload, and a refusal', () => {
  type Point = { point_id: number; datetime: string };
  type Item = { national_registry: string; days: { date: string; points: Point[] }[] };
  const broken = (items: Item[]) =>
    items.flatMap((it, i) =>
      it.days.flatMap((d) =>
        d.points.filter((p) => p.datetime === '2025-13-45 25:00:00').map((p) => ({ i, id: p.point_id })),
      ),
    );

  it('breaks one punch date-time of one element in the middle of the answer, the rest unchanged', async () => {
    const url = `point/getFromPeriod?${PERIOD}`;
    const clean = ((await (await call(url)).json()) as { data: Item[] }).data;
    emu.queueFault({ kind: 'corrupt', endpoint: 'point/getFromPeriod' });
    const spoiled = ((await (await call(url)).json()) as { data: Item[] }).data;
    expect(broken(spoiled)).toHaveLength(1);
    const [{ i, id }] = broken(spoiled) as [{ i: number; id: number }];
    expect(i).toBe(1);
    // Only that field differs.
    const fixed = structuredClone(spoiled);
    for (const d of fixed[i]!.days)
      for (const p of d.points)
        if (p.point_id === id)
          p.datetime = clean[i]!.days.flatMap((x) => x.points).find((x) => x.point_id === id)!.datetime;
    expect(fixed).toEqual(clean);
    expect(broken(((await (await call(url)).json()) as { data: Item[] }).data)).toEqual([]);
  });

  it('answers 422 date_range_exceeded with payload_data_required null, on period endpoints only', async () => {
    emu.queueFault({ kind: 'range-exceeded' });
    expect((await call('unit')).status).toBe(200);
    const res = await call(`point/getFromPeriod?${PERIOD}`);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      error: { code: 'date_range_exceeded', message: 'The period may not exceed 31 days.' },
      payload_data_required: null,
    });
    expect((await call(`point/getFromPeriod?${PERIOD}`)).status).toBe(200);
  });

  it('refuses one request with 422 validation_failed', async () => {
    emu.queueFault({ kind: 'refuse', endpoint: 'overtime' });
    const res = await call('overtime?date=2025-02-03');
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    expect((await call('overtime?date=2025-02-03')).status).toBe(200);
  });
});

describe('a revoked token', () => {
  it('answers 401 invalid_service_token until restored, other companies unaffected', async () => {
    const hq = emu.companies[0]!;
    const branch = emu.companies[1]!;
    expect((await admin('tokens/revoke', { cnpj: hq.cnpj })).status).toBe(200);
    const refused = await call('unit', hq.token);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('invalid_service_token');
    expect((await call('unit', branch.token)).status).toBe(200);
    expect((await admin('tokens/restore', { cnpj: hq.cnpj })).status).toBe(200);
    expect((await call('unit', hq.token)).status).toBe(200);
    emu.revokeToken(branch.cnpj);
    expect((await call('unit', branch.token)).status).toBe(401);
    emu.restoreToken(branch.cnpj);
    expect((await call('unit', branch.token)).status).toBe(200);
    expect((await admin('tokens/revoke', { cnpj: '00000000000000' })).status).toBe(404);
  });
});
