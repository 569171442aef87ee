import { createServer, connect, Server, Socket } from 'node:net';

/**
 * A TCP proxy on a loopback port in front of a server (the machine's PostgreSQL or Redis), which a test can take down and bring
 * back: a database restart or a network cut, seen from the client, without touching the real server that other test
 * runs share.
 *
 * @example
 * const proxy = await TcpProxy.start({ host: '127.0.0.1', port: 5432 });
 * // connect to 127.0.0.1:proxy.port; then proxy.cut() ... proxy.restore()
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private mode: 'forward' | 'hang' = 'forward';

  /** The loopback port clients connect to; the same across cut() and restore(). */
  port = 0;

  private constructor(private readonly target: { host: string; port: number }) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(target);
    proxy.port = await proxy.listen(0);
    return proxy;
  }

  /** Connections through the proxy that are open now. */
  get openConnections(): number {
    return this.sockets.size;
  }

  /** As a stopped server: every open connection is reset, and new ones are refused (the port is closed). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.resetAndDestroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Listens again on the same port and forwards new connections (and frozen ones again). */
  async restore(): Promise<void> {
    this.mode = 'forward';
    for (const socket of this.sockets) socket.resume();
    if (!this.server) await this.listen(this.port);
  }

  /**
   * As a server that stops answering mid-conversation: open connections stay open but carry nothing, and new ones
   * are accepted and left silent.
   */
  freeze(): void {
    this.mode = 'hang';
    for (const socket of this.sockets) socket.pause();
  }

  /**
   * As a server that accepts connections and then never answers (a hung host, a black-holed route): open connections
   * are cut, new ones are accepted and left silent.
   */
  async hang(): Promise<void> {
    await this.cut();
    this.mode = 'hang';
    await this.listen(this.port);
  }

  async close(): Promise<void> {
    await this.cut();
  }

  private listen(port: number): Promise<number> {
    const server = createServer((client) => this.accept(client));
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve((server.address() as { port: number }).port);
      });
    });
  }

  private accept(client: Socket): void {
    this.track(client);
    if (this.mode === 'hang') return;
    const upstream = connect(this.target);
    this.track(upstream);
    client.pipe(upstream).pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => this.sockets.delete(socket));
  }
}
