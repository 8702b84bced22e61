import net from 'node:net';

/**
 * A TCP proxy in front of Postgres that the fault tests and `npm run bench -- --abuse` cut in two
 * ways, without touching the shared cluster: `down()` refuses (every socket reset, the port closed),
 * `blackhole()` goes silent (sockets stay open, nothing is forwarded, new connections are accepted
 * and held), as when a network path drops packets. `restore()` forwards again, including what waited
 * in the kernel's buffers, as TCP would after retransmitting.
 */
export class TcpProxy {
  private server?: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private readonly held = new Set<net.Socket>();
  private silent = false;

  constructor(
    readonly port: number,
    private readonly target: { host: string; port: number },
  ) {}

  /** A proxy on a free local port. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const free = net.createServer();
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', r));
    const port = (free.address() as net.AddressInfo).port;
    await new Promise((r) => free.close(r));
    const proxy = new TcpProxy(port, target);
    await proxy.up();
    return proxy;
  }

  async up(): Promise<void> {
    this.silent = false;
    this.server = net.createServer((inbound) => {
      this.track(inbound);
      if (this.silent) {
        inbound.pause();
        this.held.add(inbound);
      } else this.forward(inbound);
    });
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', r));
  }

  /** Refuses: resets every connection and stops listening. */
  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server!.close(() => r()));
  }

  /** Goes silent: nothing is forwarded either way, and nothing is closed. */
  blackhole(): void {
    this.silent = true;
    for (const s of this.sockets) s.pause();
  }

  /** Forwards again: held connections are connected through, paused sockets resume. */
  restore(): void {
    this.silent = false;
    for (const s of this.held) this.forward(s);
    this.held.clear();
    for (const s of this.sockets) if (!s.destroyed) s.resume();
  }

  private track(s: net.Socket): void {
    this.sockets.add(s);
    s.on('close', () => {
      this.sockets.delete(s);
      this.held.delete(s);
    });
    s.on('error', () => {});
  }

  private forward(inbound: net.Socket): void {
    const outbound = net.connect(this.target);
    this.track(outbound);
    inbound.on('data', (d) => outbound.write(d));
    outbound.on('data', (d) => inbound.write(d));
    inbound.on('close', () => outbound.destroy());
    outbound.on('close', () => inbound.destroy());
    inbound.resume();
  }
}
