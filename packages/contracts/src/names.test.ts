import { describe, expect, it } from 'vitest';
import { integrationNames, webhookSourceNames } from './names.ts';
import { webhookIntegrationSchema } from './notifications.ts';
import { integrationsSchema } from './projects.ts';

describe('the names the pages import without zod', () => {
  it('lists every integration of the schema, in its order', () => {
    expect(integrationNames).toEqual(Object.keys(integrationsSchema.shape));
  });

  it('names the service of every integration that sends webhooks', () => {
    expect(Object.keys(webhookSourceNames).sort()).toEqual([...webhookIntegrationSchema.options].sort());
  });
});
