/**
 * Raw HTTP against a running emulator for its own tests: a spec GET with a token, and
 * the admin surface (GET without a body, POST with a JSON one).
 */
import type { RunningEmulator } from '../../src/emulator/index.js';

/** `GET /customer/v2/<path>` with `token` (default the headquarters'). */
export function callEmulator(
  emu: RunningEmulator,
  path: string,
  token = emu.headquartersToken,
): Promise<Response> {
  return fetch(`${emu.url}/customer/v2/${path}`, { headers: { apiServiceToken: token } });
}

/** `GET /__emulator/<path>`, or `POST` with `body` as JSON. */
export function callAdmin(emu: RunningEmulator, path: string, body?: unknown): Promise<Response> {
  return fetch(`${emu.url}/__emulator/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
