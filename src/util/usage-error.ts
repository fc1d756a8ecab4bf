/**
 * A bad argument or input file of a command: reported as one line with exit code 2,
 * before any work. Lives at the ground floor so that the modules a command drives (push,
 * backfill arguments) can raise it without importing the command layer.
 */
import { errorClass } from './errors.js';

export class UsageError extends errorClass('UsageError', 'usage') {}
