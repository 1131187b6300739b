-- hilab schema, version 6: health that decides, and kernels that failed to
-- boot.
--
-- health_reason says why a machine is not good (who set it and what was
-- seen), health_at when it changed.  check_due is 1 after a recovery (a
-- power cycle back to the known-good kernel): the machine runs a health
-- check before it takes a run; checks_failed counts the checks that failed
-- since, and enough of them make it bad.  Bad and maintenance machines
-- are not leased.
ALTER TABLE machines ADD COLUMN health_reason TEXT;
ALTER TABLE machines ADD COLUMN health_at INTEGER;
ALTER TABLE machines ADD COLUMN check_due INTEGER NOT NULL DEFAULT 0
    CHECK (check_due IN (0, 1));
ALTER TABLE machines ADD COLUMN checks_failed INTEGER NOT NULL DEFAULT 0
    CHECK (checks_failed >= 0);

-- 1 when the run failed because its kernel did not boot on its machine (a
-- panic, a hang, no ssh): the job's other runs of that kernel on that
-- machine are not booted again.
ALTER TABLE runs ADD COLUMN boot_failed INTEGER NOT NULL DEFAULT 0
    CHECK (boot_failed IN (0, 1));
