/** Bounds of one WebSocket beyond its subscriptions (SECURITY.md lists them). */
export interface SocketLimits {
  /** Queries and mutations one socket may have running at once. */
  inFlightPerSocket: number;
  /** Bytes queued to a socket that does not read before it is closed (4420, slow consumer). */
  queuedBytesPerSocket: number;
  /** How often the keys of open sockets are looked up again (revocation, roles, guest grants). */
  recheckMs: number;
}

export const DEFAULT_SOCKET_LIMITS: SocketLimits = {
  inFlightPerSocket: 8,
  queuedBytesPerSocket: 16 * 1024 * 1024,
  recheckMs: 2_000,
};
