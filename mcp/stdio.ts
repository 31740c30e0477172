/**
 * Serves Gleaner over MCP stdio (stdout carries protocol only; logs go to stderr).
 *
 * The transport is a small newline-delimited JSON-RPC reader over web streams
 * rather than the SDK's Node-stream one, so that the end of input closes the
 * server cleanly (after answering what was already asked) and a line over the
 * size limit is reported instead of closing silently.
 *
 * @module
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { GleanerError } from "../lib/errors.ts";
import type { AnyToolSpec } from "../lib/tools/spec.ts";
import { toolsFor } from "../lib/tools/presentations.ts";
import { TOOLS } from "../lib/tools/mod.ts";
import { createMcpServer, type GleanerSource } from "./server.ts";

/** Largest JSON-RPC line accepted on stdin (4 MiB, as for HTTP request bodies). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

type Id = string | number;

/**
 * A newline-delimited JSON-RPC transport over a byte stream pair.
 *
 * - End of input: waits until every request already read has been answered,
 *   then closes ({@link LineTransport.failure} stays undefined).
 * - A line that is not JSON: answers a JSON-RPC parse error (-32700) and goes on.
 * - A line over `maxLineBytes`: answers a parse error, sets
 *   {@link LineTransport.failure} to a `too_large` error and closes.
 *
 * @example
 * ```ts
 * import { LineTransport } from "./stdio.ts";
 * const input = ReadableStream.from([new TextEncoder().encode("not json\n")]);
 * const out: string[] = [];
 * const output = new WritableStream<Uint8Array>({
 *   write: (chunk) => void out.push(new TextDecoder().decode(chunk)),
 * });
 * const transport = new LineTransport(input, output);
 * const closed = new Promise<void>((resolve) => transport.onclose = resolve);
 * await transport.start();
 * await closed;
 * console.assert(JSON.parse(out[0]).error.code === -32700);
 * ```
 */
export class LineTransport implements Transport {
  /** Called once when the transport has closed. */
  onclose?: () => void;
  /** Called on a read or protocol error. */
  onerror?: (error: Error) => void;
  /** Called with each JSON-RPC message read. */
  onmessage?: (message: JSONRPCMessage) => void;
  /** Why the transport closed, when it was not the end of input or `close()`. */
  failure?: GleanerError;

  #input: ReadableStream<Uint8Array>;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reader?: ReadableStreamDefaultReader<Uint8Array>;
  #maxLineBytes: number;
  #pending = new Set<Id>();
  #drained?: () => void;
  #closed = false;
  #encoder = new TextEncoder();

  /** Reads messages from `input` and writes them to `output`, one per line. */
  constructor(
    input: ReadableStream<Uint8Array>,
    output: WritableStream<Uint8Array>,
    maxLineBytes: number = MAX_LINE_BYTES,
  ) {
    this.#input = input;
    this.#writer = output.getWriter();
    this.#maxLineBytes = maxLineBytes;
  }

  /** Starts reading in the background. */
  start(): Promise<void> {
    this.#reader = this.#input.getReader();
    this.#read(this.#reader).catch((error) => this.onerror?.(asError(error)));
    return Promise.resolve();
  }

  /** Writes one message as a line. */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return;
    await this.#writer.write(this.#encoder.encode(JSON.stringify(message) + "\n"));
    if ("id" in message && ("result" in message || "error" in message)) {
      this.#settle(message.id as Id);
    }
  }

  /** A request needs no more answer; at the end of input, closing waits for none left. */
  #settle(id: Id): void {
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#drained?.();
  }

  /** Stops reading and closes. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader?.cancel().catch(() => {});
    this.#drained?.();
    this.onclose?.();
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    let parts: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || this.#closed) break;
        let start = 0;
        for (let end = value.indexOf(10); end !== -1; end = value.indexOf(10, start)) {
          size += end - start;
          if (size > this.#maxLineBytes) return await this.#oversized();
          parts.push(value.subarray(start, end));
          this.#line(concat(parts, size));
          parts = [];
          size = 0;
          start = end + 1;
        }
        if (start < value.length) {
          size += value.length - start;
          if (size > this.#maxLineBytes) return await this.#oversized();
          parts.push(value.slice(start));
        }
      }
      if (size > 0 && !this.#closed) this.#line(concat(parts, size));
    } catch (error) {
      if (!this.#closed) this.onerror?.(asError(error));
    }
    // End of input: answer what was asked, then close.
    if (this.#pending.size > 0 && !this.#closed) {
      await new Promise<void>((resolve) => this.#drained = resolve);
    }
    await this.close();
  }

  #line(bytes: Uint8Array): void {
    const text = new TextDecoder().decode(bytes).replace(/\r$/, "");
    if (text.trim() === "") return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.#reply(-32700, "Parse error: the line is not JSON");
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      this.#reply(-32600, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.#pending.add(message.id as Id);
    if ("method" in message && message.method === "notifications/cancelled") {
      // A cancelled request gets no response: stop waiting for one.
      this.#settle((message.params as { requestId?: Id } | undefined)?.requestId as Id);
    }
    this.onmessage?.(message);
  }

  async #oversized(): Promise<void> {
    const limit = this.#maxLineBytes;
    this.failure = new GleanerError(
      "too_large",
      `MCP stdin: a message line is longer than ${limit} bytes; closing`,
      { details: { limit } },
    );
    this.#reply(-32700, `Parse error: message line longer than ${limit} bytes`);
    await this.#writer.ready;
    await this.close();
  }

  #reply(code: number, message: string): void {
    this.#writer.write(
      this.#encoder.encode(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }) + "\n",
      ),
    ).catch((error) => this.onerror?.(asError(error)));
  }
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Options of {@link serveStdio}. */
export interface StdioOptions {
  /**
   * Tools served (default: those of the Gleaner's `search.presentation`, or
   * every tool when the Gleaner is created lazily).
   */
  tools?: readonly AnyToolSpec[];
  /** Input stream (default: `Deno.stdin.readable`). */
  input?: ReadableStream<Uint8Array>;
  /** Output stream (default: `Deno.stdout.writable`). */
  output?: WritableStream<Uint8Array>;
  /** Largest line accepted (default {@link MAX_LINE_BYTES}). */
  maxLineBytes?: number;
}

/**
 * Connects a new MCP server to this process's stdin/stdout and resolves when
 * the input ends (after answering every request already read). Rejects with a
 * `too_large` {@link GleanerError} when a line exceeds the limit.
 *
 * @example
 * ```ts ignore
 * import { createGleaner } from "@gleaner/gleaner";
 * import { serveStdio } from "@gleaner/gleaner/mcp";
 * await serveStdio(await createGleaner());
 * ```
 */
export async function serveStdio(
  gleaner: GleanerSource,
  options: StdioOptions = {},
): Promise<void> {
  const tools = options.tools ??
    (typeof gleaner === "function" ? TOOLS : toolsFor(gleaner.config));
  const server = createMcpServer(gleaner, tools);
  const transport = new LineTransport(
    options.input ?? Deno.stdin.readable,
    options.output ?? Deno.stdout.writable,
    options.maxLineBytes,
  );
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
  if (transport.failure) throw transport.failure;
}
