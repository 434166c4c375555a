export { contractProblems } from './check.ts';
export { describedServices, descriptionOf, type Description } from './descriptions.ts';
export { startDescribedUpstream, type DescribedUpstream } from './described.ts';
export { contractExceptions, type ContractException } from './exceptions.ts';
export { GraphQLDescription } from './graphql.ts';
export { OpenApiDescription, type SampleMode } from './openapi.ts';
export { specsAvailable, specsDir, specsMissing } from './specs.ts';
export { holdToDescriptions, insaneValues, useDescribedUpstream } from './testing.ts';
