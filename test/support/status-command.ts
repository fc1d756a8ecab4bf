/**
 * Runs `punchline status` in-process (the real command: its own Redis, queues and pool)
 * and hands back its report and its text, for tests that check what an operator sees.
 */
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { statusCommand } from '../../src/commands/status.js';
import type { CommandContext } from '../../src/commands/context.js';
import type { Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import type { StatusReport } from '../../src/reports/status-report.js';

/** `punchline status --json` and `punchline status` with `config`; both must exit 0. */
export async function statusOf(config: Config): Promise<{ report: StatusReport; text: string }> {
  const run = async (json: boolean): Promise<string> => {
    let out = '';
    const sink = new Writable({
      write(chunk, _enc, cb) {
        out += String(chunk);
        cb();
      },
    });
    const ctx: CommandContext = {
      config,
      logger: createLogger({ level: 'silent' }),
      out: sink,
      signal: new AbortController().signal,
    };
    expect(await statusCommand(ctx, { json })).toBe(0);
    return out;
  };
  return { report: JSON.parse(await run(true)) as StatusReport, text: await run(false) };
}
