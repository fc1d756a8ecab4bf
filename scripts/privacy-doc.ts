/**
 * `npm run docs:privacy`: renders the personal-data table of docs/privacy.md from
 * src/warehouse/personal-data.ts (the block between its markers; the prose is kept).
 */
import { fileURLToPath } from 'node:url';
import { updatePrivacyDoc } from '../src/warehouse/privacy-doc.js';

const path = fileURLToPath(new URL('../docs/privacy.md', import.meta.url));
console.log(updatePrivacyDoc(path) ? `updated ${path}` : `${path} is up to date`);
