// A SOCKS5 proxy for tests (RFC 1928, with RFC 1929 user/password when `credentials` is
// given), on 127.0.0.1 with an OS-chosen port: each CONNECT is tunnelled to the host and port
// asked for, which it records. Like any test server (./http-server.ts), it closes when the
// test that started it ends.
import net from "node:net";
import { onTestFinished, TestRunner } from "vitest";

export interface TestSocksProxy {
  url: string;
  /** "127.0.0.1:8124" for each tunnel asked for (a name as the client sent it). */
  tunnels: string[];
  close(): Promise<void>;
}

/** Reads exactly n bytes from a socket that is paused between reads. */
function reader(socket: net.Socket) {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve: (bytes: Buffer) => void } | null = null;
  const serve = () => {
    if (waiting && buffered.length >= waiting.n) {
      const { n, resolve } = waiting;
      waiting = null;
      const bytes = buffered.subarray(0, n);
      buffered = buffered.subarray(n);
      resolve(bytes);
    }
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    serve();
  };
  socket.on("data", onData);
  return {
    read: (n: number) =>
      new Promise<Buffer>((resolve) => {
        waiting = { n, resolve };
        serve();
      }),
    /** Stops reading; what was read ahead is handed back. */
    detach: () => {
      socket.off("data", onData);
      return buffered;
    },
  };
}

export async function startSocksProxy(
  options: { credentials?: [string, string] } = {},
): Promise<TestSocksProxy> {
  const tunnels: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer(async (client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    const { read, detach } = reader(client);
    const [, methods] = await read(2);
    await read(methods!);
    client.write(Buffer.from([5, options.credentials ? 2 : 0]));
    if (options.credentials) {
      const [, userLength] = await read(2);
      const user = (await read(userLength!)).toString();
      const [passwordLength] = await read(1);
      const password = (await read(passwordLength!)).toString();
      const ok = user === options.credentials[0] && password === options.credentials[1];
      client.write(Buffer.from([1, ok ? 0 : 1]));
      if (!ok) return void client.end();
    }
    const [, , , type] = await read(4);
    let host: string;
    if (type === 1) host = [...(await read(4))].join(".");
    else if (type === 3) host = (await read((await read(1))[0]!)).toString();
    else return void client.end(Buffer.from([5, 8, 0, 1, 0, 0, 0, 0, 0, 0]));
    const port = (await read(2)).readUInt16BE(0);
    tunnels.push(`${host}:${port}`);
    const upstream = net.connect(port, host, () => {
      client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
      const early = detach();
      if (early.length) upstream.write(early);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on("error", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
    return closed;
  };
  if (TestRunner.getCurrentTest()) onTestFinished(close);
  return { url: `socks5://127.0.0.1:${port}`, tunnels, close };
}
