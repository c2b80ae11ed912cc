/**
 * The database cannot be reached right now (it is restarting, the network is cut, SQLite's file
 * is locked past the busy timeout): a request should be answered 503 and retried later, not
 * treated as a bug. The service's own connections (PostgresPools, SqliteReader,
 * SqliteBackgroundWriter) translate their driver's failures into this at the point where they
 * call the driver, so that no other code has to know a driver's error shapes.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';

  constructor(cause: unknown) {
    super(`The database is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

// Prisma error codes that say the database cannot be reached right now.
const PRISMA_UNAVAILABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/** The failure kinds Prisma's driver adapters report (the same for every adapter). */
const ADAPTER_UNAVAILABLE_KINDS =
  /DatabaseNotReachable|DatabaseDoesNotExist|DatabaseAccessDenied|ConnectionClosed|SocketTimeout|TooManyConnections/;

type AdapterFailure = { kind?: string; code?: string; message?: string };

/**
 * Whether `error` says the database is unavailable: ours, or Prisma's report of the same. Prisma
 * wraps a driver adapter's failure in a known-request error (P2010, P2039…) that carries it as
 * `meta.driverAdapterError.cause`, with a normalised `kind`, or for a PostgreSQL error the
 * SQLSTATE as `code`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as AdapterFailure & {
    name?: string;
    cause?: AdapterFailure;
    meta?: { driverAdapterError?: { cause?: AdapterFailure } };
  };
  if (candidate.name === 'PrismaClientInitializationError') return true;
  if (typeof candidate.code === 'string' && PRISMA_UNAVAILABLE_CODES.has(candidate.code)) return true;
  return [candidate, candidate.cause, candidate.meta?.driverAdapterError?.cause].some(
    (failure) =>
      ADAPTER_UNAVAILABLE_KINDS.test(failure?.kind ?? '') ||
      isUnavailableSqlState(failure?.code, failure?.message) ||
      /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|SQLITE_BUSY)$/.test(failure?.code ?? ''),
  );
}

/**
 * PostgreSQL's SQLSTATEs for "not now": 57P0x (server shutting down, connection terminated),
 * 08xxx (connection exceptions), 3D000 (the database does not exist, yet or any more), and 55000
 * when the database refuses connections (ALLOW_CONNECTIONS false, maintenance).
 */
export function isUnavailableSqlState(code: string | undefined, message = ''): boolean {
  if (code === undefined) return false;
  return (
    /^(57P0[1-3]|08\d{3}|3D000)$/.test(code) ||
    (code === '55000' && /not currently accepting connections/.test(message))
  );
}
