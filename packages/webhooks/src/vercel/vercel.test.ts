import { describe, expect, it } from 'vitest';
import { bytes, errorOf, eventsOf, headers, itHoldsTheSignatureContract, receivedAt } from '../testing.ts';
import { deployment, knownAnswerBody, knownAnswerSignature, projectCreated } from './fixtures.ts';
import { vercel } from './index.ts';

const SECRET = "It's a Secret to Everybody";
const parse = (body: string) => vercel.parse(bytes(body), headers(), receivedAt);

describe('Vercel verify', () => {
  const verify = (body: string, signature: string) => vercel.verify(bytes(body), headers({ 'x-vercel-signature': signature }), [SECRET]);

  it('verifies the computed HMAC-SHA1 vectors', () => {
    expect(verify(knownAnswerBody, knownAnswerSignature)).toBe(true);
    expect(verify('Hello, World!', '01dc10d0c83e72ed246219cdd91669667fe2ca59')).toBe(true);
  });

  it('refuses near misses of the vector', () => {
    expect(verify(`${knownAnswerBody} `, knownAnswerSignature)).toBe(false);
    expect(verify(knownAnswerBody, knownAnswerSignature.slice(0, 39))).toBe(false);
    expect(verify(knownAnswerBody, `sha1=${knownAnswerSignature}`)).toBe(false);
    // GitHub's SHA-256 of the same input is not a Vercel signature.
    expect(verify('Hello, World!', '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17')).toBe(false);
  });

  itHoldsTheSignatureContract({ provider: vercel, header: 'x-vercel-signature', algorithm: 'sha1', body: deployment('deployment.error') });
});

describe('Vercel identify', () => {
  it("takes the body's id, with no timestamp", () => {
    expect(vercel.identify(bytes(knownAnswerBody), headers())).toEqual({ deliveryId: 'evt_test' });
  });

  it('falls back to the body hash on bad JSON or a missing id, never failing', () => {
    for (const body of ['garbage', '{"type":"deployment.created"}', '{"id":""}', '{"id":42}', '[]']) {
      expect(vercel.identify(bytes(body), headers()).deliveryId, body).toMatch(/^[0-9a-f]{64}$/);
    }
  });
});

describe('Vercel parse', () => {
  it('maps a failed deployment', () => {
    expect(parse(deployment('deployment.error'))).toEqual({
      ok: true,
      events: [
        {
          integration: 'deploy_host',
          type: 'deploy.error',
          sourceEventId: 'vercel:dpl_2euZBFqxmbZQ5wD9ntZiM3Z1aRgQ:error',
          title: 'Deploy failed: my-app (production)',
          url: 'https://my-app-abc123.vercel.app',
          project: 'my-app',
          refs: ['deploy_host:prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB'],
          subject: 'vercel:prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB:production',
          transition: 'trigger',
          severity: 'error',
          occurredAt: '2024-05-20T16:00:00.000Z',
          payload: {
            deployment: {
              id: 'dpl_2euZBFqxmbZQ5wD9ntZiM3Z1aRgQ',
              name: 'my-app',
              url: 'my-app-abc123.vercel.app',
              target: 'production',
              meta: { githubCommitRef: 'main' },
            },
            project: { id: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' },
            target: 'production',
          },
        },
      ],
    });
  });

  it('maps created and succeeded deployments, each state its own event', () => {
    const [created] = eventsOf(parse(deployment('deployment.created', { target: null })));
    expect(created).toMatchObject({ type: 'deploy.created', title: 'Deploy started: my-app (preview)', severity: 'info', sourceEventId: 'vercel:dpl_2euZBFqxmbZQ5wD9ntZiM3Z1aRgQ:created' });
    const [succeeded] = eventsOf(parse(deployment('deployment.succeeded')));
    expect(succeeded).toMatchObject({ type: 'deploy.succeeded', title: 'Deployed: my-app (production)', severity: 'success', sourceEventId: 'vercel:dpl_2euZBFqxmbZQ5wD9ntZiM3Z1aRgQ:succeeded' });
    // A success ends the story a failure of the same project and target began; a start is news of its own.
    expect(succeeded).toMatchObject({ subject: 'vercel:prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB:production', transition: 'resolve' });
    expect(created).not.toHaveProperty('transition');
  });

  it("carries Vercel's fields for rules, the target as the title reads it", () => {
    const [production] = eventsOf(parse(deployment('deployment.succeeded')));
    expect(production?.payload).toMatchObject({ deployment: { target: 'production', meta: { githubCommitRef: 'main' } }, project: { id: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' } });
    // Vercel's null target is a preview deploy.
    const [preview] = eventsOf(parse(deployment('deployment.created', { target: null })));
    expect(preview?.payload).toMatchObject({ deployment: { target: 'preview' }, target: 'preview' });
    const [staging] = eventsOf(parse(deployment('deployment.error', { target: 'staging' })));
    expect(staging?.payload).toMatchObject({ deployment: { target: 'staging' } });
  });

  it('never refuses a deployment for a field only the payload reads, and copies none of the rest', () => {
    const body = JSON.stringify({ id: 'e', type: 'deployment.created', payload: { deployment: { id: 'dpl_1', meta: 'not an object' }, target: null, plan: 'pro' } });
    const [event] = eventsOf(parse(body));
    expect(event?.payload).toEqual({ deployment: { id: 'dpl_1', target: 'preview' }, target: 'preview' });
  });

  it('reads the minimal known-answer body, with no project to name', () => {
    expect(eventsOf(parse(knownAnswerBody))).toEqual([
      {
        integration: 'deploy_host',
        type: 'deploy.succeeded',
        sourceEventId: 'vercel:dpl_test:succeeded',
        title: 'Deployed: dpl_test (preview)',
        severity: 'success',
        occurredAt: '2023-11-14T22:13:20.000Z',
        subject: 'vercel:dpl_test:preview',
        transition: 'resolve',
        payload: { deployment: { id: 'dpl_test', target: 'preview' }, target: 'preview' },
      },
    ]);
  });

  it('ignores the other event types', () => {
    expect(parse(projectCreated)).toEqual({ ok: true, events: [] });
    for (const type of ['deployment.canceled', 'deployment.promoted', 'deployment.ready', 'domain.created']) expect(eventsOf(parse(deployment(type)))).toEqual([]);
  });

  it('refuses malformed JSON and the wrong shape for a deployment', () => {
    expect(errorOf(parse('{"type":"deployment.error",'))).toMatch(/JSON/);
    expect(parse('{"id":"evt_1"}').ok).toBe(false);
    expect(errorOf(parse('{"id":"evt_1","type":"deployment.error","payload":{}}'))).toMatch(/payload\.deployment/);
  });

  it('falls back to the time received when createdAt is absent or not a date', () => {
    const body = (createdAt: unknown) => JSON.stringify({ id: 'e', type: 'deployment.created', createdAt, payload: { deployment: { id: 'dpl_1' } } });
    expect(eventsOf(parse(body(undefined)))[0]?.occurredAt).toBe(receivedAt.toISOString());
    expect(eventsOf(parse(body(1e20)))[0]?.occurredAt).toBe(receivedAt.toISOString());
  });
});
