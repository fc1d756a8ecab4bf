import { errorClass } from '../util/errors.js';

/** A row that breaks a rule checked before sending: the reason is its outcome. */
export class RowInvalid extends errorClass('RowInvalid', 'invalid_row') {}
