/**
 * The warehouse: connection, migrations, and the staging and merge machinery every load
 * goes through (table-spec.ts, staging.ts, merge.ts). The tables themselves are in sql/;
 * docs/warehouse.md describes them for analysts.
 */
export { createWarehouse, quoteIdent, type Warehouse, type WarehouseHandle, type WarehouseOptions } from './db.js';
export { migrate, type MigrateOptions, type MigrateResult } from '../migrations/migrate.js';
export { MigrationError, WarehouseError } from './errors.js';
export { applyErasures, forgetPerson, liftErasure, upholdPrivacy, type PrivacyUpkeep } from '../privacy/erasures.js';
export { ensurePseudonyms, pseudonymOf } from '../privacy/pseudonyms.js';
export { PERSONAL_DATA, classifyColumn } from '../privacy/personal-data.js';
export { PrivacyError } from './errors.js';
