/**
 * Better Stack's own example answers, copied from its Uptime API documentation (Better Stack publishes
 * no machine-readable description of the API). The fake reproduces their shape and the connector is
 * tested against them as printed. JSON is kept as the pages print it; only whitespace differs.
 */
import type { DocumentedExample } from '../documented.ts';

const docs = 'https://betterstack.com/docs/uptime/api';

/** One monitor as the pages print it (the list and the single-monitor pages share it). */
const monitorAttributes = String.raw`{
  "url": "https://uptime.betterstack.com",
  "pronounceable_name": "Uptime homepage",
  "monitor_type": "keyword",
  "monitor_group_id": "12345",
  "last_checked_at": "2020-09-01T14:17:46.000Z",
  "status": "up",
  "policy_id": null,
  "team_name": "Test team",
  "required_keyword": "We call you",
  "verify_ssl": true,
  "check_frequency": 30,
  "call": true,
  "sms": true,
  "email": true,
  "push": true,
  "team_wait": null,
  "http_method": "get",
  "request_timeout": 15,
  "recovery_period": 0,
  "request_headers": [
    {
      "id": "123",
      "name": "Content-Type",
      "value": "application/xml"
    }
  ],
  "request_body": "",
  "paused_at": null,
  "created_at": "2020-02-18T13:38:16.586Z",
  "updated_at": "2020-09-08T13:10:20.202Z",
  "ssl_expiration": 7,
  "domain_expiration": 14,
  "regions": ["us", "eu", "as", "au"],
  "maintenance_from": "01:02:00",
  "maintenance_to": "03:04:00",
  "maintenance_timezone": "Amsterdam",
  "maintenance_days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"],
  "port": null,
  "confirmation_period": 120,
  "expected_status_codes": []
}`;

export const betterstackDocumented = {
  listMonitors: {
    endpoint: 'GET /api/v2/monitors',
    url: `${docs}/list-all-existing-monitors/`,
    status: 200,
    body: JSON.parse(String.raw`{
      "data": [
        {
          "id": "2",
          "type": "monitor",
          "attributes": ${monitorAttributes}
        }
      ]
    }`) as unknown,
    partial:
      'the copy of the page read ends inside the "pagination" object; every list answer carries the object the Pagination page prints (`pagination` below)',
  },

  /** Its `data` items are printed as "monitor's attributes omitted..." (not JSON): only `pagination` is kept. */
  pagination: {
    endpoint: 'GET /api/v2/monitors?per_page=20&page=3',
    url: `${docs}/pagination/`,
    status: 200,
    body: JSON.parse(String.raw`{
      "pagination": {
        "first": "https://uptime.betterstack.com/api/v2/monitors?per_page=20&page=1",
        "last": "https://uptime.betterstack.com/api/v2/monitors?per_page=20&page=3",
        "prev": "https://uptime.betterstack.com/api/v2/monitors?per_page=20&page=2",
        "next": null
      }
    }`) as unknown,
    partial: 'the page prints the two monitors of `data` with their attributes elided ("monitor\'s attributes omitted..."), which is not JSON',
  },

  getMonitor: {
    endpoint: 'GET /api/v2/monitors/{monitor_id}',
    url: `${docs}/get-a-single-monitor/`,
    status: 200,
    body: JSON.parse(String.raw`{
      "data": {
        "id": "123456789",
        "type": "monitor",
        "attributes": ${monitorAttributes}
      }
    }`) as unknown,
  },

  monitorNotFound: {
    endpoint: 'GET /api/v2/monitors/{monitor_id}',
    url: `${docs}/get-a-single-monitor/`,
    status: 404,
    body: JSON.parse(String.raw`{
      "errors": "Resource with provided ID was not found"
    }`) as unknown,
  },

  responseTimes: {
    endpoint: 'GET /api/v2/monitors/{monitor_id}/response-times',
    url: `${docs}/get-monitors-response-times/`,
    source: "the page's Markdown source (the docs serve each page as .md), section \"Monitor response times\"",
    status: 200,
    body: JSON.parse(String.raw`{
      "data": {
        "id": "270985",
        "type": "monitor_response_times",
        "attributes": {
          "regions": [
            {
              "region": "us",
              "response_times": [
                { "at": "2025-04-03T11:00:57.000Z", "response_time": 0.47273, "name_lookup_time": 0.000020, "connection_time": 0.14187, "tls_handshake_time": 0.19929, "data_transfer_time": 0.13154 },
                { "at": "2025-04-03T11:01:27.000Z", "response_time": 0.41211, "name_lookup_time": 0.000020, "connection_time": 0.13058, "tls_handshake_time": 0.17109, "data_transfer_time": 0.11042 },
                { "at": "2025-04-03T11:04:27.000Z", "response_time": 0.41943, "name_lookup_time": 0.000020, "connection_time": 0.10908, "tls_handshake_time": 0.19844, "data_transfer_time": 0.11188 }
              ]
            },
            {
              "region": "eu",
              "response_times": [
                { "at": "2025-04-03T11:13:27.000Z", "response_time": 0.60383, "name_lookup_time": 0.000020, "connection_time": 0.15449, "tls_handshake_time": 0.31218, "data_transfer_time": 0.13714 },
                { "at": "2025-04-03T11:13:57.000Z", "response_time": 0.36093, "name_lookup_time": 0.000020, "connection_time": 0.12147, "tls_handshake_time": 0.12925, "data_transfer_time": 0.11019 },
                { "at": "2025-04-03T11:17:27.000Z", "response_time": 0.34252, "name_lookup_time": 0.000020, "connection_time": 0.10989, "tls_handshake_time": 0.1224, "data_transfer_time": 0.11021 }
              ]
            }
          ]
        }
      }
    }`) as unknown,
  },

  monitorSla: {
    endpoint: 'GET /api/v2/monitors/{monitor_id}/sla',
    url: `${docs}/get-a-monitors-availability-summary/`,
    source: "the page's Markdown source (the docs serve each page as .md): the values of total_downtime, longest_incident and average_incident are in seconds",
    status: 200,
    body: JSON.parse(String.raw`{
      "data": {
        "id": "258338",
        "type": "monitor_sla",
        "attributes": {
          "availability": 99.98,
          "total_downtime": 600,
          "number_of_incidents": 3,
          "longest_incident": 300,
          "average_incident": 200
        }
      }
    }`) as unknown,
  },

  /** "When the optional from and to dates are invalid (e.g., the start date is in the future or the end date is before the start date)." */
  slaInvalidRange: {
    endpoint: 'GET /api/v2/monitors/{monitor_id}/sla',
    url: `${docs}/get-a-monitors-availability-summary/`,
    status: 400,
    body: JSON.parse(String.raw`{
      "errors": "The data range is invalid. The date format could not be parsed, the start time is in the future, or the end time is after the start time."
    }`) as unknown,
  },

  listIncidents: {
    endpoint: 'GET /api/v3/incidents',
    url: `${docs}/list-all-incidents/`,
    status: 200,
    body: JSON.parse(String.raw`{
      "data": [
        {
          "id": "25",
          "type": "incident",
          "attributes": {
            "name": "uptime homepage",
            "url": "https://uptime.betterstack.com/",
            "http_method": "get",
            "cause": "Status 404",
            "incident_group_id": null,
            "started_at": "2020-03-09T17:37:56.662Z",
            "acknowledged_at": null,
            "acknowledged_by": null,
            "resolved_at": null,
            "resolved_by": null,
            "status": "Started",
            "team_name": "Testing team",
            "response_content": "\n404 Not Found\n\nNot Found\nThe requested URL /fail was not found on this server.\n",
            "response_options": "{}",
            "regions": ["us", "eu", "as", "au"],
            "response_url": null,
            "screenshot_url": null,
            "origin_url": null,
            "escalation_policy_id": null,
            "call": true,
            "sms": true,
            "email": true,
            "push": true,
            "metadata": {
              "Request duration": [{ "type": "String", "value": "0.036304" }],
              "Response code": [{ "type": "String", "value": "404" }]
            }
          },
          "relationships": {
            "monitor": {
              "data": {
                "id": "2",
                "type": "monitor"
              }
            }
          }
        }
      ]
    }`) as unknown,
    partial:
      'the first incident only: the copy of the page read ends inside the second one ("disk usage monitoring"), before "pagination"; ' +
      'the page prints a comma after the last "Response code" entry of "metadata", which JSON does not allow, so that comma is left out',
  },
} satisfies Record<string, DocumentedExample>;
