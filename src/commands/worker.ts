import type { CommandContext } from './context.js';

/** `punchline worker` (owned by the sync work; placeholder until it lands). */
export async function workerCommand(_ctx: CommandContext, _opts: Record<string, unknown>): Promise<number> {
  throw new Error('worker is not built yet');
}
