import * as Sentry from '@sentry/node';

/** Where the relay sends its own unexpected errors: the route pattern and the integration, never a body or a header. */
export interface ErrorReporter {
  capture(error: unknown, context: { route: string; integration?: string | undefined }): void;
  flush(): Promise<boolean>;
}

/**
 * Sentry, set up for a public endpoint that handles secrets: no automatic request instrumentation, no
 * default PII, and anything request-shaped stripped before sending. Uncaught exceptions and unhandled
 * rejections are still captured.
 */
export function sentryReporter(dsn: string): ErrorReporter {
  Sentry.init({
    dsn,
    defaultIntegrations: false,
    integrations: [Sentry.onUncaughtExceptionIntegration(), Sentry.onUnhandledRejectionIntegration()],
    sendDefaultPii: false,
    tracesSampleRate: 0,
    beforeSend(event) {
      delete event.request;
      delete event.user;
      return event;
    },
  });
  return {
    capture(error, { route, integration }) {
      Sentry.withScope((scope) => {
        scope.setTag('route', route);
        if (integration) scope.setTag('integration', integration);
        Sentry.captureException(error);
      });
    },
    flush: () => Sentry.flush(2_000),
  };
}
