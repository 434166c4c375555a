export { descriptionOf } from './descriptions.ts';
export { startDescribedUpstream, type DescribedUpstream } from './described.ts';
export { GraphQLDescription } from './graphql.ts';
export type { SampleMode } from './openapi.ts';
export { holdToDescriptions, insaneValues, useDescribedUpstream, type DescriptionGuard } from './testing.ts';
