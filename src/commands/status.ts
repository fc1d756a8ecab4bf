import type { CommandContext } from './context.js';

/** `punchline status` (owned by the ops work; placeholder until it lands). */
export async function statusCommand(_ctx: CommandContext, _opts: Record<string, unknown>): Promise<number> {
  throw new Error('status is not built yet');
}
