import type { CommandContext } from './context.js';

/** `punchline backfill` (owned by the sync work; placeholder until it lands). */
export async function backfillCommand(_ctx: CommandContext, _opts: Record<string, unknown>): Promise<number> {
  throw new Error('backfill is not built yet');
}
