import { DAY_MS, demoProducts, seededRandom } from '../demo.ts';

/** Open Collective's `Amount`: a float in major units, the integer cents, and the currency. */
export interface Amount {
  value: number;
  valueInCents: number;
  currency: string;
}

export interface OcAccountRef {
  __typename: 'Individual' | 'Organization' | 'Collective';
  id: string;
  slug: string;
  name: string;
  type: 'INDIVIDUAL' | 'ORGANIZATION' | 'COLLECTIVE';
  imageUrl: string;
  website: string | null;
}

export interface OcTier {
  __typename: 'Tier';
  id: string;
  legacyId: number;
  name: string;
  slug: string;
  amount: Amount;
  frequency: 'MONTHLY';
}

export interface OcMember {
  __typename: 'Member';
  id: string;
  role: 'BACKER' | 'ADMIN' | 'FOLLOWER';
  since: string;
  createdAt: string;
  tier: OcTier | null;
  totalDonations: Amount;
  account: OcAccountRef;
}

export interface OcTransaction {
  __typename: 'Credit' | 'Debit';
  id: string;
  legacyId: number;
  type: 'CREDIT' | 'DEBIT';
  kind: 'CONTRIBUTION' | 'HOST_FEE' | 'EXPENSE';
  createdAt: string;
  description: string;
  amount: Amount;
  netAmount: Amount;
  fromAccount: OcAccountRef;
  toAccount: OcAccountRef;
}

/** A change of the balance (cents, signed) at a moment (ms). */
export interface OcFlow {
  at: number;
  cents: number;
}

export interface OcCollective {
  account: OcAccountRef & { currency: string; description: string };
  stats: { balance: Amount; totalAmountReceived: Amount; yearlyBudget: Amount; contributorsCount: number };
  members: OcMember[];
  transactions: OcTransaction[];
  /**
   * Every change of the balance over the collective's life, oldest first, summing to today's balance: the ledger's
   * transactions, and before the ledger the contributions, their host fees and the expenses paid from them.
   */
  flows: OcFlow[];
}

const CURRENCY = 'USD';
/** The fiscal host's cut of every contribution (Open Source Collective takes 10%). */
const HOST_FEE_RATE = 0.1;
const MONTH_MS = 30 * DAY_MS;
/** How far back the fake keeps individual transactions: enough for any "latest" page. */
const LEDGER_DAYS = 120;

export const amount = (cents: number, currency = CURRENCY): Amount => ({ value: cents / 100, valueInCents: cents, currency });

/** A v2 public id, as Open Collective hands them out: four groups of eight base-36 characters. */
function publicId(random: () => number): string {
  const chars = '0123456789abcdefghijklmnopqrstuvwxyz';
  const group = () => Array.from({ length: 8 }, () => chars[Math.floor(random() * chars.length)]).join('');
  return [group(), group(), group(), group()].join('-');
}

const hex = (random: () => number, length: number) => Array.from({ length }, () => Math.floor(random() * 16).toString(16)).join('');

const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

const FIRST = ['Ana', 'Ben', 'Chloé', 'Dmitri', 'Esi', 'Farid', 'Greta', 'Hiro', 'Ines', 'Jonas', 'Kemi', 'Lars', 'Mei', 'Nadia', 'Omar', 'Priya', 'Quinn', 'Rosa', 'Sven', 'Tariq', 'Uma', 'Viktor', 'Wen', 'Yara', 'Zoe'];
const LAST = ['Okafor', 'Lindqvist', 'Moreau', 'Tanaka', 'Haddad', 'Novak', 'Ferreira', 'Kowalski', 'Mensah', 'Costa', 'Berg', 'Ivanova', 'Nakamura', 'Silva', 'Walsh'];
const SPONSORS = ['Harbour Labs', 'Saltmarsh Analytics', 'Coastline Maps', 'Bluefin Data', 'Moorings Inc', 'Driftwood Studio', 'Estuary Systems', 'Kelp & Co'];
const EXPENSES = [
  'Tide-gauge mirror hosting',
  'Harmonic constants dataset refresh',
  'Contributor stipend: new station coverage',
  'Domain and TLS renewal',
  'CI minutes for tide-model tests',
  'Stickers for the FOSDEM stand',
];

/**
 * Tideline's open tide-data collective on Open Collective: 60 to 120 backers on three tiers (and a
 * few custom contributions), their monthly contributions with the host's fee, and the odd expense,
 * all relative to `now` and the same on every start.
 */
export function buildCollective(now: number): OcCollective {
  const funding = demoProducts.flatMap((product) => (product.funding ? [product.funding] : []))[0] ?? { slug: 'tideline-oss', name: 'Tideline Open Tide Data' };
  const random = seededRandom(`opencollective:${funding.slug}`);
  const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();

  const account: OcCollective['account'] = {
    __typename: 'Collective',
    id: publicId(random),
    slug: funding.slug,
    name: funding.name,
    type: 'COLLECTIVE',
    imageUrl: `https://images.opencollective.com/${funding.slug}/${hex(random, 7)}/logo.png`,
    website: 'https://tideline.app/open-data',
    currency: CURRENCY,
    description: 'Open harmonic tide predictions for every public tide gauge.',
  };
  let legacyId = 40_210;
  const tier = (name: string, cents: number): OcTier => ({
    __typename: 'Tier',
    id: publicId(random),
    legacyId: legacyId++,
    name,
    slug: `${slugOf(name)}s`,
    amount: amount(cents),
    frequency: 'MONTHLY',
  });
  const tiers = { gold: tier('Gold sponsor', 50_000), sponsor: tier('Sponsor', 10_000), backer: tier('Backer', 500) };

  const person = (name: string, type: 'INDIVIDUAL' | 'ORGANIZATION'): OcAccountRef => {
    const slug = `${slugOf(name)}${type === 'INDIVIDUAL' ? `-${Math.floor(random() * 900 + 100)}` : ''}`;
    return {
      __typename: type === 'INDIVIDUAL' ? 'Individual' : 'Organization',
      id: publicId(random),
      slug,
      name,
      type,
      imageUrl: `https://images.opencollective.com/${slug}/${hex(random, 7)}/${type === 'INDIVIDUAL' ? 'avatar' : 'logo'}.png`,
      website: type === 'ORGANIZATION' ? `https://${slugOf(name).replace(/-/g, '')}.com` : null,
    };
  };

  const backerCount = 60 + Math.floor(random() * 61);
  const members: OcMember[] = [];
  const transactions: OcTransaction[] = [];
  const flows: OcFlow[] = [];
  /** A contribution and the host's fee on it, as they move the balance. */
  const contributed = (at: number, cents: number) => flows.push({ at, cents }, { at: at + 1000, cents: -Math.round(cents * HOST_FEE_RATE) });
  let transactionId = 9_481_000;
  const ledgerFrom = now - LEDGER_DAYS * DAY_MS;
  let totalReceived = 0;
  let yearlyBudget = 0;

  const record = (at: number, type: OcTransaction['type'], kind: OcTransaction['kind'], cents: number, description: string, other: OcAccountRef) => {
    const signed = type === 'CREDIT' ? cents : -cents;
    transactions.push({
      __typename: type === 'CREDIT' ? 'Credit' : 'Debit',
      id: publicId(random),
      legacyId: transactionId++,
      type,
      kind,
      createdAt: iso(at),
      description,
      amount: amount(signed),
      netAmount: amount(signed),
      fromAccount: type === 'CREDIT' ? other : account,
      toAccount: type === 'CREDIT' ? account : other,
    });
  };
  const host = person('Open Source Collective', 'ORGANIZATION');

  for (let i = 0; i < backerCount; i++) {
    const sponsor = i < 8;
    const chosen = i < 2 ? tiers.gold : sponsor ? tiers.sponsor : random() < 0.1 ? null : tiers.backer;
    const name = sponsor && i < SPONSORS.length ? (SPONSORS[i] ?? 'Sponsor') : `${FIRST[Math.floor(random() * FIRST.length)] ?? 'Ana'} ${LAST[Math.floor(random() * LAST.length)] ?? 'Berg'}`;
    const who = person(name, sponsor ? 'ORGANIZATION' : 'INDIVIDUAL');
    const joined = now - Math.floor((15 + random() * 700) * DAY_MS);
    let donated = 0;
    if (chosen) {
      const cents = chosen.amount.valueInCents;
      yearlyBudget += cents * 12;
      for (let at = joined; at <= now; at += MONTH_MS) {
        donated += cents;
        contributed(at, cents);
        if (at < ledgerFrom) continue;
        record(at, 'CREDIT', 'CONTRIBUTION', cents, `Monthly financial contribution to ${account.name} (${chosen.name})`, who);
        record(at + 1000, 'DEBIT', 'HOST_FEE', Math.round(cents * HOST_FEE_RATE), 'Host Fee', host);
      }
    } else {
      // A one-time contribution of a custom amount: a backer without a tier.
      donated = (10 + Math.floor(random() * 9) * 5) * 100;
      contributed(joined, donated);
      if (joined >= ledgerFrom) {
        record(joined, 'CREDIT', 'CONTRIBUTION', donated, `Financial contribution to ${account.name}`, who);
        record(joined + 1000, 'DEBIT', 'HOST_FEE', Math.round(donated * HOST_FEE_RATE), 'Host Fee', host);
      }
    }
    totalReceived += donated;
    members.push({
      __typename: 'Member',
      id: publicId(random),
      role: 'BACKER',
      since: iso(joined),
      createdAt: iso(joined),
      tier: chosen,
      totalDonations: amount(donated),
      account: who,
    });
  }
  // The maintainer and a few followers are members too, in other roles.
  const admin = person('Maya Lindqvist', 'INDIVIDUAL');
  members.push({ __typename: 'Member', id: publicId(random), role: 'ADMIN', since: iso(now - 720 * DAY_MS), createdAt: iso(now - 720 * DAY_MS), tier: null, totalDonations: amount(0), account: admin });
  for (let i = 0; i < 4; i++) {
    const at = now - Math.floor(random() * 300 * DAY_MS);
    members.push({ __typename: 'Member', id: publicId(random), role: 'FOLLOWER', since: iso(at), createdAt: iso(at), tier: null, totalDonations: amount(0), account: person(`${FIRST[(i * 7) % FIRST.length] ?? 'Ana'} ${LAST[(i * 4) % LAST.length] ?? 'Berg'}`, 'INDIVIDUAL') });
  }
  members.sort((a, b) => a.createdAt.localeCompare(b.createdAt));

  // An expense paid out about every two weeks.
  for (let at = ledgerFrom + 5 * DAY_MS, n = 0; at < now; at += Math.floor((10 + random() * 8) * DAY_MS), n++) {
    const cents = (20 + Math.floor(random() * 230)) * 100;
    flows.push({ at, cents: -cents });
    record(at, 'DEBIT', 'EXPENSE', cents, EXPENSES[n % EXPENSES.length] ?? 'Expense', n % 3 === 2 ? person(`${FIRST[n % FIRST.length] ?? 'Ana'} ${LAST[n % LAST.length] ?? 'Berg'}`, 'INDIVIDUAL') : host);
  }
  transactions.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.legacyId - a.legacyId);

  const net = Math.round(totalReceived * (1 - HOST_FEE_RATE));
  // What has been spent over the collective's life, so the balance is what is left of the rest.
  const spent = Math.round(net * 0.63);
  const balance = net - spent;
  flows.push(...expensesBefore(flows, ledgerFrom, flows.reduce((sum, flow) => sum + flow.cents, 0) - balance));
  flows.sort((a, b) => a.at - b.at);
  return {
    account,
    stats: { balance: amount(balance), totalAmountReceived: amount(totalReceived), yearlyBudget: amount(yearlyBudget), contributorsCount: backerCount },
    members,
    transactions,
    flows,
  };
}

/**
 * The expenses paid before the ledger's first day, `total` cents in all: one at the end of each fortnight, in proportion
 * to what came in during it, so the balance before the ledger never dips below what it started from.
 */
function expensesBefore(flows: readonly OcFlow[], ledgerFrom: number, total: number): OcFlow[] {
  const before = flows.filter((flow) => flow.at < ledgerFrom && flow.cents > 0);
  const income = before.reduce((sum, flow) => sum + flow.cents, 0);
  const first = Math.min(...before.map((flow) => flow.at));
  if (total <= 0 || income <= 0) return [];
  const expenses: OcFlow[] = [];
  const fortnight = 14 * DAY_MS;
  let paid = 0;
  for (let start = first; start < ledgerFrom; start += fortnight) {
    const end = Math.min(start + fortnight, ledgerFrom);
    const received = before.filter((flow) => flow.at >= start && flow.at < end).reduce((sum, flow) => sum + flow.cents, 0);
    // The last fortnight takes what rounding left, so the expenses come to `total` exactly.
    const cents = end === ledgerFrom ? total - paid : Math.round((total * received) / income);
    paid += cents;
    if (cents !== 0) expenses.push({ at: end - DAY_MS, cents: -cents });
  }
  return expenses;
}
