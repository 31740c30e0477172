/**
 * A publish-only NATS client over the NATS text protocol, enough to send
 * Gleaner's events: `INFO` (read), `CONNECT`, `PUB`, `PING`/`PONG`, `-ERR`.
 * Protocol reference: https://docs.nats.io/reference/protocols/client
 *
 * TLS as the server offers it: after the plain `INFO`, a client that wants
 * TLS (a `tls://` URL, the `tls` option) or a server that requires it
 * (`tls_required`) upgrades the connection before `CONNECT`
 * (https://docs.nats.io/running-a-nats-service/configuration/securing_nats/tls).
 * Credentials: user and password, a token, or a credentials file (the user
 * JWT and NKey seed; `nkeys.ts` signs the server's nonce).
 *
 * Publishing never waits: a message goes into a bounded queue (when it is
 * full the message is dropped and counted) and a background pump writes the
 * queue to the server. A lost connection is re-opened with exponential
 * backoff (capped); messages queued meanwhile are sent once it is back.
 *
 * @module
 */
import { withDeadline } from "../async/deadline.ts";
import { getGleanerLogger } from "../log.ts";
import { VERSION } from "../version.ts";
import { natsSigner } from "./nkeys.ts";

const log = getGleanerLogger("telemetry", "nats");

/** Options of {@link NatsPublisher}. */
export interface NatsPublisherOptions {
  /** `nats://[user:password@]host[:port]`, or `tls://…` to require TLS (port 4222 by default). */
  url: string;
  /** Require TLS even when the server does not (a `tls://` URL does the same). */
  tls?: boolean;
  /** A PEM file of the CA(s) that signed the server's certificate; the system's roots otherwise. */
  caFile?: string;
  /**
   * A credentials file (`.creds`: user JWT and NKey seed) or an NKey seed file, read on every
   * connection (a rotated file is picked up on the next one).
   */
  credentialsFile?: string;
  /** User name (the URL's user wins when it names one). */
  user?: string;
  /** Password of `user`. */
  password?: string;
  /** Token (`auth_token`), for servers configured with one. */
  token?: string;
  /** Messages queued at most while the server is slow or away; more are dropped. */
  queueMax?: number;
  /** Longest wait between two connection attempts (ms, default 5000). */
  maxBackoffMs?: number;
  /** Time to connect and complete the handshake (ms, default 5000). */
  connectTimeoutMs?: number;
}

/** Counters of a {@link NatsPublisher}. */
export interface NatsStats {
  /** Messages written to the server. */
  sent: number;
  /** Messages dropped (queue full, larger than the server's `max_payload`). */
  dropped: number;
  /** Messages waiting. */
  queued: number;
  /** True while a handshake-complete connection is open. */
  connected: boolean;
}

const CRLF = "\r\n";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The largest protocol line read from the server (an `INFO` is a few hundred bytes). */
const MAX_LINE_BYTES = 64 * 1024;

/** The address and credentials a NATS URL names. */
function parseNatsUrl(
  raw: string,
): { hostname: string; port: number; tls: boolean; user?: string; password?: string } {
  const url = new URL(raw);
  if (url.protocol !== "nats:" && url.protocol !== "tls:") {
    throw new Error(`unsupported NATS URL scheme ${url.protocol}`);
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  return {
    hostname,
    tls: url.protocol === "tls:",
    port: url.port === "" ? 4222 : Number(url.port),
    ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** The fields of the server's `INFO` the handshake reads. */
interface ServerInfo {
  max_payload?: number;
  tls_required?: boolean;
  tls_available?: boolean;
  nonce?: string;
}

/**
 * The `CONNECT` options: who the client is and the credentials configured (a
 * user and password, a token, or an NKey signing the server's nonce).
 */
async function connectOptions(
  target: ReturnType<typeof parseNatsUrl>,
  options: NatsPublisherOptions,
  info: ServerInfo,
  tls: boolean,
): Promise<Record<string, unknown>> {
  const signer = options.credentialsFile
    ? await natsSigner(await Deno.readTextFile(options.credentialsFile))
    : undefined;
  const user = target.user ?? options.user;
  const pass = target.password ?? options.password;
  return {
    verbose: false,
    pedantic: false,
    tls_required: tls,
    name: "gleaner",
    lang: "typescript",
    version: VERSION,
    protocol: 1,
    ...(user !== undefined ? { user, pass: pass ?? "" } : {}),
    ...(options.token !== undefined ? { auth_token: options.token } : {}),
    ...(signer
      ? {
        nkey: signer.publicKey,
        ...(signer.jwt ? { jwt: signer.jwt } : {}),
        ...(info.nonce ? { sig: await signer.sign(info.nonce) } : {}),
      }
      : {}),
  };
}

/**
 * Sends `CONNECT` and a PING right after it: PONG means the server accepted
 * it, -ERR that it did not (the server's own PINGs meanwhile are answered).
 */
async function confirmConnect(
  conn: Deno.Conn,
  lines: AsyncGenerator<string>,
  connect: Record<string, unknown>,
): Promise<void> {
  await writeAll(conn, encoder.encode(`CONNECT ${JSON.stringify(connect)}${CRLF}PING${CRLF}`));
  for (;;) {
    const line = await lines.next();
    if (line.done) throw new Error("the server closed the connection during the handshake");
    if (/^PONG/i.test(line.value)) return;
    if (/^-ERR/i.test(line.value)) {
      throw new Error(`the server refused the connection: ${line.value.slice(5).trim()}`);
    }
    if (/^PING/i.test(line.value)) await writeAll(conn, encoder.encode(`PONG${CRLF}`));
  }
}

/**
 * Publishes messages to one NATS server, fire-and-forget.
 *
 * @example
 * ```ts ignore
 * import { NatsPublisher } from "./nats.ts";
 * const nats = new NatsPublisher({ url: "nats://127.0.0.1:4222" });
 * nats.publish("gleaner.tool", JSON.stringify({ tool: "search" }));
 * await nats.close();
 * ```
 */
export class NatsPublisher {
  readonly #options:
    & Required<Pick<NatsPublisherOptions, "queueMax" | "maxBackoffMs">>
    & NatsPublisherOptions;
  readonly #target: ReturnType<typeof parseNatsUrl>;
  readonly #queue: { subject: string; payload: Uint8Array }[] = [];
  #sent = 0;
  #dropped = 0;
  #conn: Deno.Conn | undefined;
  #maxPayload = 1024 * 1024;
  #closed = false;
  #wake: (() => void) | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly #stopped: Promise<void>;
  #warned = false;

  /** Starts the background connection; nothing here waits for the server. */
  constructor(options: NatsPublisherOptions) {
    this.#target = parseNatsUrl(options.url);
    this.#options = { queueMax: 1_000, maxBackoffMs: 5_000, ...options };
    this.#stopped = this.#run();
  }

  /**
   * Queues a message for `subject`; false when it was dropped (queue full,
   * too large, or the publisher is closed). Never waits.
   */
  publish(subject: string, payload: string | Uint8Array): boolean {
    const bytes = typeof payload === "string" ? encoder.encode(payload) : payload;
    if (
      this.#closed || bytes.length > this.#maxPayload ||
      this.#queue.length >= this.#options.queueMax
    ) {
      this.#dropped++;
      return false;
    }
    this.#queue.push({ subject, payload: bytes });
    this.#wake?.();
    return true;
  }

  /** The counters. */
  stats(): NatsStats {
    return {
      sent: this.#sent,
      dropped: this.#dropped,
      queued: this.#queue.length,
      connected: this.#conn !== undefined,
    };
  }

  /**
   * Sends what is queued when connected (waiting at most `timeoutMs`), then
   * closes the connection and stops reconnecting.
   */
  async close(timeoutMs = 1_000): Promise<void> {
    if (this.#closed) return;
    const deadline = Date.now() + timeoutMs;
    while (this.#conn && this.#queue.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await this.#writing.catch(() => {});
    this.#closed = true;
    this.#dropped += this.#queue.length;
    this.#queue.length = 0;
    try {
      this.#conn?.close();
    } catch {
      // Already closed.
    }
    this.#wake?.();
    await this.#stopped;
  }

  async #run(): Promise<void> {
    let backoff = 100;
    while (!this.#closed) {
      let conn: Deno.Conn | undefined;
      try {
        conn = await this.#connect();
        backoff = 100;
        this.#warned = false;
        await this.#serve(conn);
      } catch (error) {
        if (this.#closed) break;
        // One warning per outage; the rest at debug level.
        if (!this.#warned) {
          this.#warned = true;
          log.warn("NATS events: {error} (retrying with backoff; events queue meanwhile)", {
            error: error instanceof Error ? error.message : String(error),
          });
        } else {
          log.debug("NATS events: {error}", { error });
        }
      } finally {
        this.#conn = undefined;
        try {
          conn?.close();
        } catch {
          // Already closed.
        }
      }
      if (this.#closed) break;
      await this.#sleep(backoff + Math.floor(Math.random() * backoff / 2));
      backoff = Math.min(backoff * 2, this.#options.maxBackoffMs);
    }
  }

  /** Waits `ms`, or less when the publisher closes. */
  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const previous = this.#wake;
      function done() {
        clearTimeout(timer);
        resolve();
      }
      // Only close() wakes a sleeping reconnect: publishing waits for the backoff.
      this.#wake = () => {
        if (this.#closed) done();
        else previous?.();
      };
    });
  }

  async #connect(): Promise<Deno.Conn> {
    const target = this.#target;
    const timeoutMs = this.#options.connectTimeoutMs ?? 5_000;
    let conn: Deno.Conn = await withTimeout(
      Deno.connect({ hostname: target.hostname, port: target.port }),
      timeoutMs,
      `connecting to ${target.hostname}:${target.port}`,
      (late) => late.close(),
    );
    try {
      let lines = readLines(conn);
      const handshake = async () => {
        // INFO {...}: the server speaks first.
        const first = await lines.next();
        if (first.done || !/^INFO\s/i.test(first.value)) {
          throw new Error("the server did not send INFO");
        }
        const info = JSON.parse(first.value.slice(5)) as ServerInfo;
        const tls = info.tls_required === true || target.tls || this.#options.tls === true;
        if (tls) {
          if (!info.tls_required && !info.tls_available) {
            throw new Error(
              "TLS is required (events.nats_tls or tls://) but the server offers none",
            );
          }
          const caFile = this.#options.caFile;
          const caCerts = caFile ? [await Deno.readTextFile(caFile)] : undefined;
          conn = await Deno.startTls(conn as Deno.TcpConn, {
            hostname: target.hostname,
            ...(caCerts ? { caCerts } : {}),
          });
          lines = readLines(conn);
        }
        if (typeof info.max_payload === "number" && info.max_payload > 0) {
          this.#maxPayload = info.max_payload;
        }
        const connect = await connectOptions(target, this.#options, info, tls);
        await confirmConnect(conn, lines, connect);
      };
      await withTimeout(handshake(), timeoutMs, "the NATS handshake");
      this.#pending = lines;
      return conn;
    } catch (error) {
      try {
        conn.close();
      } catch {
        // Already closed.
      }
      throw error;
    }
  }

  #pending: AsyncGenerator<string> | undefined;

  /** Pumps the queue to `conn` and answers the server's PINGs until the connection ends. */
  async #serve(conn: Deno.Conn): Promise<void> {
    const lines = this.#pending!;
    this.#pending = undefined;
    this.#conn = conn;
    const write = (bytes: Uint8Array) =>
      this.#writing = this.#writing.catch(() => {}).then(() => writeAll(conn, bytes));
    let ended = false;
    const reader = (async () => {
      for await (const line of lines) {
        if (/^PING/i.test(line)) await write(encoder.encode(`PONG${CRLF}`));
        else if (/^-ERR/i.test(line)) {
          log.warn("NATS events: the server reported {error}", { error: line.slice(5).trim() });
        }
      }
      ended = true;
      this.#wake?.();
      throw new Error("the server closed the connection");
    })();
    reader.catch(() => {});
    const pump = (async () => {
      while (!this.#closed && !ended) {
        if (this.#queue.length === 0) {
          await new Promise<void>((resolve) => this.#wake = resolve);
          continue;
        }
        const batch = this.#queue.splice(0, 256);
        const parts: Uint8Array[] = [];
        for (const { subject, payload } of batch) {
          parts.push(
            encoder.encode(`PUB ${subject} ${payload.length}${CRLF}`),
            payload,
            CRLF_BYTES,
          );
        }
        try {
          await write(concat(parts));
          this.#sent += batch.length;
        } catch (error) {
          // Not written: back to the front of the queue for the next connection.
          this.#queue.unshift(...batch.slice(0, this.#options.queueMax - this.#queue.length));
          throw error;
        }
      }
    })();
    await Promise.race([reader, pump]);
  }
}

const CRLF_BYTES = encoder.encode(CRLF);

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await conn.write(bytes.subarray(at));
}

/** The server's protocol lines (without CRLF); a line longer than {@link MAX_LINE_BYTES} is an error. */
async function* readLines(conn: Deno.Conn): AsyncGenerator<string> {
  const chunk = new Uint8Array(16 * 1024);
  let buffered = "";
  for (;;) {
    const n = await conn.read(chunk);
    if (n === null) return;
    buffered += decoder.decode(chunk.subarray(0, n), { stream: true });
    let end: number;
    while ((end = buffered.indexOf(CRLF)) !== -1) {
      yield buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
    }
    if (buffered.length > MAX_LINE_BYTES) throw new Error("protocol line too long");
  }
}

function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  what: string,
  onLate?: (value: T) => void,
): Promise<T> {
  return withDeadline(work, ms, () => {
    throw new Error(`${what} took longer than ${ms} ms`);
  }, { settledLate: onLate });
}
