import type { CommandContext } from './context.js';

/** `punchline demo` (owned by the ops work; placeholder until it lands). */
export async function demoCommand(_ctx: CommandContext, _opts: Record<string, unknown>): Promise<number> {
  throw new Error('demo is not built yet');
}
