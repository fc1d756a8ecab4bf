/**
 * The economic group (spec 1.4): a headquarters, its active branches and one inactive branch,
 * with CNPJs sharing the group's root (branches are orders 0002, 0003, … as in the real registry).
 */
import { createHash } from 'node:crypto';
import type { Company } from '../api/schemas.js';
import { makeCnpj } from '../util/national-registry.js';
import type { CompanyEntity } from './entities.js';
import { generateLookups, type LookupIdCounters } from './lookup-generator.js';
import { BUSINESS_LINES, CITIES, GROUP_BRANDS, NEIGHBORHOODS, OTHER_ZONE_CITIES, STREETS } from './names.js';
import { hashString, type Rng } from './random.js';
import type { Quirks } from './quirks.js';

/** A generated company before its roster is attached. */
type CompanySkeleton = Omit<CompanyEntity, 'collaborators'>;

/** ASCII slug for e-mail domains and addresses. */
export function slug(text: string, sep = ''): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, sep)
    .replace(new RegExp(`^${sep}|${sep}$`, 'g'), '');
}

/** The first branch: with quirk `otherTimeZone` it sits in a city outside Brasília time. */
const OTHER_ZONE_COMPANY_INDEX = 1;

/**
 * Generates `activeCount` active companies (headquarters first) plus one inactive branch.
 * `quirks.otherTimeZone` moves the first branch to a city of another time zone, chosen
 * by the seed without drawing from `rng`, so every other value stays the same.
 */
export function generateCompanies(
  rng: Rng,
  seed: string,
  activeCount: number,
  counters: LookupIdCounters,
  quirks: Quirks,
): CompanySkeleton[] {
  const brand = rng.pick(GROUP_BRANDS);
  const line = rng.pick(BUSINESS_LINES);
  let root = rng.digits(8);
  if (/^(\d)\1+$/.test(root)) root = `1${root.slice(1)}`;
  const domain = `${slug(brand)}${slug(line)}.com.br`;
  const cityStart = rng.int(CITIES.length);
  const out: CompanySkeleton[] = [];
  for (let index = 0; index <= activeCount; index++) {
    const isHeadquarter = index === 0;
    const active = index < activeCount;
    const city =
      quirks.otherTimeZone && index === OTHER_ZONE_COMPANY_INDEX
        ? OTHER_ZONE_CITIES[hashString(`${seed}|zone`) % OTHER_ZONE_CITIES.length]!
        : CITIES[(cityStart + index) % CITIES.length]!;
    const cnpj = makeCnpj(`${root}${String(index + 1).padStart(4, '0')}`);
    const legal = `${brand} ${line} S.A.`;
    const name = isHeadquarter ? legal : `${legal} - Filial ${city.name}`;
    const tradingName = isHeadquarter ? `${brand} ${line}` : `${brand} ${city.name}`;
    const record: Company = {
      name,
      trading_name: tradingName,
      national_registry: cnpj,
      cei: index === 2 ? rng.digits(12) : null,
      caepf: null,
      cno: index === 1 ? rng.digits(12) : null,
      address: rng.pick(STREETS),
      address_number: String(rng.range(10, 2999)),
      complement: rng.pick(['', 'Sala 101', 'Galpão 3', 'Bloco B', '2º andar']),
      neighborhood: rng.pick(NEIGHBORHOODS),
      zip_code: `${city.zipPrefix}${rng.digits(6)}`.slice(0, 8),
      phone: `${city.phoneArea}3${rng.digits(7)}`,
      email: isHeadquarter ? `rh@${domain}` : `rh.${slug(city.name)}@${domain}`,
    };
    out.push({
      index,
      cnpj,
      // A fake token derived from the seed, so it is stable across restarts.
      token: createHash('sha256').update(`${seed}|token|${cnpj}`).digest('hex').slice(0, 40),
      isHeadquarter,
      active,
      record,
      block: { name, trading_name: tradingName, national_registry: cnpj },
      city,
      lookups: generateLookups(rng, counters, { index, isHeadquarter, city }),
    });
  }
  return out;
}
