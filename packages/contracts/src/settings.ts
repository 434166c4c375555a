import { z } from 'zod';
import { slugSchema } from './projects.ts';

/** Every widget the dashboard can show; a slot holds one of them. */
export const widgetNames = [
  'revenue',
  'shipping',
  'ideas',
  'analytics',
  'seo',
  'storefront',
  'errortracker',
  'health',
  'funding',
] as const;
export const widgetNameSchema = z.enum(widgetNames);
export type WidgetName = z.infer<typeof widgetNameSchema>;

/** The six places on the dashboard grid, in reading order. */
export const slotNames = ['revenue', 'shipping', 'ideas', 'analytics', 'seo', 'detail'] as const;
export const slotNameSchema = z.enum(slotNames);
export type SlotName = z.infer<typeof slotNameSchema>;

export const revenueConfigSchema = z.strictObject({
  /** Adds the funding platform's balance to the revenue widget. */
  showOC: z.boolean(),
});

/** Per-widget configuration, keyed by widget name. Only the revenue widget has options so far. */
export const widgetConfigsSchema = z.strictObject({
  revenue: revenueConfigSchema.optional(),
});
export type WidgetConfigs = z.infer<typeof widgetConfigsSchema>;

/** A currency code, three capital letters (ISO 4217). */
const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'A currency is three capital letters, e.g. CAD');
const rate = z.number().positive('A rate is above zero').finite();

export const settingsSchema = z.object({
  projectOrder: z.array(z.string()),
  /**
   * Units of each currency per 1 USD, for revenue sources that cannot report in the asked currency
   * (Stripe). Kept by the user; the revenue route says in its headers when it converted.
   */
  exchangeRates: z.record(z.string(), z.number()),
  widgetLayout: z.object({
    slots: z.partialRecord(slotNameSchema, widgetNameSchema),
    configs: widgetConfigsSchema,
  }),
  /** The relay's base for events (`<relay>/api` or `<relay>/api/t/<tenant>`); null: WEBHOOK_RELAY_URL, if set. */
  relayUrl: z.string().nullable(),
});
export type Settings = z.infer<typeof settingsSchema>;

export const defaultSettings: Settings = {
  projectOrder: [],
  exchangeRates: { CAD: 1.38 },
  widgetLayout: {
    slots: {
      revenue: 'revenue',
      shipping: 'shipping',
      ideas: 'ideas',
      analytics: 'analytics',
      seo: 'seo',
      detail: 'errortracker',
    },
    configs: { revenue: { showOC: false } },
  },
  relayUrl: null,
};

/**
 * `POST /api/settings`. Only the fields present change. Inside `widgetLayout`, `slots` and `configs`
 * merge key by key: a slot or config set to `null` is cleared, an absent one is left as it is.
 */
export const settingsUpdateSchema = z
  .strictObject({
    projectOrder: z
      .array(slugSchema)
      .refine((slugs) => new Set(slugs).size === slugs.length, 'projectOrder lists a project twice'),
    /** Merged by currency; `null` removes a rate (a default comes back). USD is always 1. */
    exchangeRates: z.record(currencyCode.refine((code) => code !== 'USD', 'USD is the base: its rate is always 1'), rate.nullable()),
    widgetLayout: z
      .strictObject({
        slots: z.partialRecord(slotNameSchema, widgetNameSchema.nullable()),
        configs: z.strictObject({ revenue: revenueConfigSchema.nullable().optional() }),
      })
      .partial(),
    /** `null` forgets it (WEBHOOK_RELAY_URL applies again). Polling starts or stops without a restart. */
    relayUrl: z
      .url({ protocol: /^https?$/, error: 'relayUrl is an http(s) URL such as https://relay.example.com/api' })
      .max(2000)
      .refine((url) => !/[?#]/.test(url), 'relayUrl is a base address, without a query or a fragment')
      .nullable(),
  })
  .partial();
export type SettingsUpdate = z.infer<typeof settingsUpdateSchema>;

export const okSchema = z.object({ ok: z.literal(true) });
