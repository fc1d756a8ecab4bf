/**
 * `npm run docs:privacy`: renders the personal-data table of docs/privacy.md and
 * docs/warehouse.md from src/privacy/personal-data.ts (the block between the markers
 * of each page; the prose is kept).
 */
import { fileURLToPath } from 'node:url';
import { PRIVACY_DOC_PAGES, updatePrivacyDoc } from '../src/privacy/privacy-doc.js';

for (const page of PRIVACY_DOC_PAGES) {
  const path = fileURLToPath(new URL(`../${page}`, import.meta.url));
  console.log(updatePrivacyDoc(path) ? `updated ${path}` : `${path} is up to date`);
}
