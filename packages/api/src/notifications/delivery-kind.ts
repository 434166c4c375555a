import type { DeliveryRow } from '@dash/db';

/**
 * What a released interruption is to the channels that send it away from the app (push, chat): the digest, a
 * recovery (a resolve, or a flap's end once it is stable and up), or an alert (the rest).
 */
export function deliveryKind(delivery: Pick<DeliveryRow, 'purpose' | 'message'>): 'alert' | 'resolve' | 'digest' {
  if (delivery.purpose === 'digest') return 'digest';
  return delivery.purpose === 'resolve' || (delivery.purpose === 'flap_end' && delivery.message.severity === 'success') ? 'resolve' : 'alert';
}
