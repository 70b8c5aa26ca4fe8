/* `khost merge`: the shards' JSON reports of one run (--shard I/N, a Slurm job
 * array) made into the one table, summary, reports and exit status a run of the
 * whole selection gives (docs/CLUSTER.md). */
#ifndef KHOST_MERGE_H
#define KHOST_MERGE_H

#include "error.h"
#include "options.h"

/* Reads the reports files[0..nfiles) (borrowed), checks they are shards of one
 * run, prints the table of their rows in suite order and writes o's --json,
 * --csv and --junit (o->report_mode) as a run would. Returns the exit status:
 * 2 for reports that cannot be read, of different khost versions, suites or
 * selections, a shard given twice or an output that cannot be used; 1 when a
 * row failed, a shard is missing or did not finish (each named on stderr, and
 * the merged report's finished is false), or a report could not be written in
 * full; else 0. err holds the message of a status 2. */
int khost__merge(const char *const *files, int nfiles, const khost__options *o, khost__err *err);

#endif
