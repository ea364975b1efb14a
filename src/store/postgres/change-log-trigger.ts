/**
 * The change log's trigger (migration 5, made again by the migrations that add columns to the
 * log): every statement that changes `terms` notes its rows in `term_changes`, which keeps the
 * counts of kept-counts.ts exact.
 */

/** The most rows one statement's change to `terms` lists in `term_changes` (migration 5). */
const CHANGES_LISTED = 64;

/**
 * The trigger function that logs each statement's changed rows in `term_changes` (migration 5),
 * the rows' `columns` (those of `term_changes`, which the filters of kept counts read): a row
 * removed with sign -1, a row added with sign 1, or one row of sign 0 for a statement that
 * changed too many to list. Migrations that add columns to the log make it again.
 */
export function noteTermChanges(columns: string): string {
  return `FUNCTION note_term_changes() RETURNS trigger LANGUAGE plpgsql AS $$
   DECLARE
     changed bigint := 0;
   BEGIN
     -- Each transition table exists only for the events that declare it.
     IF TG_OP = 'TRUNCATE' THEN
       changed := ${CHANGES_LISTED} + 1;
     ELSIF TG_OP = 'INSERT' THEN
       SELECT count(*) INTO changed FROM new_rows;
     ELSE
       SELECT count(*) INTO changed FROM old_rows;
     END IF;
     IF changed > ${CHANGES_LISTED} THEN
       INSERT INTO term_changes (sign) VALUES (0);
       RETURN NULL;
     END IF;
     IF TG_OP IN ('UPDATE', 'DELETE') THEN
       INSERT INTO term_changes (sign, ${columns})
       SELECT -1, ${columns} FROM old_rows;
     END IF;
     IF TG_OP IN ('INSERT', 'UPDATE') THEN
       INSERT INTO term_changes (sign, ${columns})
       SELECT 1, ${columns} FROM new_rows;
     END IF;
     RETURN NULL;
   END $$;`;
}
