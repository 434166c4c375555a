export { listen, type RunningServer } from './listen.ts';
export { startSandbox, type Sandbox, type SandboxOptions, type RunningService } from './sandbox.ts';
export type { Fault, LoggedRequest, SandboxReply, SandboxRequest, SandboxRoute, SandboxService } from './service.ts';
export { sandboxAppStoreKey } from './appstoreconnect/keys.ts';
export { demoOrg, demoProducts, sandboxEmail, sandboxGoogle, sandboxTokens, seededRandom, hexId, DAY_MS, type DemoProduct } from './demo.ts';
export type { SandboxServiceName } from './services.ts';
export { demoSetup, type DemoSetup, type DemoUpstreams } from './setup.ts';
export { demoEvents, type DemoEvent } from './notifications.ts';
export { sendgridError, type FakeSendGrid, type ReceivedMail } from './sendgrid/index.ts';
