import { describe, expect, it } from 'vitest';
import type { Project } from '@dash/contracts';
import type { RelayEvent } from '@dash/webhooks';
import { projectOf, projectRefs, staleRoutes, toIncoming } from './resolve.ts';

const project = (slug: string, integrations: Project['integrations']): Project => ({
  slug,
  name: slug,
  color: null,
  integrations,
  createdAt: '2026-11-01T00:00:00.000Z',
  updatedAt: '2026-11-01T00:00:00.000Z',
});

const projects = [
  project('ledger', {
    code_host: { repos: ['Acme/Ledger', 'acme/ledger-site'] },
    deploy_host: { projectId: 'prj_ledger' },
    error_tracker: { org: 'acme', project: 'ledger-web' },
    issue_tracker: { teamIds: ['team-uuid-1'] },
    uptime_monitor: { monitorIds: ['101', '102'] },
  }),
  project('formfox', { code_host: { repos: ['acme/formfox'] }, uptime_monitor: { monitorIds: ['201'] } }),
];

const event = (fields: Partial<RelayEvent>): RelayEvent => ({
  id: 'relay-1',
  integration: 'code_host',
  type: 'pr.merged',
  sourceEventId: 'github:acme/ledger:pr:1:merged',
  title: 'PR #1 merged',
  severity: 'success',
  occurredAt: '2026-11-23T10:00:00.000Z',
  receivedAt: '2026-11-23T10:00:01.000Z',
  ...fields,
});

describe('finding the project of an event', () => {
  const refs = projectRefs(projects);

  it('matches each integration by what the project lists: repo (any case), Vercel project, Sentry project, Linear team, monitor', () => {
    const cases: [Partial<RelayEvent>, string | null][] = [
      [{ refs: ['code_host:acme/ledger'] }, 'ledger'],
      [{ refs: ['code_host:ACME/FormFox'] }, 'formfox'],
      [{ integration: 'deploy_host', refs: ['deploy_host:prj_ledger'] }, 'ledger'],
      [{ integration: 'error_tracker', refs: ['error_tracker:ledger-web'] }, 'ledger'],
      [{ integration: 'issue_tracker', refs: ['issue_tracker:ENG', 'issue_tracker:team-uuid-1'] }, 'ledger'],
      [{ integration: 'uptime_monitor', refs: ['uptime_monitor:201'] }, 'formfox'],
      [{ refs: ['code_host:someone/else'] }, null],
      [{}, null],
    ];
    for (const [fields, slug] of cases) expect([fields.refs, toIncoming(event(fields), refs).projectSlug]).toEqual([fields.refs, slug]);
  });

  it('keeps the refs with what it stores, so a project made later can claim it (the first project that lists a ref keeps it)', () => {
    expect(toIncoming(event({ refs: ['code_host:someone/else'] }), refs)).toMatchObject({ projectSlug: null, refs: ['code_host:someone/else'] });
    expect(toIncoming(event({}), refs)).toMatchObject({ projectSlug: null, refs: [] });
    const later = projectRefs([...projects, project('else', { code_host: { repos: ['Someone/Else', 'acme/formfox'] } })]);
    expect(projectOf(['code_host:someone/else'], later)).toBe('else');
    expect(projectOf(['code_host:acme/formfox'], later)).toBe('formfox');
    expect(projectOf(['uptime_monitor:999'], later)).toBeNull();
  });

  it('keeps the subject and transition together, and drops a transition without a subject', () => {
    expect(toIncoming(event({ subject: 'betterstack:monitor:101', transition: 'trigger' }), refs)).toMatchObject({ subjectKey: 'betterstack:monitor:101', transition: 'trigger' });
    expect(toIncoming(event({ transition: 'resolve' }), refs)).toMatchObject({ subjectKey: null, transition: null });
  });
});

describe('what an event makes stale', () => {
  it('names the data routes a user would see change', () => {
    expect(staleRoutes({ integration: 'code_host', type: 'pr.merged' })).toEqual(['shipping:code_host']);
    expect(staleRoutes({ integration: 'code_host', type: 'star.created' })).toEqual([]);
    expect(staleRoutes({ integration: 'deploy_host', type: 'deploy.error' })).toEqual(['shipping:deploy_host']);
    expect(staleRoutes({ integration: 'error_tracker', type: 'error.issue_created' })).toEqual(['errortracker']);
    expect(staleRoutes({ integration: 'uptime_monitor', type: 'monitor.down' })).toEqual(['health']);
    expect(staleRoutes({ integration: 'issue_tracker', type: 'issue.created' })).toEqual(['ideas', 'shipping:issue_tracker']);
  });
});
