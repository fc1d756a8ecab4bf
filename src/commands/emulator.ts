import type { CommandContext } from './context.js';

/** `punchline emulator` (owned by the emulator work; placeholder until it lands). */
export async function emulatorCommand(_ctx: CommandContext, _opts: Record<string, unknown>): Promise<number> {
  throw new Error('emulator is not built yet');
}
