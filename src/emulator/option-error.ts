/** An emulator option that cannot be used (a bad scale, fault spec or quirk name): one line, exit code 2. */
export class EmulatorOptionError extends Error {
  override readonly name = 'EmulatorOptionError';
  readonly code = 'emulator_option_invalid';
}
