/** Where the api writes what operators should see. Never handed a secret or a request body. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
