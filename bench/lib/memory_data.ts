/**
 * Synthetic memories for the memory benchmark: a deterministic generator of
 * plausible agent memories (people, projects, tools, places), and a
 * confusable recall set where each planted fact hides among near-duplicates
 * (same entity, other attribute; other entity, same attribute) and is asked
 * for with a paraphrase.
 *
 * @module
 */
import { pick, rng } from "../../lib/memory/testdata/rng.ts";

const PEOPLE = [
  "Alice",
  "Bruno",
  "Chiara",
  "Dmitri",
  "Elena",
  "Farid",
  "Greta",
  "Hiro",
  "Ines",
  "Jonas",
  "Kemal",
  "Lena",
  "Marco",
  "Nadia",
  "Oskar",
  "Priya",
  "Quentin",
  "Rosa",
  "Stefan",
  "Tara",
  "Umar",
  "Vera",
  "Wes",
  "Ximena",
  "Yusuf",
  "Zoe",
  "Amara",
  "Björn",
  "Carmen",
  "Deepak",
];
const PROJECTS = [
  "Falcon",
  "Heron",
  "Osprey",
  "Kestrel",
  "Merlin",
  "Condor",
  "Plover",
  "Puffin",
  "Raven",
  "Swift",
  "Tern",
  "Wren",
  "Egret",
  "Ibis",
  "Lark",
  "Magpie",
  "Oriole",
  "Pelican",
  "Robin",
  "Starling",
];
const TOOLS = [
  "PostgreSQL",
  "MySQL",
  "SQLite",
  "Redis",
  "Kafka",
  "RabbitMQ",
  "Elasticsearch",
  "ClickHouse",
  "Terraform",
  "Ansible",
  "Kubernetes",
  "Nomad",
  "Grafana",
  "Prometheus",
  "Sentry",
  "Vault",
  "Deno",
  "Node.js",
  "Rust",
  "Go",
  "Python",
  "Java",
  "React",
  "Svelte",
  "Vue",
  "nginx",
  "Caddy",
];
const CITIES = [
  "Lyon",
  "Porto",
  "Leipzig",
  "Gdansk",
  "Bologna",
  "Ghent",
  "Tartu",
  "Bergen",
  "Cork",
  "Graz",
  "Brno",
  "Malmo",
  "Utrecht",
  "Valencia",
  "Turku",
  "Kraków",
  "Seville",
  "Basel",
  "Aarhus",
  "Bilbao",
];
const TOPICS = [
  "billing",
  "onboarding",
  "search ranking",
  "invoice export",
  "login flow",
  "mobile sync",
  "audit log",
  "rate limiting",
  "email digest",
  "data retention",
  "feature flags",
  "backups",
  "load testing",
  "dark mode",
  "accessibility review",
  "pricing page",
  "GDPR request",
  "SSO integration",
  "webhook retries",
  "CSV import",
];
const VERBS = [
  "fixed",
  "reviewed",
  "discussed",
  "postponed",
  "shipped",
  "benchmarked",
  "rewrote",
  "documented",
  "debugged",
  "planned",
  "migrated",
  "approved",
  "rolled back",
  "profiled",
  "estimated",
];
const WHEN = [
  "on Monday",
  "last sprint",
  "before the release",
  "during the retro",
  "in the planning call",
  "after the outage",
  "this morning",
  "over the weekend",
  "at the offsite",
  "yesterday",
];
const DETAILS = [
  "the main risk is the database migration",
  "we agreed to keep the old endpoint for one more month",
  "latency dropped from 180 ms to 95 ms",
  "the customer asked for a CSV export as well",
  "two flaky tests still need a look",
  "the design team wants larger touch targets",
  "costs went up by about twelve percent",
  "the fix needs a config change in production",
  "support tickets about it doubled last week",
  "legal has to sign off before we enable it",
];

/**
 * `n` synthetic memories (15–40 words each), deterministic for a seed.
 *
 * @example
 * ```ts
 * import { syntheticMemories } from "./memory_data.ts";
 * console.assert(syntheticMemories(3, 1).length === 3);
 * ```
 */
export function syntheticMemories(n: number, seed = 42): string[] {
  const r = rng(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = r();
    const who = pick(r, PEOPLE);
    const project = pick(r, PROJECTS);
    if (kind < 0.45) {
      out.push(
        `${who} ${pick(r, VERBS)} the ${pick(r, TOPICS)} work for project ${project} ${
          pick(r, WHEN)
        }; ${pick(r, DETAILS)}.`,
      );
    } else if (kind < 0.7) {
      out.push(
        `Project ${project} uses ${pick(r, TOOLS)} for ${pick(r, TOPICS)} and ${
          pick(r, TOOLS)
        } for ${pick(r, TOPICS)}; ${who} owns the setup in ${pick(r, CITIES)}.`,
      );
    } else if (kind < 0.85) {
      out.push(
        `${who} prefers ${pick(r, TOOLS)} over ${pick(r, TOOLS)} for ${
          pick(r, TOPICS)
        } and works from ${pick(r, CITIES)} ${pick(r, WHEN)}.`,
      );
    } else {
      out.push(
        `Reminder ${i}: ${pick(r, TOPICS)} for ${project} is due ${pick(r, WHEN)}, ask ${who} ` +
          `about ${pick(r, TOPICS)} first because ${pick(r, DETAILS)}.`,
      );
    }
  }
  return out;
}

/**
 * Recall queries over the synthetic vocabulary (a mix of entity names and
 * topic words).
 */
export function syntheticQueries(n: number, seed = 7): string[] {
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const forms = [
      () => `what did ${pick(r, PEOPLE)} do on ${pick(r, TOPICS)}`,
      () => `which tools does project ${pick(r, PROJECTS)} use`,
      () => `who owns the ${pick(r, TOPICS)} setup in ${pick(r, CITIES)}`,
      () => `${pick(r, TOPICS)} risks for ${pick(r, PROJECTS)}`,
    ];
    return pick(r, forms)();
  });
}

/** One question of the confusable set. */
export interface ConfusableCase {
  /** The paraphrased question. */
  query: string;
  /** Index (in `memories`) of the memory that answers it. */
  answer: number;
  /**
   * `tune` or `report`, fixed by template (even-numbered templates, in the order written, are
   * `tune`): tune settings on `tune`, report `report`.
   */
  half: "tune" | "report";
}

/** The confusable set: memories (answers and their look-alikes) and the questions. */
export interface ConfusableSet {
  memories: string[];
  cases: ConfusableCase[];
}

interface Template {
  /** The fact (slot values filled). */
  fact: (e: string, v: string) => string;
  /** A paraphrased question about entity `e`. */
  query: (e: string) => string;
  entities: readonly string[];
  values: readonly string[];
}

const TEMPLATES: Template[] = [
  {
    fact: (e, v) => `${e}'s staging database runs ${v}.`,
    query: (e) => `which database engine does ${e} use in pre-production`,
    entities: PROJECTS,
    values: ["PostgreSQL 15", "MySQL 8", "MariaDB 11", "PostgreSQL 13", "CockroachDB"],
  },
  {
    fact: (e, v) => `${e} is allergic to ${v}.`,
    query: (e) => `what food must ${e} avoid eating`,
    entities: PEOPLE,
    values: ["peanuts", "shellfish", "gluten", "sesame", "kiwi fruit"],
  },
  {
    fact: (e, v) => `The ${e} team holds its standup at ${v} every weekday.`,
    query: (e) => `what time does the ${e} group meet each morning`,
    entities: ["payments", "search", "mobile", "platform", "growth"],
    values: ["9:15", "9:30", "10:00", "8:45", "11:00"],
  },
  {
    fact: (e, v) => `${e} relocated to ${v} last spring.`,
    query: (e) => `in which city does ${e} live now after the move`,
    entities: PEOPLE.slice(10),
    values: CITIES.slice(0, 5),
  },
  {
    fact: (e, v) => `Releases of ${e} are frozen during ${v}.`,
    query: (e) => `when are we not allowed to ship ${e}`,
    entities: PROJECTS.slice(5),
    values: [
      "the last week of December",
      "Black Friday week",
      "quarter-end close",
      "the summer audit",
      "tax season",
    ],
  },
  {
    fact: (e, v) => `${e} wants code review comments written in ${v}.`,
    query: (e) => `which language should feedback on ${e}'s pull requests use`,
    entities: PEOPLE.slice(20),
    values: ["English", "German", "French", "Spanish", "Portuguese"],
  },
  {
    fact: (e, v) => `The on-call rotation for ${e} is handed over on ${v}.`,
    query: (e) => `which day does the pager duty for ${e} switch hands`,
    entities: PROJECTS.slice(10),
    values: ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays"],
  },
  {
    fact: (e, v) => `${e}'s laptop is a ${v}.`,
    query: (e) => `what computer does ${e} work on`,
    entities: PEOPLE.slice(5),
    values: [
      "ThinkPad X1 Carbon",
      "MacBook Air M3",
      "Framework 13",
      "Dell XPS 15",
      "MacBook Pro 16",
    ],
  },
  {
    fact: (e, v) => `Customer ${e} is billed ${v}.`,
    query: (e) => `how often do we invoice the ${e} account`,
    entities: ["Acme", "Globex", "Initech", "Umbrella", "Hooli"],
    values: [
      "monthly in arrears",
      "quarterly in advance",
      "yearly upfront",
      "per usage every week",
      "twice a year",
    ],
  },
  {
    fact: (e, v) => `The API rate limit for ${e} is ${v}.`,
    query: (e) => `how many calls per minute may ${e} make`,
    entities: [
      "free-tier users",
      "partners",
      "internal services",
      "enterprise clients",
      "trial accounts",
    ],
    values: [
      "60 requests per minute",
      "600 requests per minute",
      "6000 requests per minute",
      "10 requests per minute",
      "120 requests per minute",
    ],
  },
  {
    fact: (e, v) => `${e} drinks ${v} and no other coffee.`,
    query: (e) => `how does ${e} take coffee`,
    entities: PEOPLE.slice(15),
    values: [
      "oat flat whites",
      "black espresso",
      "iced lattes",
      "cappuccino with cinnamon",
      "decaf americano",
    ],
  },
  {
    fact: (e, v) => `Secrets for ${e} are stored in ${v}.`,
    query: (e) => `where do we keep credentials of ${e}`,
    entities: PROJECTS.slice(0, 5),
    values: [
      "HashiCorp Vault",
      "AWS Secrets Manager",
      "1Password",
      "sealed Kubernetes secrets",
      "SOPS files in git",
    ],
  },
];

/**
 * The confusable set: 12 templates × 5 entities = 60 planted facts, each
 * with two look-alikes about the same entity (an outdated value: "Until last
 * year, …", and a passing mention of another value), four other entities
 * stating the same kind of fact, and `filler` synthetic memories. Each
 * question is a paraphrase of its fact. Half of the templates' questions are
 * the `tune` half, the other half `report` (see {@link ConfusableCase.half}).
 */
export function confusableSet(filler = 1_000, seed = 11): ConfusableSet {
  const r = rng(seed);
  const memories: string[] = [];
  const cases: ConfusableCase[] = [];
  for (const [ti, t] of TEMPLATES.entries()) {
    const half = ti % 2 === 0 ? "tune" : "report";
    const entities = t.entities.slice(0, 5);
    // Entity i gets value i; shuffled so the answer's position says nothing.
    const order = entities.map((_, i) => i).sort(() => r() - 0.5);
    for (const i of order) {
      const e = entities[i];
      const answer = memories.length;
      memories.push(t.fact(e, t.values[i]));
      // A look-alike: an outdated value of the same fact.
      const old = t.fact(e, t.values[(i + 1) % t.values.length]);
      memories.push(`Until last year, ${old[0].toLowerCase() === old[0] ? old : old}`);
      // A near-duplicate about the same entity, different attribute.
      memories.push(
        `${e} mentioned ${
          t.values[(i + 2) % t.values.length]
        } in a discussion, but only as an example.`,
      );
      cases.push({ query: t.query(e), answer, half });
    }
  }
  memories.push(...syntheticMemories(filler, seed + 1));
  return { memories, cases };
}
