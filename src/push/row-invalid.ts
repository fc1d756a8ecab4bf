/** A row that breaks a rule checked before sending: the reason is its outcome. */
export class RowInvalid extends Error {
  override readonly name = 'RowInvalid';
}
