/**
 * The warehouse: connection, migrations, and the staging and merge machinery every load
 * goes through (table-spec.ts, staging.ts, merge.ts). The tables themselves are in sql/;
 * docs/warehouse.md describes them for analysts.
 */
export { createWarehouse, quoteIdent, type Warehouse, type WarehouseHandle, type WarehouseOptions } from './db.js';
export { migrate, type MigrateOptions, type MigrateResult } from './migrate.js';
export { MigrationError, WarehouseError } from './errors.js';
export { applyErasures, forgetPerson, liftErasure, upholdPrivacy, type PrivacyUpkeep } from './erasures.js';
export { ensurePseudonyms, pseudonymOf } from './pseudonyms.js';
export { PERSONAL_DATA, classifyColumn } from './personal-data.js';
export { PrivacyError } from './errors.js';
