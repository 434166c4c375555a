import type { Funding } from '@dash/contracts';
import { roundMoney } from '../dates.ts';
import type { OcAccount, OcMember, OcTransaction } from './schemas.ts';

type Amount = { valueInCents: number | null; currency?: string | null | undefined };

/** Open Collective's cents in major units (500 is 5); null when it did not say (its amounts are nullable), never a made-up 0. */
export const majorUnits = (value: Amount | null | undefined): number | null =>
  value === null || value === undefined || value.valueInCents === null ? null : roundMoney(value.valueInCents / 100);

/**
 * A transaction as Open Collective gives it: CREDIT or DEBIT, the amount signed (debits negative). One
 * without a date or an amount says nothing worth a line, and is left out.
 */
export function toTransaction(transaction: OcTransaction, fallbackCurrency: string): Funding['transactions'][number] | undefined {
  const amount = majorUnits(transaction.amount);
  if (transaction.createdAt === null || amount === null) return undefined;
  return {
    id: transaction.id,
    type: transaction.type,
    amount,
    currency: transaction.amount.currency ?? fallbackCurrency,
    description: transaction.description ?? '',
    createdAt: new Date(transaction.createdAt).toISOString(),
  };
}

/**
 * A member with its tier's name; a backer who gave a custom amount has no tier and gets '' (the
 * widget then shows the role). An account Open Collective hides (incognito) has no name or image.
 */
export function toMember(member: OcMember): Funding['members'][number] {
  return {
    name: member.account?.name ?? 'Incognito',
    role: member.role,
    tier: member.tier?.name ?? '',
    totalDonated: majorUnits(member.totalDonations),
    imageUrl: member.account?.imageUrl ?? '',
  };
}

/** Biggest givers first; a member whose total is unknown comes last. */
export const byTotalDonated = (a: Funding['members'][number], b: Funding['members'][number]): number =>
  (b.totalDonated ?? -Infinity) - (a.totalDonated ?? -Infinity) || 0;

/**
 * The collective's funding: stats in the collective's currency (unknown, null, where Open Collective
 * gives none), the latest transactions newest first, and the page of backers read, biggest givers
 * first. `backerCount` is Open Collective's total of BACKER members, not the length of the page.
 */
export function toFunding(account: OcAccount): Funding {
  const currency = account.currency ?? account.stats?.balance?.currency ?? 'USD';
  return {
    stats: {
      balance: majorUnits(account.stats?.balance),
      totalRaised: majorUnits(account.stats?.totalAmountReceived),
      yearlyBudget: majorUnits(account.stats?.yearlyBudget),
      backerCount: account.members.totalCount,
    },
    transactions: (account.transactions.nodes ?? [])
      .flatMap((t) => {
        const mapped = t === null ? undefined : toTransaction(t, currency);
        return mapped ? [mapped] : [];
      })
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt)),
    members: (account.members.nodes ?? []).flatMap((m) => (m === null ? [] : [toMember(m)])).sort(byTotalDonated),
    currency,
  };
}
