import { and, asc, desc, isNull, lt, ne, notInArray, type Column } from 'drizzle-orm';

/** The orderings and conditions every dialect's store writes the same way, each over its own schema's tables. */

/** The tab order, the sessions' and the tokens' orders, and every session but one. */
export function configQueries({ projects, authSession, apiToken }: {
  projects: { position: Column; createdAt: Column; slug: Column };
  authSession: { lastSeenAt: Column; createdAt: Column; id: Column };
  apiToken: { createdAt: Column; id: Column };
}) {
  return {
    tabOrder: [asc(projects.position), asc(projects.createdAt), asc(projects.slug)],
    sessionOrder: [desc(authSession.lastSeenAt), desc(authSession.createdAt), asc(authSession.id)],
    tokenOrder: [desc(apiToken.createdAt), asc(apiToken.id)],
    /** Every session but `exceptId` (every session when it is undefined). */
    sessionsBut: (exceptId: string | undefined) => (exceptId === undefined ? undefined : ne(authSession.id, exceptId)),
  };
}

/** The inbox's unread rows, and the interruptions retention removes. */
export function inboxQueries({ notifications, notificationDeliveries }: {
  notifications: { readAt: Column };
  notificationDeliveries: { status: Column; createdAt: Column };
}) {
  return {
    unread: isNull(notifications.readAt),
    /** Interruptions that are over (neither held nor deferred) and older than `before` (ms UTC): retention. */
    settledBefore: (before: number) => and(notInArray(notificationDeliveries.status, ['held', 'deferred']), lt(notificationDeliveries.createdAt, before)),
  };
}
