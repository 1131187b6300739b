-- hilab schema, version 4: runs done again.
--
-- A run interrupted by something other than the benchmark (its VM or host
-- rebooted, hilabd killed while it ran, a host power-cycled) is done again
-- as a new run; the old one stays, failed, with what it measured, and
-- points at the new one.  Such a run neither fails its job nor counts in
-- comparison tables: the new run measures every iteration again.

ALTER TABLE runs ADD COLUMN retried_as INTEGER REFERENCES runs (id);
