import type pg from 'pg';
import type { ChangeFeed } from '../../glossary/changes.ts';
import { type EntryRow, LIVE_FIELDS, RECORDED_FIELDS, toEntry } from './history.ts';
import { query, withClient } from './pool.ts';

/**
 * The change feed's reads on PostgreSQL (changes.ts), and how rule 2, exactly once and never
 * skipped, holds with many writers in many instances.
 *
 * The feed is every id's history in one line, oldest first: the rows of `term_history` and the
 * creations kept only on their live `terms` row (`created_rev`, never changed, or imported),
 * the union history.ts reads for one id.
 *
 * The trap. Revisions come from the sequence `term_revision`, drawn before commit: a writer
 * can draw 9, another draw 10 and commit, and only then the first commit 9. A follower that
 * was given 10 asks for what is above 10 and would never see 9. So a read answers only up to a
 * horizon H below which nothing can still appear: every revision <= H was drawn by a
 * transaction that has ended, and the read's snapshot sees all of them that committed.
 *
 * (a) Every write transaction takes its transaction id (xid) in the round trip of its BEGIN,
 *     before it can draw a revision (transaction.ts `write`; every statement that draws one
 *     runs there). So a revision is never drawn by a transaction whose xid was assigned after
 *     it. The sequence keeps CACHE 1 (its default, migration 9): with a cache, a session would
 *     hand out a revision it drew earlier in a later transaction, after a feed read saw a
 *     higher `last_value`.
 * (b) A read is two round trips. The first reads L, the sequence's `last_value`: every
 *     revision drawn so far is <= L, each by a transaction whose xid is already assigned;
 *     then, in a second statement (`LOOK`), R, the xids of this database's transactions
 *     running (`pg_stat_activity`, read after L). The second round trip (its own
 *     transaction, so a new snapshot S) reads N, the next xid the server will assign: every
 *     transaction that drew a revision <= L has an xid < N. (L, N) is an observation. It is
 *     settled in a snapshot S' (taken after R was read) when every xid of R below N is
 *     completed in S': a transaction that drew a revision <= L took its xid before L was
 *     read, so if it had not ended before R was read it is in R, and if it had, S' sees it.
 *     From then on no revision <= L can still appear. The horizon of S' is the largest L of
 *     the settled observations; the read answers the rows with since < revision <= H from
 *     that same snapshot, in that same statement (`PAGE`). The store keeps the observations
 *     not yet settled (a few, `MAX_WAITING`) and the horizon reached, per instance: a
 *     settled observation stays settled, so a horizon holds for every later snapshot. A new
 *     observation counts at once when no writer of this database below N runs, so a read
 *     right after a write answers it unless another write of this glossary is under way.
 *     (Only this database's transactions: the snapshot's own xmin spans every database of
 *     the server, and would hold the feed back behind any of them.)
 *     N is not xmax(S): xmax is one past the newest *finished* xid, and a transaction with a
 *     higher xid may be running unseen (one that drew 9 after taking its xid, while an older
 *     xid drew 10 and committed). N is S's xmax plus `age(xmax)`, the distance from it to the
 *     server's next xid, which `age` reads when its own transaction has none, as here: no xid
 *     is spent on a read.
 * (c) A read that held changes back (H < L) is followed by re-checks of the horizon while
 *     anyone listens (change-watch.ts), since no NOTIFY comes when the transaction that held
 *     them ends (rule 3).
 *
 * (d) A horizon, once settled, is a fact of the database: every instance shares the highest it
 *     reached in `feed_horizon` (at most once a second) and starts from the shared one, so an
 *     instance just started answers up to it even while a long write (a large import) holds
 *     new observations back. A read whose page is short while changes are held back looks
 *     again a few times within about 60 ms (`SETTLE_PAUSES_MS`): a write acknowledged before a
 *     read is then in it, unless another writer of the database runs longer than that.
 *
 * What it costs: a change is answered once every transaction of this database that took
 * its xid before the change's revision was observed has ended: a long transaction in this
 * database that wrote anything (or took an xid) holds the feed back until it ends, never
 * makes it skip.
 */

/** The most entries one read answers, whatever `limit` asks (GET /changes allows 1,000). */
export const MAX_PAGE = 1000;

/** Observations kept while waiting to settle; more only delay the horizon, never break it. */
const MAX_WAITING = 8;

/**
 * A read that finds changes held back looks again after these pauses (ms) while its page is
 * short, until what was drawn when it began has settled: a write acknowledged before the read
 * is then in it, unless a transaction of this database runs longer than their sum.
 */
const SETTLE_PAUSES_MS = [2, 4, 8, 16, 32];

/** How often an instance shares a horizon it moved on (`feed_horizon`): at most once this long. */
const SHARE_EVERY_MS = 1000;

/** Shares a settled horizon with every instance, unless one already shared a higher one. */
const SHARE = 'UPDATE feed_horizon SET value = $1 WHERE value < $1';

/** Every revision drawn so far is at most this (0 before the first). */
const DRAWN = `SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS drawn
  FROM term_revision`;

/**
 * L, then R (32-bit xids as text), in one implicit transaction of no xid: the activity
 * statistics are read at their first use, in the second statement, after L. `datid` and
 * `backend_xid` are shown to every role, whoever the session's is. R holds every writer of the
 * glossary because none uses a prepared (two-phase) transaction, which has an xid but no
 * session.
 */
const LOOK = `${DRAWN};
  SELECT coalesce(array_agg(backend_xid::text), '{}') AS running FROM pg_stat_activity
  WHERE datname = current_database() AND backend_xid IS NOT NULL`;

/**
 * `$1` the horizon known, `$2`/`$3` the waiting observations' L and N, `$4` the new L, `$5`
 * since, `$6` the limit, `$7` R. `age(xid)` is the 32-bit distance to the next xid (an xid
 * below 3 is not a normal one: 3 below it is); a running xid of R is within 2^31 below the
 * next, which gives its epoch. `busy`: the oldest xid of R that S does not see completed. Each side of the union is cut to the page first, through
 * its index; the live side reads no further than the last recorded entry of a full page (the
 * rows it passes over had their creation recorded, within that page), as SQLite does.
 */
const PAGE = `
  WITH snap AS (
    SELECT s, pg_snapshot_xmax(s)::text::bigint AS xmax FROM pg_current_snapshot() s
  ), edge AS (
    SELECT s, CASE WHEN xmax % 4294967296 >= 3
                   THEN xmax + age((xmax % 4294967296)::text::xid)
                   ELSE xmax - 3 + age(((xmax - 3) % 4294967296)::text::xid) END AS next
    FROM snap
  ), busy AS (
    SELECT min(x.xid) AS oldest
    FROM edge e, LATERAL (
      SELECT e.next - ((e.next % 4294967296 - r::bigint) % 4294967296 + 4294967296)
                      % 4294967296 AS xid
      FROM unnest($7::text[]) r) x
    WHERE NOT pg_visible_in_snapshot(x.xid::text::xid8, e.s)
  ), horizon AS (
    SELECT greatest($1::bigint, (SELECT value FROM feed_horizon),
             (SELECT max(o.drawn) FROM unnest($2::bigint[], $3::bigint[]) AS o (drawn, next)
              WHERE b.oldest IS NULL OR o.next <= b.oldest),
             CASE WHEN b.oldest IS NULL OR e.next <= b.oldest THEN $4::bigint END) AS revision,
           e.next
    FROM edge e, busy b
  ), recorded AS (
    SELECT ${RECORDED_FIELDS} FROM term_history
    WHERE revision > $5 AND revision <= (SELECT revision FROM horizon)
    ORDER BY revision LIMIT $6
  ), page AS (
    SELECT * FROM recorded
    UNION ALL
    (SELECT t.created_rev, t.seq, 'created', t.created_at, t.created_by, NULL, ${LIVE_FIELDS}
     FROM terms t
     WHERE t.created_rev > $5 AND t.created_rev <= (SELECT revision FROM horizon)
       AND t.created_rev <= (SELECT CASE WHEN count(*) < $6 THEN ${Number.MAX_SAFE_INTEGER}
                                         ELSE max(revision) END FROM recorded)
       AND NOT EXISTS (SELECT 1 FROM term_history h WHERE h.revision = t.created_rev)
     ORDER BY t.created_rev LIMIT $6)
    ORDER BY revision LIMIT $6
  )
  SELECT h.revision AS horizon, h.next, p.*
  FROM horizon h LEFT JOIN page p ON true
  ORDER BY p.revision`;

type PageRow = Omit<EntryRow, 'revision'> & {
  horizon: number;
  next: number | null;
  revision: number | null;
};

interface Observation {
  drawn: number;
  next: number;
}

/** What a read found: its horizon, and L, the highest revision drawn. */
export interface Sighting {
  horizon: number;
  drawn: number;
}

/** The feed's reads of one store; `seen` hears of each read's horizon (change-watch.ts). */
export class FeedReads implements Pick<ChangeFeed, 'changesSince' | 'latestRevision'> {
  /** Settled: no revision at or below it can still appear. */
  private horizon = 0;
  /** The horizon last shared in `feed_horizon`, and when. */
  private shared = { horizon: 0, at: Number.NEGATIVE_INFINITY };
  /** Not settled yet, oldest first. */
  private waiting: Observation[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly seen: (sighting: Sighting) => void = () => undefined,
  ) {}

  async latestRevision(): Promise<number> {
    const [row] = await query<{ drawn: number }>(this.pool, DRAWN, [], 'feed-drawn');
    return row?.drawn ?? 0;
  }

  async changesSince(since: number, limit: number): Promise<ReturnType<typeof toEntry>[]> {
    const size = Math.min(Math.max(Math.floor(limit), 0), MAX_PAGE);
    let { rows, sighting } = await this.read(since, size);
    const target = sighting.drawn;
    for (const pause of SETTLE_PAUSES_MS) {
      if (rows.length >= size || sighting.horizon >= target) break;
      await new Promise((resolve) => setTimeout(resolve, pause));
      ({ rows, sighting } = await this.read(since, size));
    }
    return rows.map(toEntry);
  }

  /** The horizon now (a read of no rows): what the watch re-checks while changes wait. */
  async check(): Promise<Sighting> {
    return (await this.read(0, 0)).sighting;
  }

  private async read(
    since: number,
    limit: number,
  ): Promise<{ rows: EntryRow[]; sighting: Sighting }> {
    const { drawn, running } = await this.look();
    const waiting = this.waiting;
    const rows = await query<PageRow>(
      this.pool,
      PAGE,
      [
        this.horizon,
        waiting.map((o) => o.drawn),
        waiting.map((o) => o.next),
        drawn,
        since,
        limit,
        running,
      ],
      'feed-page',
    );
    const [first] = rows;
    const horizon = first?.horizon ?? this.horizon;
    this.settle(horizon, drawn, first?.next ?? null);
    this.share();
    const sighting = { horizon: this.horizon, drawn };
    this.seen(sighting);
    return {
      rows: rows.flatMap((row) => (row.revision === null ? [] : [row as EntryRow])),
      sighting,
    };
  }

  /** L and R (see above), in one round trip. */
  private async look(): Promise<{ drawn: number; running: string[] }> {
    const results = (await withClient(this.pool, 'feed read failed', (client) =>
      client.query(LOOK),
    )) as unknown as [pg.QueryResult<{ drawn: number }>, pg.QueryResult<{ running: string[] }>];
    return {
      drawn: results[0].rows[0]?.drawn ?? 0,
      running: results[1].rows[0]?.running ?? [],
    };
  }

  /**
   * Tells the other instances (and this one, restarted) of a horizon this one moved on, at
   * most every SHARE_EVERY_MS: a horizon is a fact of the database (no revision at or below it
   * can still appear), so an instance that starts while a long write runs answers up to it at
   * once instead of nothing. Best effort: a failure only leaves the others where they were.
   */
  private share(): void {
    const now = performance.now();
    if (this.horizon <= this.shared.horizon || now - this.shared.at < SHARE_EVERY_MS) return;
    this.shared = { horizon: this.horizon, at: now };
    query(this.pool, SHARE, [this.horizon], 'feed-share').catch(() => undefined);
  }

  /** Keeps the horizon reached and the observations still to settle. */
  private settle(horizon: number, drawn: number, next: number | null): void {
    this.horizon = Math.max(this.horizon, horizon);
    const waiting = this.waiting.filter((o) => o.drawn > this.horizon);
    const newest = waiting.at(-1);
    // A null N (cannot happen on a sane server) only loses this observation.
    if (next !== null && drawn > this.horizon && (newest === undefined || drawn > newest.drawn)) {
      // Full: the newest gives way; the oldest settle first.
      if (waiting.length >= MAX_WAITING) waiting.pop();
      waiting.push({ drawn, next });
    }
    this.waiting = waiting;
  }
}
