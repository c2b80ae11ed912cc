// The package ships no types: what the single sign-on spec uses of it.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }
  interface Configuration {
    clients: Record<string, unknown>[];
    claims?: Record<string, string[]>;
    pkce?: { required(): boolean };
    cookies?: { keys: string[] };
    ttl?: Record<string, number>;
    /** The provider's signing keys (private JWKs); without them it makes development keys. */
    jwks?: { keys: Record<string, unknown>[] };
    findAccount(context: unknown, sub: string): Account | undefined;
  }
  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    /** It is a Koa application: its request handler, for a server bound beforehand. */
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    /** Koa middleware, before the provider's own routes. */
    use(middleware: (context: { path: string; body: unknown }, next: () => Promise<void>) => Promise<void>): void;
  }
}
