/**
 * `punchline emulator` end to end in-process: it starts, prints the URL and the
 * tokens, serves, and stops when its signal aborts.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../src/commands/context.js';
import { emulatorCommand } from '../src/commands/emulator.js';
import { createLogger } from '../src/logger.js';
import type { Config } from '../src/config.js';

describe('punchline emulator', () => {
  it('prints its URL and tokens, serves the API, and stops on the signal', async () => {
    const out = new PassThrough();
    let printed = '';
    out.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const controller = new AbortController();
    const ctx: CommandContext = {
      config: {} as Config,
      logger: createLogger({ level: 'silent' }),
      out,
      signal: controller.signal,
    };
    const done = emulatorCommand(ctx, { port: '0', scale: 'small', seed: 'cli', today: '2025-03-15' });
    while (!printed.includes('admin:')) await new Promise((r) => setTimeout(r, 20));
    const url = /listening on (http:\/\/\S+)/.exec(printed)![1]!;
    const token = /HQ\s+\d{14}\s+token (\w+)/.exec(printed)![1]!;
    const res = await fetch(`${url}/customer/v2/company`, { headers: { apiServiceToken: token } });
    expect(res.status).toBe(200);
    expect(printed).toMatch(/history 2023-03-15 \.\. 2025-03-15 \(clock pinned\)/);
    expect(printed.match(/branch \d{14}/g)).toHaveLength(2);
    controller.abort();
    expect(await done).toBe(0);
    await expect(
      fetch(`${url}/customer/v2/company`, { headers: { apiServiceToken: token } }),
    ).rejects.toThrow();
  });

  it('refuses bad options before starting', async () => {
    const ctx = {
      config: {} as Config,
      logger: createLogger({ level: 'silent' }),
      out: new PassThrough(),
      signal: new AbortController().signal,
    };
    await expect(emulatorCommand(ctx, { scale: 'enormous' })).rejects.toThrow(
      /--scale must be small, demo, large or a number/,
    );
  });
});
