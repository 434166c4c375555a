import { z } from 'zod';
import { slotNames } from './names.ts';
import { slugSchema, type IntegrationName, type Project } from './projects.ts';

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

export const slotNameSchema = z.enum(slotNames);
export type SlotName = z.infer<typeof slotNameSchema>;

/** The integrations that bring each widget into the row below the slots: any one of them set up does. */
export const widgetIntegrations: Record<WidgetName, readonly IntegrationName[]> = {
  revenue: ['revenue'],
  shipping: ['code_host', 'issue_tracker', 'deploy_host'],
  ideas: ['issue_tracker'],
  analytics: ['analytics'],
  seo: ['seo'],
  storefront: ['storefront'],
  errortracker: ['error_tracker'],
  health: ['uptime_monitor'],
  funding: ['funding'],
};

/**
 * The order of the row below the slots: every widget once, those of `more` first, then the ones it leaves out in
 * `widgetNames` order (the integrations' order), so a layout saved before the row existed has one too.
 */
export function rowOrder(more: readonly WidgetName[]): WidgetName[] {
  return [...new Set([...more, ...widgetNames])];
}

/**
 * A view's row: the widgets no slot holds whose integration one of `projects` has set up (the project on screen,
 * or every project for All projects), in the row's order. A widget with nothing set up stays out, as in a slot it
 * would say so instead.
 */
export function widgetRow(layout: Pick<Settings['widgetLayout'], 'slots' | 'more'>, projects: readonly Pick<Project, 'integrations'>[]): WidgetName[] {
  const slotted = new Set(Object.values(layout.slots));
  const setUp = (widget: WidgetName) => projects.some((project) => widgetIntegrations[widget].some((name) => project.integrations[name] !== undefined));
  return rowOrder(layout.more).filter((widget) => !slotted.has(widget) && setUp(widget));
}

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
    /**
     * The order of the row below the slots, as saved (`rowOrder` completes it); empty until the founder orders it,
     * and absent from layouts and exports made before the row existed.
     */
    more: z.array(widgetNameSchema).default([]),
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
    more: [],
    configs: { revenue: { showOC: false } },
  },
  relayUrl: null,
};

/**
 * `POST /api/settings`. Only the fields present change. Inside `widgetLayout`, `slots` and `configs`
 * merge key by key: a slot or config set to `null` is cleared, an absent one is left as it is; `more`
 * replaces the row's order (`null`: back to the default one).
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
        more: z
          .array(widgetNameSchema)
          .refine((widgets) => new Set(widgets).size === widgets.length, 'more lists a widget twice')
          .nullable(),
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

/** `GET /api/widgets`: what a view shows, the project's (`project`) or All projects'. */
export const widgetViewQuerySchema = z.object({
  /** A query value is a string on the wire; an empty one means "not given". */
  project: z
    .string()
    .trim()
    .max(200)
    .optional()
    .transform((value) => (value === '' ? undefined : value)),
});

/** The six slots as saved, then the row: every other widget of an integration the view has set up, in order. */
export const widgetViewSchema = z.object({
  slots: z.partialRecord(slotNameSchema, widgetNameSchema),
  more: z.array(widgetNameSchema),
});
export type WidgetView = z.infer<typeof widgetViewSchema>;

export const okSchema = z.object({ ok: z.literal(true) });
