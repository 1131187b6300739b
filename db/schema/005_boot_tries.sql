-- hilab schema, version 5: how many boots a run took.
--
-- A VM boot that fails for a reason outside the kernel (qemu exited or
-- would not start, a hang without a panic line) is made again on a fresh
-- domain, up to the machine's boot_tries.  The run that booted its kernel
-- records how many boots that took (1 when the first one came up); runs that
-- found their kernel already up leave it NULL.

ALTER TABLE runs ADD COLUMN boot_tries INTEGER;
