import { describe, expect, it } from 'vitest';
import { pushServiceError } from './adapter.ts';

// What of a push service's error answer a failure keeps (pushServiceError): the documented JSON of Mozilla's and
// Apple's services, nothing of any other.

describe('a push service’s error in a failure', () => {
  const page = 'INTERNAL-ONLY-DATA: admin panel secret=x';
  it('keeps Mozilla autopush’s message and errno, and Apple’s reason, from their documented JSON answers', () => {
    const autopush = JSON.stringify({ code: 410, errno: 106, error: 'Gone', message: 'Request did not validate User was deleted', more_info: 'https://autopush.readthedocs.io/en/latest/http.html#error-codes' });
    expect(pushServiceError('https://updates.push.services.mozilla.com/wpush/v2/gAAA', autopush)).toBe('Request did not validate User was deleted, errno 106');
    expect(pushServiceError('https://web.push.apple.com/QGuQyavXuto', JSON.stringify({ reason: 'BadJwtToken' }))).toBe('BadJwtToken');
  });

  it('keeps nothing of another answer: FCM’s (no documented body), an unknown host’s, or a known host’s that is not JSON', () => {
    expect(pushServiceError('https://fcm.googleapis.com/fcm/send/abc', JSON.stringify({ reason: page }))).toBeUndefined();
    expect(pushServiceError('https://push.example.com/abc', JSON.stringify({ message: page, reason: page }))).toBeUndefined();
    expect(pushServiceError('http://127.0.0.1:9000/abc', page)).toBeUndefined();
    expect(pushServiceError('https://updates.push.services.mozilla.com/wpush/v2/gAAA', page)).toBeUndefined();
    expect(pushServiceError('https://web.push.apple.com.evil.example/x', JSON.stringify({ reason: page }))).toBeUndefined();
  });
});
