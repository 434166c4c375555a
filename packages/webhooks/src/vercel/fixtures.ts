/** Shaped after the field table of vercel.com/docs/webhooks/webhooks-api; the values are illustrative. */

/** The research's computed known-answer body (HMAC-SHA1 under "It's a Secret to Everybody"). */
export const knownAnswerBody =
  '{"id":"evt_test","type":"deployment.succeeded","createdAt":1700000000000,"payload":{"deployment":{"id":"dpl_test"}}}';
export const knownAnswerSignature = 'fd98bf073fab4c6c49a0688486282c81420e6eb5';

export function deployment(type: string, options: { target?: string | null; id?: string } = {}): string {
  return JSON.stringify({
    id: `evt_${type.replace('.', '_')}_1`,
    type,
    createdAt: 1716220800000,
    region: 'sfo1',
    payload: {
      team: { id: 'team_a1B2c3D4e5F6' },
      user: { id: 'usr_9x8y7z' },
      deployment: {
        id: options.id ?? 'dpl_2euZBFqxmbZQ5wD9ntZiM3Z1aRgQ',
        name: 'my-app',
        url: 'my-app-abc123.vercel.app',
        meta: { githubCommitRef: 'main', githubCommitSha: 'a1b2c3d4e5f6' },
      },
      links: {
        deployment: 'https://vercel.com/acme/my-app/2euZBFqxmbZQ5wD9ntZiM3Z1aRgQ',
        project: 'https://vercel.com/acme/my-app',
      },
      target: options.target === undefined ? 'production' : options.target,
      project: { id: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB' },
      plan: 'pro',
      regions: ['iad1'],
    },
  });
}

export const projectCreated = JSON.stringify({
  id: 'evt_project_1',
  type: 'project.created',
  createdAt: 1716220800000,
  payload: { project: { id: 'prj_12HKQaOmR5t5Uy6vdcQsNIiZgHGB', name: 'my-app' }, team: { id: 'team_a1B2c3D4e5F6' } },
});
