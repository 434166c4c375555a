export { pushServiceOf, WebPushAdapter, type PushDestination, type PushMessage, type PushOutcome } from './adapter.ts';
export { NO_CONTACT, PushContacts } from './contact.ts';
export { browserOf, deviceOf, isP256Point, PushDevices, TEST_PUSH } from './devices.ts';
export { newVapidKeys, pushAddressScope, vapidPairProblem, VapidKeys, vapidSubject, type ContactCandidates, type PushEnvironment, type VapidKeyPair } from './vapid-keys.ts';
export { MAX_PUSH_PAYLOAD, PUSH_RETRY_MS, pushPayloadOf, PushSender, pushTopic, pushTtl } from './sender.ts';
