import { errorClass } from '../util/errors.js';

/** An emulator option that cannot be used (a bad scale, fault spec or quirk name): one line, exit code 2. */
export class EmulatorOptionError extends errorClass('EmulatorOptionError', 'emulator_option_invalid') {}
