/**
 * The `events` section: operational events (NATS).
 *
 * @module
 */
import { z } from "zod";
import { secret } from "./secret.ts";
import { operatorOnly } from "../setting.ts";

/** A NATS subject prefix: dot-separated tokens without wildcards or spaces. */
const SUBJECT_PREFIX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * Settings of operational events (published to NATS; off until `nats_url` is set): the
 * operator's, every one.
 */
export const EventsSchema: z.ZodObject<{
  nats_url: z.ZodOptional<z.ZodString>;
  subject_prefix: z.ZodDefault<z.ZodString>;
  nats_user: z.ZodOptional<z.ZodString>;
  nats_password: z.ZodOptional<z.ZodString>;
  nats_token: z.ZodOptional<z.ZodString>;
  nats_credentials_file: z.ZodOptional<z.ZodString>;
  nats_tls: z.ZodDefault<z.ZodBoolean>;
  nats_ca_file: z.ZodOptional<z.ZodString>;
  include_query: z.ZodDefault<z.ZodBoolean>;
  queue_max: z.ZodDefault<z.ZodNumber>;
}, z.core.$strip> = z.object({
  /**
   * NATS server the events go to, `nats://[user:password@]host[:port]` (or `tls://…` to require
   * TLS); unset: no events (credentials in it are redacted wherever the configuration is shown).
   */
  nats_url: operatorOnly(
    z.string().refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === "nats:" || url.protocol === "tls:") && url.hostname !== "";
      } catch {
        return false;
      }
    }, { message: "must be a nats:// or tls:// URL (nats://[user:password@]host[:port])" })
      .optional(),
  ),
  /** Subjects are `<prefix>.tool` and `<prefix>.tier_skip`. */
  subject_prefix: operatorOnly(
    z.string().regex(SUBJECT_PREFIX, {
      message: "must be dot-separated tokens of letters, digits, _ and - (no wildcards)",
    }).default("gleaner"),
  ),
  /** NATS user (when the URL names none). */
  nats_user: operatorOnly(z.string().min(1).optional()),
  /** Password of `nats_user` (a secret). */
  nats_password: secret(),
  /** NATS token (`auth_token`; a secret). */
  nats_token: secret(),
  /**
   * A NATS credentials file (`.creds`: the user JWT and NKey seed, as `nsc` writes it) or an NKey
   * seed file; the server's nonce is signed with it. Read on every connection.
   */
  nats_credentials_file: operatorOnly(z.string().min(1).optional()),
  /** Require TLS to the NATS server (a `tls://` URL does too; a server that requires it gets it). */
  nats_tls: operatorOnly(z.boolean().default(false)),
  /** PEM file of the CA that signed the NATS server's certificate (else the system's roots). */
  nats_ca_file: operatorOnly(z.string().min(1).optional()),
  /** Put the query text of `search`, `research` and `scrape_urls` calls into tool events. */
  include_query: operatorOnly(z.boolean().default(false)),
  /** Events queued at most while NATS is slow or away; more are dropped (and counted). */
  queue_max: operatorOnly(z.number().int().positive().max(1_000_000).default(1_000)),
});
