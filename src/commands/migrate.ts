import type { CommandContext } from './context.js';

/** `punchline migrate` (owned by the warehouse work; placeholder until it lands). */
export async function migrateCommand(_ctx: CommandContext): Promise<number> {
  throw new Error('migrate is not built yet');
}
