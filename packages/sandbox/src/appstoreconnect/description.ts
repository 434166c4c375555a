import { descriptionOf } from '../contract/index.ts';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null;

function dropNonStringFormats(node: unknown): void {
  if (Array.isArray(node)) node.forEach(dropNonStringFormats);
  else if (isObject(node)) {
    if ('format' in node && typeof node.format !== 'string' && (typeof node.type === 'string' || Array.isArray(node.type))) delete node.format;
    Object.values(node).forEach(dropNonStringFormats);
  }
}

/**
 * Apple's description has one `"format": null` (AppEvent's `deepLink`), which ajv refuses to compile; every
 * app answer's `included` may hold an AppEvent, so no app answer could be checked. Test files that hold App
 * Store Connect traffic to the description call this first: it drops that keyword from the loaded copy.
 */
export function mendAppStoreDescription(): void {
  const described = descriptionOf('appstoreconnect');
  if (described?.kind !== 'openapi') return;
  // The validators read the normalised document the description object keeps; the sampler reads its source.
  const { document, source } = described.description as unknown as { document: Json; source: Json };
  for (const copy of [document, source]) dropNonStringFormats(copy.components);
}
