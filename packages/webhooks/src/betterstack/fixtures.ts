/** From betterstack.com/docs/uptime/webhooks (incident and monitor webhooks), with the times made consistent. */

const times = {
  started: { started_at: '2020-10-21T10:51:28.151Z', acknowledged_at: null, resolved_at: null },
  acknowledged: { started_at: '2020-10-21T10:51:28.151Z', acknowledged_at: '2020-10-21T10:55:45.768Z', resolved_at: null },
  resolved: { started_at: '2020-10-21T10:51:28.151Z', acknowledged_at: '2020-10-21T10:55:45.768Z', resolved_at: '2020-10-21T11:02:10.000Z' },
};

type Stage = keyof typeof times;

export function incident(event: Stage | 'reopened', options: { id?: string; omitEvent?: boolean; status?: string } = {}): string {
  const stage: Stage = event === 'reopened' ? 'started' : event;
  return JSON.stringify({
    ...(options.omitEvent ? {} : { event }),
    data: {
      id: options.id ?? '1',
      type: 'incident',
      attributes: {
        name: 'Tesla.com homepage',
        url: 'https://tesla.com',
        http_method: 'get',
        cause: 'Error 500',
        ...times[stage],
        ...(options.status ? { status: options.status } : {}),
        response_content: null,
        response_url: null,
        screenshot_url: null,
      },
      relationships: { monitor: { data: { id: '4', type: 'monitor' } } },
    },
  });
}

export const monitorUpdated = JSON.stringify({
  event: 'updated',
  data: {
    id: '4',
    type: 'monitor',
    attributes: {
      url: 'https://tesla.com',
      pronounceable_name: 'Tesla.com homepage',
      monitor_type: 'status',
      check_frequency: 30,
      paused_at: null,
      last_checked_at: '2020-10-21T10:50:21.000Z',
      created_at: '2020-02-18T14:38:34.117Z',
      updated_at: '2020-10-27T14:23:38.658Z',
    },
  },
});
